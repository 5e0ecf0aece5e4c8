// The plan that waits for a person, answerable from wherever it is shown (the Steering view, a modal
// dialog, the CodeLens on HYPOTHESIS.md) — the first answer wins. Nothing is persisted here on purpose:
// the engine saved the step `approve` before asking, so after a reload Resume simply asks again.
// No `vscode` import: unit-testable.
import type { PlanAnswer, PlanApproval } from '../core/ports';

export interface PendingApproval extends PlanApproval {
  /** `dialog` while a modal dialog asks too; `view` when only the Steering view (or CodeLens) does. */
  where: 'view' | 'dialog';
}

export class PlanApprovals {
  private current: { plan: PendingApproval; resolve: (a: PlanAnswer) => void; reject: (e: Error) => void } | undefined;
  private readonly listeners = new Set<(p: PendingApproval | undefined) => void>();

  get pending(): PendingApproval | undefined {
    return this.current?.plan;
  }

  onDidChange(listener: (p: PendingApproval | undefined) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Waits for an answer; an aborted signal (the cycle stopped) withdraws the question. */
  ask(plan: PlanApproval, where: PendingApproval['where'], signal?: AbortSignal): Promise<PlanAnswer> {
    this.cancel(new Error('a newer plan replaced this one'));
    if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('stopped'));
    return new Promise<PlanAnswer>((resolve, reject) => {
      const onAbort = () => this.cancel(signal?.reason instanceof Error ? signal.reason : new Error('stopped'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.current = {
        plan: { ...plan, where },
        resolve: (a) => (done(), resolve(a)),
        reject: (e) => (done(), reject(e)),
      };
      this.fire();
    });
  }

  /** Answers the pending plan if it is this candidate's; false when there is none (a stale button). */
  answer(candidate: string, a: PlanAnswer): boolean {
    const c = this.current;
    if (!c || c.plan.candidate !== candidate) return false;
    this.current = undefined;
    c.resolve(a);
    this.fire();
    return true;
  }

  /** The person edited the plan while it waits: show the new text (and title). */
  revise(candidate: string, patch: Partial<Pick<PlanApproval, 'title' | 'hypothesis'>>): void {
    const c = this.current;
    if (c?.plan.candidate !== candidate) return;
    c.plan = { ...c.plan, ...patch };
    this.fire();
  }

  /** The dialog was dismissed without an answer: the plan keeps waiting in the view. */
  moveToView(candidate: string): void {
    if (this.current?.plan.candidate !== candidate || this.current.plan.where === 'view') return;
    this.current.plan = { ...this.current.plan, where: 'view' };
    this.fire();
  }

  /** Withdraws the question (stop, pause, a newer plan): the waiting engine sees `reason`. */
  cancel(reason: Error): void {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    c.reject(reason);
    this.fire();
  }

  private fire(): void {
    for (const l of [...this.listeners]) l(this.current?.plan);
  }
}
