// The work in flight in this window (evaluations, cycles), for the Runners view: what runs where, since
// when, and its latest progress message.
import * as vscode from 'vscode';
import { Disposable } from './disposable';

export interface Job {
  id: number;
  label: string;
  runner: string;
  started: Date;
  message: string;
}

export class JobTracker extends Disposable {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;
  private readonly jobs = new Map<number, Job>();
  private next = 1;

  get all(): Job[] {
    return [...this.jobs.values()];
  }

  /** Runs `work` as a job; `report` updates its message (and the runner, as stages move between runners). The job ends with the promise. */
  async track<T>(label: string, runner: string, work: (report: (message: string, runner?: string) => void) => Promise<T>): Promise<T> {
    const job: Job = { id: this.next++, label, runner, started: new Date(), message: 'starting' };
    this.jobs.set(job.id, job);
    this.changed.fire();
    try {
      return await work((message, runner) => {
        job.message = message;
        if (runner) job.runner = runner;
        this.changed.fire();
      });
    } finally {
      this.jobs.delete(job.id);
      this.changed.fire();
    }
  }
}
