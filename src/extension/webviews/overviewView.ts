// The Overview sidebar view: the champion, candidates by status, the config's health, seeds and
// benchmark sets at a glance, with the next useful actions.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { BENCH_DIR, CONFIG_FILE, RULES_DIR } from '../../core/layout';
import { HostMessage, ViewMessage, type OverviewAction } from '../../shared/protocol';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';
import { WebviewChannel } from './channel';
import { webviewHtml, webviewRoots } from './html';
import { toOverview } from './overviewModel';

export class OverviewViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = 'satlution.overview';
  private channel: WebviewChannel<HostMessage, ViewMessage> | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly model: WorkspaceModel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.register(model.onDidChange(() => this.push()));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = webviewHtml(view.webview, this.extensionUri, { title: 'Overview', script: 'overview.js', style: 'overview.css', loading: 'Loading…' });
    this.channel?.dispose();
    const channel = new WebviewChannel<HostMessage, ViewMessage>(
      view.webview,
      ViewMessage,
      (m) => void this.onMessage(m),
      (m) => this.log.warn(m),
    );
    this.channel = channel;
    view.onDidDispose(() => {
      channel.dispose();
      if (this.channel === channel) this.channel = undefined;
    });
    this.push();
  }

  private push(): void {
    this.channel?.post({
      type: 'overview',
      overview: toOverview(this.model.snapshot, undefined, this.model.warnings, this.model.calibration, this.model.cpuHere),
    });
  }

  private async onMessage(m: ViewMessage): Promise<void> {
    const root = this.model.workspaceRoot;
    if (m.type === 'ready' || !root) return;
    if (m.type === 'openCandidate') {
      await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(path.join(root, m.dir)));
      return;
    }
    const actions: Record<OverviewAction, () => Thenable<unknown>> = {
      openConfig: () => vscode.window.showTextDocument(vscode.Uri.file(path.join(root, CONFIG_FILE))),
      openRules: () => vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(path.join(root, RULES_DIR))),
      revealBenchmarks: () => vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(path.join(root, BENCH_DIR))),
      refresh: () => this.model.refresh(),
      showOutput: async () => this.log.show(),
      openDashboard: () => vscode.commands.executeCommand('satlution.openDashboard'),
      addSamples: () => vscode.commands.executeCommand('satlution.addSampleBenchmarks'),
    };
    await actions[m.action]();
  }

  override dispose(): void {
    super.dispose();
    this.channel?.dispose();
  }
}
