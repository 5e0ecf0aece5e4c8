// Rule violations as Problems-panel diagnostics (code = rule id and check), refreshed when a file of
// a candidate or a rule is saved, and when an evaluation or "Check Rules" reports on a candidate.
// They never outlive their cause: a candidate showing violations is checked again when any of its
// files changes on disk (edited elsewhere, deleted, restored), and its diagnostics go with its directory.
import * as vscode from 'vscode';
import * as path from 'node:path';
import * as fs from 'node:fs/promises';
import { loadConfig } from '../../core/config/load';
import type { ComplianceReport } from '../../core/rules/check';
import { checkCandidate } from '../../core/rules/workspaceCheck';
import { CANDIDATE_PREFIX, parseCandidateDir, RULES_DIR } from '../../core/layout';
import type { Logger } from '../../core/ports';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';

export class ComplianceDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('satlution-rules'));
  private readonly byCandidate = new Map<string, vscode.Uri[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly reported = this.register(new vscode.EventEmitter<{ candidate: string; report: ComplianceReport }>());
  /** Fires after every check shown; the Rules view shows the latest one's state per rule. */
  readonly onDidReport = this.reported.event;
  private last: { candidate: string; report: ComplianceReport } | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private watchedRoot: string | undefined;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly log: Logger,
  ) {
    super();
    this.register(vscode.workspace.onDidSaveTextDocument((d) => this.onSave(d.uri)));
    this.register(model.onDidChange(() => this.onModel()));
  }

  /** Checks one candidate now and shows its violations; returns the report. */
  async check(candidate: string): Promise<ComplianceReport | undefined> {
    const root = this.model.workspaceRoot;
    if (!root) return undefined;
    // A directory gone (deleted, or renamed away) has no violations left to show.
    if (!(await fs.stat(path.join(root, candidate)).then((s) => s.isDirectory(), () => false))) {
      this.clear(candidate);
      return undefined;
    }
    try {
      const report = await checkCandidate(root, await loadConfig(root), path.join(root, candidate));
      this.show(candidate, report);
      return report;
    } catch (e) {
      this.log.warn(`Checking the rules on ${candidate} failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  show(candidate: string, report: ComplianceReport): void {
    const root = this.model.workspaceRoot;
    if (!root) return;
    for (const uri of this.byCandidate.get(candidate) ?? []) this.collection.delete(uri);
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const v of report.violations) {
      const file = path.join(root, candidate, v.file ?? 'HYPOTHESIS.md');
      const line = Math.max(0, (v.line ?? 1) - 1);
      const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, 1000), v.message, v.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
      d.source = 'satlution rules';
      d.code = `${v.rule}/${v.check}`;
      byFile.set(file, [...(byFile.get(file) ?? []), d]);
    }
    const uris = [...byFile].map(([f, ds]) => {
      const uri = vscode.Uri.file(f);
      this.collection.set(uri, ds);
      return uri;
    });
    this.byCandidate.set(candidate, uris);
    this.last = { candidate, report };
    this.reported.fire(this.last);
  }

  /** The latest check shown (from a save, an evaluation, a review or Check Rules). */
  get latest(): { candidate: string; report: ComplianceReport } | undefined {
    return this.last;
  }

  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }

  private onSave(uri: vscode.Uri): void {
    const root = this.model.workspaceRoot;
    if (!root || uri.scheme !== 'file') return;
    const rel = path.relative(root, uri.fsPath).split(path.sep);
    // A saved rule changes every candidate's verdict; a saved source changes its own candidate's.
    const targets = rel[0] === RULES_DIR ? [...this.byCandidate.keys()] : parseCandidateDir(rel[0] ?? '') !== undefined && rel.length > 1 ? [rel[0]!] : [];
    for (const c of targets) this.schedule(c);
  }

  /**
   * A change on disk (not only a save here): only candidates that show violations are checked again,
   * so a build writing hundreds of files in a clean candidate costs nothing. The candidate directory
   * itself (created or deleted) counts too: restoring a deleted directory is a change of its files.
   */
  private onDisk(uri: vscode.Uri): void {
    const root = this.model.workspaceRoot;
    if (!root || uri.scheme !== 'file') return;
    const rel = path.relative(root, uri.fsPath).split(path.sep);
    const shown = [...this.byCandidate].filter(([, uris]) => uris.length > 0).map(([c]) => c);
    const targets = rel[0] === RULES_DIR ? shown : shown.filter((c) => c === rel[0]);
    for (const c of targets) this.schedule(c, 500);
  }

  /** One check per candidate after the changes stop: a save or a checkout touches many files at once. */
  private schedule(candidate: string, ms = 300): void {
    clearTimeout(this.timers.get(candidate));
    this.timers.set(candidate, setTimeout(() => void this.check(candidate), ms));
  }

  /** Drops a candidate's diagnostics; the Rules view keeps its latest report (a report is history, not a finding). */
  private clear(candidate: string): void {
    for (const uri of this.byCandidate.get(candidate) ?? []) this.collection.delete(uri);
    this.byCandidate.delete(candidate);
  }

  /** Follows the workspace: watches its candidates and rules, and clears candidates the store no longer shows on disk. */
  private onModel(): void {
    const root = this.model.workspaceRoot;
    if (root !== this.watchedRoot) {
      this.watcher?.dispose();
      this.watcher = undefined;
      this.watchedRoot = root;
      if (root) {
        this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, `{${CANDIDATE_PREFIX}*,${CANDIDATE_PREFIX}*/**,${RULES_DIR}/**}`));
        const w = this.watcher;
        w.onDidCreate((uri) => this.onDisk(uri));
        w.onDidChange((uri) => this.onDisk(uri));
        w.onDidDelete((uri) => this.onDisk(uri));
      }
    }
    const present = new Set((this.model.snapshot?.candidates ?? []).filter((c) => !c.missing).map((c) => c.dir));
    for (const c of [...this.byCandidate.keys()]) if (!present.has(c)) this.clear(c);
  }

  override dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.watcher?.dispose();
    super.dispose();
  }
}
