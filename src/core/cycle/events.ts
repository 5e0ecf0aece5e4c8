// What a running cycle reports to its host (the extension renders it live, the CLI prints it): step
// changes, log lines, a pause, and the agents at work (agents/events.ts).
import type { AgentEvent } from '../agents/events';
import type { Step } from '../store/cycleState';

export type { AgentEvent, AgentRole, AgentSink } from '../agents/events';

/** Everything a cycle tells its host, in order. */
export type CycleEvent =
  | { type: 'step'; cycle: number; step: Step; candidate: string | null; title: string | null }
  | { type: 'log'; message: string }
  /** The cycle stopped at a step boundary on request; `step` is where it resumes. */
  | { type: 'paused'; cycle: number; step: Step; candidate: string | null }
  | AgentEvent;
