// What a running cycle reports to its host (the extension renders it live, the CLI prints it): step
// changes, log lines, a pause, and the agents at work (agents/agentEvents.ts).
import type { AgentEvent } from '../agents/agentEvents';
import type { Step } from '../store/cycleState';

export type { AgentEvent, AgentRole, AgentSink } from '../agents/agentEvents';

/** Everything a cycle tells its host, in order. */
export type CycleEvent =
  | { type: 'step'; cycle: number; step: Step; candidate: string | null; title: string | null }
  | { type: 'log'; message: string }
  /** The cycle stopped at a step boundary on request; `step` is where it resumes. */
  | { type: 'paused'; cycle: number; step: Step; candidate: string | null }
  | ProgressEvent
  | AgentEvent;

/**
 * Where an evaluation or a side-by-side measurement stands: the host shows it as a progress bar (the
 * transcript gets only the quarter marks). `what` names the gate (`perf`) or the measurement (`side by side`).
 */
export interface ProgressEvent {
  type: 'progress';
  candidate: string | null;
  what: string;
  done: number;
  total: number;
  /** The instance that just finished, with its status when it was not solved. */
  last: string | null;
  elapsedS: number;
  /** Linear estimate from the runs so far; null before the first. */
  etaS: number | null;
}
