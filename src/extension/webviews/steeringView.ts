// The Steering sidebar view: the cycle's phase and step, the plan awaiting approval (approve / edit /
// reject), the agents' live stream, pause / stop / resume / start, direction notes for the next
// cycles, and the approval mode. The host keeps the state and a bounded stream history, so a view
// that is reopened (or reloaded) is given everything again after its `ready`.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { writeApprovalMode } from '../../core/config/edit';
import { candidateDirName, CONFIG_FILE } from '../../core/layout';
import { readVerdict } from '../../core/workspace/resultsFile';
import { strategyFor } from '../../core/strategy/registry';
import { defaultAgent } from '../../core/cycle/session';
import { readNotes, writeNotes } from '../../core/workspace/notes';
import { LIMITS, SteeringViewMessage, type FixAction, type SteeringHostMessage } from '../../shared/steeringProtocol';
import type { CycleController } from '../commands/cycleCommands';
import { listTranscripts } from '../commands/openTranscript';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';
import { WebviewChannel } from './channel';
import { webviewHtml, webviewRoots } from './html';
import { steeringState, SteeringStream } from './steeringModel';

/** Batches of streamed text reach the view this often at most. */
const FLUSH_MS = 80;

export class SteeringViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewId = 'satlution.steering';
  private view: vscode.WebviewView | undefined;
  private channel: WebviewChannel<SteeringHostMessage, SteeringViewMessage> | undefined;
  private readonly stream = new SteeringStream();
  private flushTimer: NodeJS.Timeout | undefined;
  private transcripts = false;
  /** The last cycle's candidate and its RESULTS.md "Why:", read when either changes. */
  private why: { dir: string; text: string | undefined; families: string | undefined } | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly model: WorkspaceModel,
    private readonly cycles: CycleController,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    const visible = () => this.view?.visible ?? false;
    cycles.setApprovalSurface({
      get visible() {
        return visible();
      },
      reveal: () => (this.view ? Promise.resolve(this.view.show(true)) : vscode.commands.executeCommand(`${SteeringViewProvider.viewId}.focus`)),
    });
    this.register(cycles.onDidChangeState(() => void this.readWhy().then(() => this.pushState())));
    this.register(
      cycles.onDidEvent((e) => {
        if (this.stream.push(e)) this.flushSoon();
        if (e.type === 'step' && !this.transcripts) void this.checkTranscripts();
      }),
    );
    this.register(model.onDidChange(() => void Promise.all([this.checkTranscripts(), this.readWhy(true)]).then(() => this.pushState())));
    // An edit of the waiting plan, saved: the view shows the text the coder will get.
    this.register(
      vscode.workspace.onDidSaveTextDocument((d) => {
        const p = cycles.approvals.pending;
        const ws = model.workspaceRoot;
        if (p && ws && d.uri.fsPath === path.join(ws, p.candidate, 'HYPOTHESIS.md')) void cycles.reloadPendingPlan();
      }),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = { enableScripts: true, localResourceRoots: webviewRoots(this.extensionUri) };
    view.webview.html = webviewHtml(view.webview, this.extensionUri, {
      title: 'Steering',
      script: 'steering.js',
      style: 'steering.css',
      live: false,
      loading: 'Loading…',
    });
    this.channel?.dispose();
    const channel = new WebviewChannel<SteeringHostMessage, SteeringViewMessage>(
      view.webview,
      SteeringViewMessage,
      (m) => void this.onMessage(m),
      (m) => this.log.warn(m),
    );
    this.channel = channel;
    this.view = view;
    view.onDidDispose(() => {
      channel.dispose();
      if (this.channel === channel) this.channel = undefined;
      if (this.view === view) this.view = undefined;
    });
  }

  /** The view's state now (also what the integration tests read). */
  state() {
    const snap = this.model.snapshot;
    return steeringState({
      workspace: snap !== undefined,
      run: this.cycles.run,
      saved: this.cycles.saved,
      approval: snap?.config.ok ? snap.config.config.approval : null,
      strategy: snap?.config.ok ? snap.config.config.strategy.name : null,
      screens: snap?.config.ok ? strategyFor(snap.config.config).screens : false,
      pending: this.cycles.approvals.pending,
      transcripts: this.transcripts,
      problem: this.cycles.problem,
      why: this.why?.text,
      families: this.why?.families,
      nextAgent: snap?.config.ok ? defaultAgent(snap.config.config) : null,
    });
  }

  /** Reads the "Why:" and "By family:" of the last cycle's candidate when the candidate changed (or, `force`, its files may have). */
  private async readWhy(force = false): Promise<void> {
    const ws = this.model.workspaceRoot;
    const saved = this.cycles.saved;
    const dir = ws && saved?.step === 'done' && saved.candidate !== null ? path.join(ws, candidateDirName(saved.candidate)) : undefined;
    if (!dir) {
      this.why = undefined;
      return;
    }
    if (!force && this.why?.dir === dir) return;
    const { why, families } = await readVerdict(dir);
    this.why = { dir, text: why, families };
  }

  private pushState(): void {
    this.channel?.post({ type: 'state', state: this.state() });
  }

  private flushSoon(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      const batch = this.stream.take();
      if (batch) this.channel?.post({ type: 'stream', ...batch });
    }, FLUSH_MS);
  }

  private async checkTranscripts(): Promise<void> {
    const ws = this.model.workspaceRoot;
    this.transcripts = ws ? (await listTranscripts(ws)).length > 0 : false;
  }

  private notice(level: 'info' | 'error', text: string): void {
    this.channel?.post({ type: 'notice', level, text: text.slice(0, 600) });
  }

  private async onMessage(m: SteeringViewMessage): Promise<void> {
    const ws = this.model.workspaceRoot;
    if (m.type === 'ready') {
      // The view shows only "Loading…" until its snapshot: what fails to read on the way is logged, never in its way.
      await Promise.all([this.checkTranscripts(), this.readWhy(true)]).catch((e: unknown) => this.log.warn(`Steering: ${(e as Error).message}`));
      const notes = ws ? await readNotes(ws).catch(() => '') : '';
      this.channel?.post({ type: 'snapshot', state: this.state(), ...this.stream.snapshot(), notes: notes.slice(0, LIMITS.notes) });
      return;
    }
    if (!ws) return;
    try {
      switch (m.type) {
        case 'approve':
        case 'reject': {
          const ok = await this.cycles.answerPlan(
            m.candidate,
            m.type === 'approve' ? { approved: true } : { approved: false, ...(m.reason ? { reason: m.reason } : {}) },
          );
          if (!ok) this.notice('info', `The plan for ${m.candidate} is no longer waiting for an answer.`);
          this.pushState();
          return;
        }
        case 'editPlan':
          return await this.cycles.editPlan(m.candidate);
        case 'control':
          if (m.action === 'pause') {
            if (!this.cycles.pause()) this.notice('info', 'No cycle is running, or it is already pausing.');
          } else if (m.action === 'stop') this.cycles.stop();
          else if (m.action === 'abandon') await vscode.commands.executeCommand('satlution.abandonCycle');
          else void this.cycles.start(undefined, m.action === 'resume').catch((e: Error) => this.notice('error', e.message));
          return;
        case 'saveNotes': {
          const saved = await writeNotes(ws, m.text);
          this.channel?.post({ type: 'notes', text: saved });
          this.notice('info', saved ? 'Notes saved: the next plan reads them.' : 'Notes cleared.');
          return;
        }
        case 'setApproval': {
          const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === path.join(ws, CONFIG_FILE));
          if (doc?.isDirty) {
            this.notice('error', `${CONFIG_FILE} has unsaved changes in an editor: save them first, then choose the mode again.`);
            this.pushState();
            return;
          }
          await writeApprovalMode(ws, m.mode);
          await this.model.refresh();
          this.notice('info', `approval: ${m.mode} written to ${CONFIG_FILE}${this.cycles.isRunning ? ' (from the next cycle on)' : ''}.`);
          return;
        }
        case 'retryNow':
          if (!this.cycles.retryNow()) this.notice('info', 'No model call is waiting to be retried.');
          return;
        case 'fix':
          return await this.fix(m.action);
        case 'openTranscript':
          await vscode.commands.executeCommand('satlution.openTranscript', { ...(m.cycle ? { cycle: m.cycle } : {}), ...(m.role ? { role: m.role } : {}) });
          return;
      }
    } catch (e) {
      this.log.error(`Steering: ${(e as Error).message}`);
      this.notice('error', (e as Error).message);
      this.pushState();
    }
  }

  /** Runs the action a problem offers (cycleProblem.ts). */
  private async fix(action: FixAction): Promise<void> {
    const command: Record<FixAction, [string, ...unknown[]]> = {
      setApiKey: ['satlution.setApiKey'],
      configureModels: ['satlution.configureModels'],
      openConfig: ['satlution.openConfig'],
      resume: ['satlution.resumeCycle'],
      showLog: ['satlution.showOutput'],
      runTuner: ['satlution.startCycle', { agent: 'tuner' }],
    };
    await vscode.commands.executeCommand(...command[action]);
  }

  override dispose(): void {
    clearTimeout(this.flushTimer);
    this.cycles.setApprovalSurface(undefined);
    super.dispose();
    this.channel?.dispose();
  }
}
