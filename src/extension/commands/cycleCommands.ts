// "SATLUTION: Start / Pause / Stop / Resume Evolution Cycle": the core's cycle engine with a cancellable
// progress notification, events in the output channel, and API keys from SecretStorage (falling back to
// the environment). The plan is approved in the Steering view when it is visible, else in a modal
// dialog. The Steering view observes the controller through its state and event emitters.
import * as vscode from 'vscode';
import { extensionRunnerEnv } from '../extensionRunnerEnv';
import { cycleSession, SessionError, type RetryWait } from '../../core/cycle/session';
import type { Config } from '../../core/config/schema';
import type { Problem } from '../../shared/steeringProtocol';
import { cycleProblem } from '../cycleProblem';
import { BudgetExhausted } from '../../core/cycle/budget';
import * as path from 'node:path';
import { z } from 'zod';
import { loadConfig } from '../../core/config/load';
import { CycleBusyError, hypothesisTitle, runCycle, type CycleEvent } from '../../core/cycle/engine';
import { PauseSignal } from '../../core/cycle/pause';
import { readCycle, type CycleState } from '../../core/store/cycleState';
import { apiKeyFromEnv } from '../../core/llm/factory';
import { approveAll, type Approver, type Logger, type PlanAnswer, type PlanApproval } from '../../core/ports';
import { candidateDirName } from '../../core/layout';
import { candidateDocProblem, readCandidateDoc } from '../../core/workspace/candidateFs';
import { modalApprover } from '../approver';
import { secretKey } from './apiKey';
import { PlanApprovals } from '../planApprovals';
import { progressText, type RunView } from '../webviews/steeringModel';
import type { WorkspaceModel } from '../workspaceModel';

/** How long after Stop a cycle that has not ended is reported. */
const STOP_NOTICE_MS = 10_000;

const Args = z.object({ agent: z.enum(['llm', 'tuner']).optional(), yes: z.boolean().optional() }).strict();

/** Where a plan can be approved besides a modal dialog (the Steering view). */
export interface ApprovalSurface {
  readonly visible: boolean;
  reveal(): Thenable<unknown>;
}

export class CycleController implements vscode.Disposable {
  private running: { abort: AbortController; pause: PauseSignal; view: RunView; retryNow?: () => void } | undefined;
  /** Why the last run ended with an error, until the next starts. */
  private lastProblem: Problem | undefined;
  private progressTimer: NodeJS.Timeout | undefined;
  /** Set from the first await of start() on, so two quick Starts cannot run two cycles. */
  private starting = false;
  private savedState: CycleState | undefined;
  private surface: ApprovalSurface | undefined;
  private readonly stateChanged = new vscode.EventEmitter<void>();
  private readonly events = new vscode.EventEmitter<CycleEvent>();
  /** The plan waiting for a person, answerable from the view, the dialog or the CodeLens. */
  readonly approvals = new PlanApprovals();
  /** The run, the saved cycle or the pending plan changed. */
  readonly onDidChangeState = this.stateChanged.event;
  /** Every event of the running cycle, agents' streamed text included. */
  readonly onDidEvent = this.events.event;
  private readonly subs: vscode.Disposable[];

  constructor(
    private readonly model: WorkspaceModel,
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Logger,
  ) {
    this.subs = [
      this.stateChanged,
      this.events,
      this.approvals.onDidChange((p) => {
        void vscode.commands.executeCommand('setContext', 'satlution.awaitingApproval', p !== undefined);
        this.stateChanged.fire();
      }),
      model.onDidChange(() => void this.readSaved()),
    ];
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** The running cycle as the Steering view shows it. */
  get run(): RunView | undefined {
    return this.running && { ...this.running.view };
  }

  /** Why the last run stopped with an error (Steering shows it with its fixes). */
  get problem(): Problem | undefined {
    return this.lastProblem;
  }

  /** Cuts the wait of a retried model call short; false when none is waiting. */
  retryNow(): boolean {
    const r = this.running;
    if (!r?.retryNow) return false;
    r.retryNow();
    return true;
  }

  /** .satlution/cycle.json as last read: an interrupted cycle when nothing runs and its step is not `done`. */
  get saved(): CycleState | undefined {
    return this.savedState;
  }

  /** Lets the Steering view take plan approvals while it is visible. */
  setApprovalSurface(surface: ApprovalSurface | undefined): void {
    this.surface = surface;
  }

  async start(raw: unknown, resumeOnly = false): Promise<string | undefined> {
    const ws = this.model.workspaceRoot;
    if (!ws) {
      void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
      return undefined;
    }
    if (this.running || this.starting) {
      void vscode.window.showInformationMessage('SATLUTION: a cycle is already running (SATLUTION: Stop Evolution Cycle stops it).');
      return undefined;
    }
    this.starting = true;
    this.lastProblem = undefined;
    this.stateChanged.fire();
    try {
      return await this.execute(ws, raw, resumeOnly);
    } finally {
      this.starting = false;
    }
  }

  private async execute(ws: string, raw: unknown, resumeOnly: boolean): Promise<string | undefined> {
    const args = Args.safeParse(raw ?? {}).data ?? {};
    const state = await readCycle(ws);
    if (resumeOnly && (!state || state.step === 'done')) {
      void vscode.window.showInformationMessage('SATLUTION: there is no interrupted cycle to resume.');
      return undefined;
    }
    let config: Config;
    try {
      config = await loadConfig(ws);
    } catch (e) {
      this.fail(e, state !== undefined && state.step !== 'done');
      void vscode.window
        .showErrorMessage(`SATLUTION: ${(e as Error).message.split('\n')[0]}`, 'Open satlution.yaml')
        .then((a) => a && vscode.commands.executeCommand('satlution.openConfig'));
      return undefined;
    }
    const keys = new Map<string, string | undefined>();
    for (const m of [config.models.planner, config.models.coder, config.models.judge])
      if (m) keys.set(m.provider, (await this.secrets.get(secretKey(m.provider))) ?? apiKeyFromEnv(m));
    const abort = new AbortController();
    let built: ReturnType<typeof cycleSession>;
    try {
      built = cycleSession({
        ws,
        config,
        ...(args.agent ? { agent: args.agent } : {}),
        signal: abort.signal,
        host: {
          apiKey: (_r, m) => keys.get(m.provider),
          runnerEnv: extensionRunnerEnv(),
          // One place for a wait: the cycle's progress notification says it, Steering offers Retry Now.
          onRetryWait: (w) => this.retryWait(w),
          onJudgeRetryWait: (w) => this.log.warn(`${w.role}: ${w.message}; retrying in ${(w.delayMs / 1000).toFixed(0)} s`),
        },
      });
    } catch (e) {
      if (!(e instanceof SessionError)) throw e;
      this.fail(e, false);
      void vscode.window.showErrorMessage(`SATLUTION: ${e.message}`);
      return undefined;
    }
    const { agentName, ...session } = built;
    const pause = new PauseSignal();
    const resuming = state !== undefined && state.step !== 'done';
    const view: RunView = {
      agent: agentName,
      cycle: resuming ? state.cycle : null,
      step: null,
      candidate: null,
      title: null,
      pausing: false,
      progress: null,
      retry: null,
    };
    this.running = { abort, pause, view };
    await this.setContext(true, false);
    this.stateChanged.fire();
    try {
      const s = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `SATLUTION: ${resuming ? `resuming cycle ${state.cycle}` : 'evolution cycle'} (${agentName})`,
          cancellable: true,
        },
        async (progress, token) => {
          const sub = token.onCancellationRequested(() => this.stop());
          this.report = (message) => progress.report({ message });
          try {
            return await runCycle({
              ws,
              config,
              ...session,
              approver: args.yes ? approveAll : this.planApprover(abort.signal),
              log: this.log,
              signal: abort.signal,
              pause,
              onEvent: (e) => {
                this.onEvent(e, view);
                if (e.type === 'progress') return this.reportSoon();
                if (e.type !== 'step') return;
                progress.report({ message: `cycle ${e.cycle}: ${e.step}${e.candidate ? ` ${e.candidate}` : ''}` });
                void this.model.refresh();
              },
            });
          } finally {
            sub.dispose();
            this.report = undefined;
          }
        },
      );
      await this.model.refresh();
      if (s.step !== 'done') {
        const resume = 'Resume';
        void vscode.window
          .showInformationMessage(`SATLUTION: cycle ${s.cycle} paused before "${s.step}" (SATLUTION: Resume Evolution Cycle continues it).`, resume)
          .then((a) => a === resume && vscode.commands.executeCommand('satlution.resumeCycle'));
        return undefined;
      }
      void vscode.commands.executeCommand('setContext', 'satlution.cycleCompleted', true);
      const open = 'Open RESULTS.md';
      void vscode.window.showInformationMessage(`SATLUTION: cycle ${s.cycle}: ${s.outcome}`, ...(s.candidate !== null ? [open] : [])).then(async (a) => {
        if (a !== open || s.candidate === null) return;
        const dir = path.join(ws, candidateDirName(s.candidate));
        // A candidate may leave a link (to anything) under its RESULTS.md: never opened.
        const problem = await candidateDocProblem(dir, 'RESULTS.md');
        if (problem) void vscode.window.showWarningMessage(`SATLUTION: ${problem}.`);
        else await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, 'RESULTS.md')));
      });
      return s.outcome ?? undefined;
    } catch (e) {
      if (e instanceof CycleBusyError) {
        void vscode.window.showWarningMessage(`SATLUTION: ${e.message}.`);
        return undefined;
      }
      if (e instanceof BudgetExhausted) {
        void vscode.window.showInformationMessage(`SATLUTION: no new cycle: ${e.message}.`);
        return undefined;
      }
      const now = await readCycle(ws);
      const where = now ? ` (cycle ${now.cycle} stopped at "${now.step}"; SATLUTION: Resume Evolution Cycle continues it)` : '';
      if (abort.signal.aborted) void vscode.window.showInformationMessage(`SATLUTION: cycle stopped${where}.`);
      else {
        this.log.error(`Cycle failed: ${(e as Error).message}`);
        this.fail(e, now !== undefined && now.step !== 'done');
        const show = 'Show in Steering';
        void vscode.window
          .showErrorMessage(`SATLUTION: ${(e as Error).message}${where}`, show)
          .then((a) => a && vscode.commands.executeCommand('satlution.steering.focus'));
      }
      return undefined;
    } finally {
      clearTimeout(this.progressTimer);
      this.progressTimer = undefined;
      this.approvals.cancel(new Error('the cycle ended'));
      this.running = undefined;
      await this.readSaved(false);
      await this.setContext(false, this.savedState !== undefined && this.savedState.step !== 'done');
      this.stateChanged.fire();
      await this.model.refresh();
    }
  }

  /** Asks the running cycle to stop when its current step ends (a waiting plan is withdrawn at once). */
  pause(): boolean {
    const r = this.running;
    if (!r || r.pause.requested) return false;
    r.pause.request();
    r.view.pausing = true;
    this.log.info('Pause requested: the cycle stops when its current step ends.');
    // The engine is waiting for a person: no step to finish, so it pauses now and asks again on resume.
    if (this.approvals.pending) this.approvals.cancel(new Error('paused'));
    this.stateChanged.fire();
    return true;
  }

  stop(): void {
    const r = this.running;
    if (!r || r.abort.signal.aborted) return;
    r.abort.abort(new Error('stopped'));
    // Every step hears the stop within seconds (agents' tools included); one that does not is said, not waited out in silence.
    setTimeout(() => {
      if (this.running !== r) return;
      this.log.warn(`The cycle has not stopped ${STOP_NOTICE_MS / 1000} s after Stop; it ends when the step in progress answers.`);
      void vscode.window.showWarningMessage(
        `SATLUTION: the cycle has not stopped after ${STOP_NOTICE_MS / 1000} s; it ends when the step in progress answers (Developer: Reload Window ends it now, and Resume continues from the saved step).`,
      );
    }, STOP_NOTICE_MS).unref();
  }

  /** Answers the waiting plan; an open, edited HYPOTHESIS.md is saved first (the coder reads the file). */
  async answerPlan(candidate: string, answer: PlanAnswer): Promise<boolean> {
    const ws = this.model.workspaceRoot;
    if (!ws || this.approvals.pending?.candidate !== candidate) return false;
    if (answer.approved) {
      const file = vscode.Uri.file(path.join(ws, candidate, 'HYPOTHESIS.md'));
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === file.toString());
      if (doc?.isDirty && !(await doc.save())) {
        void vscode.window.showWarningMessage(`SATLUTION: ${candidate}/HYPOTHESIS.md has unsaved changes that could not be saved; the plan still waits.`);
        return false;
      }
    }
    const ok = this.approvals.answer(candidate, answer);
    if (ok) this.log.info(`Plan for ${candidate} ${answer.approved ? 'approved' : `rejected${answer.reason ? `: ${answer.reason}` : ''}`}`);
    return ok;
  }

  /** Opens the waiting plan's HYPOTHESIS.md; the person saves it and approves (the coder reads the file). */
  async editPlan(candidate: string): Promise<void> {
    const ws = this.model.workspaceRoot;
    if (!ws) return;
    await vscode.window.showTextDocument(vscode.Uri.file(path.join(ws, candidate, 'HYPOTHESIS.md')), { preview: false });
  }

  /** Re-reads a waiting plan from disk (after the person saved an edit). */
  async reloadPendingPlan(): Promise<void> {
    const p = this.approvals.pending;
    const ws = this.model.workspaceRoot;
    if (!p || !ws) return;
    const text = await readCandidateDoc(path.join(ws, p.candidate), 'HYPOTHESIS.md').catch(() => undefined);
    if (text !== undefined && text !== p.hypothesis)
      this.approvals.revise(p.candidate, { hypothesis: text, title: hypothesisTitle(text, p.candidate) ?? p.title });
  }

  private planApprover(signal: AbortSignal): Approver {
    return {
      confirm: (q, d, y) => modalApprover.confirm(q, d, y),
      plan: async (p) => {
        const surface = this.surface;
        if (surface?.visible) return this.approvals.ask(p, 'view', signal);
        // The view is hidden: a dialog asks, and the view (revealed) holds the plan if it is dismissed.
        const answer = this.approvals.ask(p, 'dialog', signal);
        void surface?.reveal();
        void this.askInDialog(p);
        return answer;
      },
    };
  }

  private async askInDialog(p: PlanApproval): Promise<void> {
    const [approve, edit, reject] = ['Approve Plan', 'Edit Plan…', 'Reject Plan'];
    const a = await vscode.window.showInformationMessage(
      `Approve the plan for ${p.candidate}: ${p.title}?`,
      { modal: true, detail: p.hypothesis },
      approve,
      edit,
      reject,
    );
    if (this.approvals.pending?.candidate !== p.candidate) return; // answered elsewhere, or withdrawn
    if (a === approve || a === reject) await this.answerPlan(p.candidate, { approved: a === approve });
    else {
      this.approvals.moveToView(p.candidate);
      if (a === edit) await this.editPlan(p.candidate);
    }
  }

  private onEvent(e: CycleEvent, view: RunView): void {
    if (e.type === 'progress') {
      view.progress = {
        what: e.what.slice(0, 64),
        candidate: e.candidate && /^SATLUTION_\d{1,9}$/.test(e.candidate) ? e.candidate : null,
        done: e.done,
        total: e.total,
        last: e.last?.slice(0, 300) ?? null,
        elapsedS: Math.max(0, e.elapsedS),
        etaS: e.etaS === null ? null : Math.max(0, e.etaS),
      };
      view.retry = null;
    } else if (e.type === 'step') {
      // A new step: what the last one measured is over.
      view.progress = null;
      view.retry = null;
      Object.assign(view, { cycle: e.cycle, step: e.step, candidate: e.candidate, title: e.title });
      this.log.info(`[cycle ${e.cycle}] ${e.step}${e.candidate ? ` ${e.candidate}` : ''}`);
      this.stateChanged.fire();
    } else if (e.type === 'log') this.log.info(e.message);
    else if (e.type === 'agent-tool') this.log.info(`${e.role}: ${e.name} ${e.ok ? 'ok' : 'failed'}${e.summary ? ` — ${e.summary}` : ''}`);
    else if (e.type === 'agent-log') this.log.info(`${e.role}: ${e.message}`);
    this.events.fire(e);
  }

  /** The running cycle's progress notification, while it is open. */
  private report: ((message: string) => void) | undefined;

  /** Progress arrives per finished run: the notification and the view follow at most four times a second. */
  private reportSoon(): void {
    this.progressTimer ??= setTimeout(() => {
      this.progressTimer = undefined;
      const p = this.running?.view.progress;
      if (p) this.report?.(progressText(p));
      this.stateChanged.fire();
    }, 250);
  }

  /** A model call is waiting out its retry delay: said in the one progress notification and in Steering. */
  private retryWait(w: RetryWait): void {
    const seconds = Math.round(w.delayMs / 1000);
    this.log.warn(`${w.role}: ${w.message}; retrying in ${seconds} s`);
    const r = this.running;
    if (!r) return;
    r.view.retry = { role: w.role, message: w.message.slice(0, 300), seconds };
    r.retryNow = () => {
      r.retryNow = undefined;
      r.view.retry = null;
      w.retryNow();
      this.stateChanged.fire();
    };
    this.report?.(`${w.role}: ${w.message}; retrying in ${seconds} s (Retry Now in the Steering view)`);
    this.stateChanged.fire();
  }

  /** Records why the run failed, for Steering. */
  private fail(e: unknown, resumable: boolean): void {
    this.lastProblem = cycleProblem(e, resumable);
    this.stateChanged.fire();
  }

  private async readSaved(fire = true): Promise<void> {
    const ws = this.model.workspaceRoot;
    const next = ws ? await readCycle(ws) : undefined;
    const changed = JSON.stringify(next) !== JSON.stringify(this.savedState);
    this.savedState = next;
    if (!this.running) await this.setContext(false, next !== undefined && next.step !== 'done');
    if (changed && fire) this.stateChanged.fire();
  }

  private async setContext(running: boolean, paused: boolean): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'satlution.cycleRunning', running);
    await vscode.commands.executeCommand('setContext', 'satlution.cyclePaused', paused);
  }

  dispose(): void {
    this.stop();
    for (const s of this.subs) s.dispose();
  }
}
