// The Dashboard panel: PAR-2 per cycle, verdicts, cactus plot, SAT/UNSAT bars, per-instance results,
// failures and cost (docs/using.md). One panel at a time; it follows the workspace on disk, comes back after a
// window reload (serializer), and opens run logs, RESULTS.md and the diff with the parent on request.
import * as vscode from 'vscode';
import { islandsConfig } from '../../core/strategy/islands';
import { smcConfig } from '../../core/strategy/smc';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { candidateDocProblem, hasCandidateDoc } from '../../core/workspace/candidateFs';
import { DashboardSource, type DashboardBuild, type DashboardInput } from '../../core/dashboard/dashboardData';
import { instanceLog } from '../../core/dashboard/instanceLog';
import type { ParsedEval } from '../../core/dashboard/read';
import { parseCandidateDir, STATE_DIR } from '../../core/layout';
import { DashboardHostMessage, DashboardViewMessage } from '../../shared/dashboardProtocol';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';
import { WebviewChannel } from './channel';
import { webviewHtml, webviewRoots } from './html';
import { showMarkdown } from '../markdownPreview';

const VIEW_TYPE = 'satlution.dashboard';
/** Run logs that exist only as a stored result are shown as read-only documents of this scheme. */
const RUN_SCHEME = 'satlution-run';

/**
 * Where the dashboard shows what it opens (run logs, RESULTS.md): one preview editor beside the
 * dashboard, the first time to its side and then in that same group, so clicking through instances
 * replaces the log instead of opening a new column each time. Focus stays on the dashboard.
 */
export class BesideEditor {
  private column: vscode.ViewColumn | undefined;

  /** The group to use: the one used last while it is still open and is not the dashboard's own. */
  private options(dashboard: vscode.ViewColumn | undefined): vscode.TextDocumentShowOptions {
    const reuse = this.column !== undefined && this.column !== dashboard && vscode.window.tabGroups.all.some((g) => g.viewColumn === this.column);
    return { preview: true, preserveFocus: true, viewColumn: reuse ? this.column! : vscode.ViewColumn.Beside };
  }

  async showText(doc: vscode.TextDocument, dashboard: vscode.ViewColumn | undefined): Promise<void> {
    this.column = (await vscode.window.showTextDocument(doc, this.options(dashboard))).viewColumn;
  }

  async showMarkdown(uri: vscode.Uri, dashboard: vscode.ViewColumn | undefined): Promise<void> {
    await showMarkdown(uri, this.options(dashboard));
    this.column =
      vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.isPreview && tabUri(t)?.toString() === uri.toString()))?.viewColumn ?? this.column;
  }

  /** A run log as a `log` document, in the reused editor. */
  async showRunLog(
    root: string,
    candidate: string,
    instance: string,
    evaluation: ParsedEval | undefined,
    dashboard: vscode.ViewColumn | undefined,
  ): Promise<vscode.Uri> {
    const found = await instanceLog(root, candidate, instance, evaluation);
    const uri = found.kind === 'file' ? vscode.Uri.file(found.file) : runUri(candidate, instance);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId === 'plaintext') await vscode.languages.setTextDocumentLanguage(doc, 'log').then(undefined, () => undefined);
    await this.showText(doc, dashboard);
    return uri;
  }
}

/** The document a tab shows, for text and custom editors. */
const tabUri = (t: vscode.Tab): vscode.Uri | undefined =>
  t.input instanceof vscode.TabInputText || t.input instanceof vscode.TabInputCustom ? t.input.uri : undefined;

class DashboardPanel extends Disposable {
  private readonly channel: WebviewChannel<DashboardHostMessage, DashboardViewMessage>;
  private source: DashboardSource | undefined;
  private build: DashboardBuild | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private dirty = true;
  private timer: NodeJS.Timeout | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private watchedRoot: string | undefined;
  /** What the channel last posted (it re-posts only that one on a new `ready`). */
  private last: DashboardHostMessage['type'] | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly model: WorkspaceModel,
    private readonly log: vscode.LogOutputChannel,
    private readonly beside: BesideEditor,
    onDispose: () => void,
  ) {
    super();
    panel.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(extensionUri) };
    panel.iconPath = new vscode.ThemeIcon('graph-line');
    panel.webview.html = webviewHtml(panel.webview, extensionUri, {
      title: 'SATLUTION Dashboard',
      script: 'dashboard.js',
      style: 'dashboard.css',
      live: false,
    });
    this.channel = this.register(
      new WebviewChannel(
        panel.webview,
        DashboardViewMessage,
        (m) => void this.onMessage(m).catch((e: Error) => this.log.error(`Dashboard: ${e.message}`)),
        (m) => this.log.warn(m),
      ),
    );
    this.register(model.onDidChange(() => this.changed()));
    this.register(panel.onDidChangeViewState(() => panel.visible && this.dirty && this.changed(0)));
    this.register(
      panel.onDidDispose(() => {
        this.dispose();
        onDispose();
      }),
    );
    this.changed(0);
  }

  reveal(): void {
    this.panel.reveal();
  }

  private post(m: DashboardHostMessage): void {
    // The webview drops a message that fails the schema; say so here, where it can be read.
    if (m.type === 'data') {
      const r = DashboardHostMessage.safeParse(m);
      if (!r.success) this.log.error(`Dashboard: the data does not match the protocol at ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`);
    }
    this.last = m.type;
    this.channel.post(m);
  }

  /** Something on disk changed: rebuild soon (a cycle writes many files at once), or when shown again. */
  private changed(delayMs = 300): void {
    this.dirty = true;
    if (!this.panel.visible) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.rebuild(), delayMs);
  }

  private rebuild(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.doRebuild()
      .catch((e: Error) => this.log.error(`Dashboard: reading the workspace failed: ${e.message}`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.rebuild();
        }
      });
    return this.running;
  }

  private async doRebuild(): Promise<void> {
    this.dirty = false;
    const root = this.model.workspaceRoot;
    this.watch(root);
    if (!root) {
      this.build = undefined;
      this.post({ type: 'none' });
      return;
    }
    if (this.source?.ws !== root) this.source = new DashboardSource(root);
    const snap = this.model.snapshot;
    const input: DashboardInput | undefined =
      snap && snap.dir === root
        ? {
            champion: snap.champion,
            candidates: snap.candidates,
            ...(snap.config.ok
              ? {
                  strategy: snap.config.config.strategy.name,
                  islands: islandsConfig(snap.config.config),
                  smc: smcConfig(snap.config.config),
                  ...(snap.config.config.stages.perf.tiers ? { tiers: snap.config.config.stages.perf.tiers } : {}),
                  config: snap.config.config,
                }
              : {}),
          }
        : undefined;
    const t0 = Date.now();
    this.build = await this.source.build(input);
    this.log.debug(
      `Dashboard: built in ${Date.now() - t0} ms (${this.build.data.candidates.length} candidates, ${this.build.data.instances.name.length} instances)`,
    );
    this.post({ type: 'data', data: this.build.data });
  }

  /** Evaluations, cycles, duels, the calibration and spending are not in the workspace model's watch: watch them while open. */
  private watch(root: string | undefined): void {
    if (root === this.watchedRoot) return;
    this.watcher?.dispose();
    this.watcher = undefined;
    this.watchedRoot = root;
    if (!root) return;
    this.watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(root, `${STATE_DIR}/{evals/*.json,cycle.json,cycles.jsonl,usage.jsonl,duels/*.json,calibration.json}`),
    );
    const soon = () => this.changed();
    this.watcher.onDidCreate(soon);
    this.watcher.onDidChange(soon);
    this.watcher.onDidDelete(soon);
  }

  private async onMessage(m: DashboardViewMessage): Promise<void> {
    const root = this.model.workspaceRoot;
    switch (m.type) {
      case 'ready':
        // A re-created webview: the channel re-posted its last message; make sure the data is among it.
        if (this.build && this.last !== 'data') this.post({ type: 'data', data: this.build.data });
        if (!this.build || this.dirty) this.changed(0);
        return;
      case 'select':
        if (this.build) this.post({ type: 'detail', version: this.build.data.version, columns: this.build.columns(m.ids) });
        return;
      case 'pairs': {
        if (!this.build) return;
        this.post({ type: 'pairs', session: m.session, pairs: (await this.build.pairs(m.session)) ?? null });
        return;
      }
      case 'refresh':
        await this.model.refresh();
        this.changed(0);
        return;
      case 'compare':
        await vscode.commands.executeCommand('satlution.compareWithParent', m.candidate);
        return;
      case 'openResults': {
        if (!root) return;
        const dir = path.join(root, m.candidate);
        const problem = await candidateDocProblem(dir, 'RESULTS.md');
        if (problem) void vscode.window.showWarningMessage(`SATLUTION: ${problem}.`);
        else if (await hasCandidateDoc(dir, 'RESULTS.md')) await this.beside.showMarkdown(vscode.Uri.file(path.join(dir, 'RESULTS.md')), this.panel.viewColumn);
        else void vscode.window.showInformationMessage(`SATLUTION: ${m.candidate} has no RESULTS.md yet.`);
        return;
      }
      case 'openLog': {
        if (!root) return;
        const id = parseCandidateDir(m.candidate);
        await this.beside.showRunLog(root, m.candidate, m.instance, id === undefined ? undefined : this.build?.evaluation(id), this.panel.viewColumn);
        return;
      }
    }
  }

  override dispose(): void {
    clearTimeout(this.timer);
    this.watcher?.dispose();
    super.dispose();
  }
}

/** satlution-run:/SATLUTION_3/sub/x.cnf.log: the stored result of a run whose output was not kept. */
const runUri = (candidate: string, instance: string) => vscode.Uri.from({ scheme: RUN_SCHEME, path: `/${candidate}/${instance}.log` });

class RunLogProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly model: WorkspaceModel) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const m = /^\/(SATLUTION_\d{1,9})\/(.+)\.log$/.exec(uri.path);
    const root = this.model.workspaceRoot;
    if (!m || !root) return 'No SATLUTION workspace is open.\n';
    const found = await instanceLog(root, m[1]!, m[2]!);
    return found.kind === 'text' ? found.text : await fs.readFile(found.file, 'utf8');
  }
}

export function registerDashboard(context: vscode.ExtensionContext, model: WorkspaceModel, log: vscode.LogOutputChannel): vscode.Disposable {
  let current: DashboardPanel | undefined;
  const beside = new BesideEditor();
  const attach = (panel: vscode.WebviewPanel) => {
    current?.panel.dispose(); // one dashboard at a time
    const p: DashboardPanel = new DashboardPanel(panel, context.extensionUri, model, log, beside, () => {
      if (current === p) current = undefined;
    });
    current = p;
  };
  return vscode.Disposable.from(
    vscode.commands.registerCommand('satlution.openDashboard', () => {
      if (current) return current.reveal();
      attach(
        vscode.window.createWebviewPanel(VIEW_TYPE, 'SATLUTION Dashboard', vscode.ViewColumn.Active, {
          enableScripts: true,
          localResourceRoots: webviewRoots(context.extensionUri),
        }),
      );
    }),
    // After a window reload the panel comes back; the webview restores its own state (selection, tab).
    vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
      deserializeWebviewPanel: async (panel: vscode.WebviewPanel) => attach(panel),
    }),
    vscode.workspace.registerTextDocumentContentProvider(RUN_SCHEME, new RunLogProvider(model)),
    // What the dashboard's instance rows run, also for scripts and tests: { candidate, instance }.
    vscode.commands.registerCommand('satlution.openRunLog', async (arg?: unknown) => {
      // Validated as the webview's `openLog` message is.
      const a = DashboardViewMessage.safeParse({ ...(typeof arg === 'object' && arg ? arg : {}), type: 'openLog' });
      const root = model.workspaceRoot;
      if (!a.success || a.data.type !== 'openLog' || !root) return undefined;
      return beside.showRunLog(root, a.data.candidate, a.data.instance, undefined, current?.panel.viewColumn);
    }),
    { dispose: () => current?.panel.dispose() },
  );
}
