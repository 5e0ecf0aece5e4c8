// The extension's view of the SATLUTION workspace: which folder it is, and its latest snapshot.
// Refreshes when the workspace changes on disk (also when the CLI changes it from a terminal).
import * as vscode from 'vscode';
import * as path from 'node:path';
import { BENCH_DIR, CONFIG_FILE } from '../core/layout';
import { EvalStore } from '../core/eval/evalStore';
import { stalePerfMeasurements } from '../core/eval/staleSet';
import { workspaceState } from '../core/config/lastGood';
import { readCalibration, type CalibrationDoc } from '../core/decide/calibration';
import { cpuMeasuredHere } from '../core/run/measurement';
import { readSnapshot, type WorkspaceSnapshot } from '../core/workspace/snapshot';
import type { Logger } from '../core/ports';
import { Disposable } from './disposable';

export class WorkspaceModel extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<WorkspaceSnapshot | undefined>());
  readonly onDidChange = this.changed.event;
  private current: WorkspaceSnapshot | undefined;
  private vacuous: ReadonlyMap<string, string[]> = new Map();
  private cal: CalibrationDoc | undefined;
  private cpu: boolean | undefined;
  private cpuProbe: Promise<void> | undefined;
  private stale: ReadonlyMap<string, string> = new Map();
  private watchedSets = '';
  private root: string | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<WorkspaceSnapshot | undefined> | undefined;
  private queued: Promise<WorkspaceSnapshot | undefined> | undefined;

  constructor(private readonly log: Logger) {
    super();
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refresh()));
    this.register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('satlution.candidates.watch') && this.watch()));
  }

  get snapshot(): WorkspaceSnapshot | undefined {
    return this.current;
  }

  /** Per candidate directory: the gates of its latest evaluation that passed with nothing checked (vacuous_gates: warn). */
  get warnings(): ReadonlyMap<string, string[]> {
    return this.vacuous;
  }

  /** The kept noise calibration (`.satlution/calibration.json`), for the rule in force. */
  get calibration(): CalibrationDoc | undefined {
    return this.cal;
  }

  /** Whether this machine measures CPU time (run/measurement.ts), once known: the rule in force says wall time where it does not. */
  get cpuHere(): boolean | undefined {
    return this.cpu;
  }

  /** Per candidate directory: why its latest perf figures are from another version of the perf set (eval/staleSet.ts). */
  get stalePerf(): ReadonlyMap<string, string> {
    return this.stale;
  }

  /** The folder holding satlution.yaml (or a store whose satlution.yaml was deleted), or undefined when no folder is a SATLUTION workspace. */
  get workspaceRoot(): string | undefined {
    return this.root;
  }

  /**
   * Re-reads the workspace. A request made while a read is in flight gets one more read after it
   * (that read may have started before the change the caller saw); requests in between share it.
   */
  refresh(): Promise<WorkspaceSnapshot | undefined> {
    if (!this.refreshing) {
      this.refreshing = this.read().finally(() => (this.refreshing = undefined));
      return this.refreshing;
    }
    this.queued ??= this.refreshing.then(() => {
      this.queued = undefined;
      return this.refresh();
    });
    return this.queued;
  }

  private async read(): Promise<WorkspaceSnapshot | undefined> {
    const root = await findRoot();
    if (root !== this.root) {
      this.root = root;
      this.watch();
    }
    try {
      this.current = root ? await readSnapshot(root) : undefined;
      this.vacuous = root && this.current ? await new EvalStore(root).warnings(this.current.candidates.map((c) => c.dir)) : new Map();
      // A torn calibration.json is no reason to lose the whole snapshot: the rule then reads "not calibrated".
      this.cal = root && this.current ? await readCalibration(root).catch(() => undefined) : undefined;
      // Found once, off the first read's path: the snapshot shows now, the rule's basis when it is known.
      if (root && this.cpu === undefined && !this.cpuProbe)
        this.cpuProbe = cpuMeasuredHere().then((v) => {
          this.cpu = v;
          this.changed.fire(this.current);
        });
      // An unreadable set or cache only loses the marks, never the snapshot.
      const cfg = this.current?.config;
      this.stale =
        root && this.current && cfg?.ok
          ? await stalePerfMeasurements(
              root,
              cfg.config,
              this.current.candidates.map((c) => c.dir),
            ).catch(() => new Map<string, string>())
          : new Map();
    } catch (e) {
      this.log.error(`Reading the workspace failed: ${(e as Error).message}`);
      this.current = undefined;
      this.vacuous = new Map();
      this.cal = undefined;
      this.stale = new Map();
    }
    if (this.current?.store.rebuilt) this.log.warn(`The candidate store was rebuilt from disk (${this.current.store.rebuilt}).`);
    await vscode.commands.executeCommand('setContext', 'satlution.workspaceInitialized', this.current !== undefined);
    await vscode.commands.executeCommand('setContext', 'satlution.configMissing', this.current?.configMissing !== undefined);
    if (this.setPatterns() !== this.watchedSets) this.watch();
    this.changed.fire(this.current);
    return this.current;
  }

  private watch(): void {
    this.watcher?.dispose();
    this.watcher = undefined;
    const folder = this.root ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder || !vscode.workspace.getConfiguration('satlution').get<boolean>('candidates.watch', true)) return;
    // Candidate directories and their docs, the store's index, the evaluation documents, the noise
    // calibration, the config itself, and the benchmark sets (their counts and the perf set's version).
    this.watchedSets = this.setPatterns();
    const pattern = new vscode.RelativePattern(
      folder,
      `{${CONFIG_FILE},SATLUTION_*,SATLUTION_*/*.md,.satlution/candidates.json,.satlution/evals/*.json,.satlution/calibration.json,${this.watchedSets}}`,
    );
    this.watcher = vscode.workspace.createFileSystemWatcher(pattern);
    const soon = () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.refresh(), 250); // a cycle touches many files at once
    };
    this.watcher.onDidCreate(soon);
    this.watcher.onDidChange(soon);
    this.watcher.onDidDelete(soon);
  }

  /** Globs of the benchmark sets inside the folder: `benchmarks/**` and any configured set elsewhere in it (sets outside the folder are not watched). */
  private setPatterns(): string {
    const rel = (this.current?.benchmarks ?? [])
      .map((b) => path.posix.normalize(b.dir.split(path.sep).join('/')).replace(/\/$/, ''))
      .filter((d) => !path.isAbsolute(d) && d !== '.' && !d.startsWith('..') && !/[{}*?,[\]]/.test(d) && !d.startsWith(`${BENCH_DIR}/`));
    return [...new Set([BENCH_DIR, ...rel])]
      .sort()
      .flatMap((d) => [d, `${d}/**`])
      .join(',');
  }

  override dispose(): void {
    clearTimeout(this.timer);
    this.watcher?.dispose();
    super.dispose();
  }
}

async function findRoot(): Promise<string | undefined> {
  for (const f of vscode.workspace.workspaceFolders ?? []) if (f.uri.scheme === 'file' && (await workspaceState(f.uri.fsPath))) return f.uri.fsPath;
  return undefined;
}
