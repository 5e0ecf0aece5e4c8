// What a running cycle reports to its host (the extension renders it live, the CLI prints it): step
// changes, log lines, a pause, and the agents at work — streamed text, tool calls, the tuner's steps.
import type { Step } from './state';

/** Who is speaking: the LLM planner and coder, or the offline tuner. */
export type AgentRole = 'planner' | 'coder' | 'tuner';

export type AgentEvent =
  /** A piece of the model's text as it streams. */
  | { type: 'agent-text'; role: AgentRole; delta: string }
  /** A tool call finished; `summary` is the first line of its result. */
  | { type: 'agent-tool'; role: AgentRole; name: string; ok: boolean; summary: string }
  /** A step of an agent that has no model to stream (the tuner), as one line. */
  | { type: 'agent-log'; role: AgentRole; message: string };

export type CycleEvent =
  | { type: 'step'; cycle: number; step: Step; candidate: string | null; title: string | null }
  | { type: 'log'; message: string }
  /** The cycle stopped at a step boundary on request; `step` is where it resumes. */
  | { type: 'paused'; cycle: number; step: Step; candidate: string | null }
  | AgentEvent;

export type AgentSink = (e: AgentEvent) => void;

/** The first line of a tool result, short enough for one row. */
export function toolSummary(content: string, max = 160): string {
  const line = content.split('\n').find((l) => l.trim()) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
