// Progress events of a cycle's evaluations and measurements (events.ts ProgressEvent): elapsed time
// and a linear ETA per stage, so a host can draw a bar without knowing how the stage runs.
import type { ProgressEvent } from './events';

/** Emits a ProgressEvent per finished run of one candidate; `start` begins a new stage (gate or measurement). */
export class ProgressTracker {
  private what = '';
  private began = 0;
  private lastDone = 0;

  constructor(
    private readonly emit: (e: ProgressEvent) => void,
    private readonly candidate: string | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new stage of `total` runs starts (its first event says 0 of total). */
  start(what: string, total: number): void {
    this.what = what;
    this.began = this.now();
    this.report(0, total, null);
  }

  /** `done` of `total` runs have finished; `last` names the one that just did. */
  report(done: number, total: number, last: string | null): void {
    this.lastDone = done;
    const elapsedS = (this.now() - this.began) / 1000;
    const etaS = done > 0 && total >= done ? (elapsedS / done) * (total - done) : null;
    this.emit({ type: 'progress', candidate: this.candidate, what: this.what, done, total, last, elapsedS, etaS });
  }

  /** Reports under a stage name, starting it when it is new or counts again from less (a measurement has no separate start). */
  reportIn(what: string, done: number, total: number, last: string | null): void {
    if (what !== this.what || done === 0 || done < this.lastDone) this.start(what, total);
    if (done > 0) this.report(done, total, last);
  }
}
