// What an agent reports while it works (streamed text, tool calls, the tuner's steps); the cycle
// passes these on to its host as part of its own events (cycle/events.ts).

/** Who is speaking: the LLM planner and coder, or the offline tuner. */
export type AgentRole = 'planner' | 'coder' | 'tuner';

/** One thing an agent did, as the host shows it live. */
export type AgentEvent =
  /** A piece of the model's text as it streams. */
  | { type: 'agent-text'; role: AgentRole; delta: string }
  /** A tool call finished; `summary` is the first line of its result. */
  | { type: 'agent-tool'; role: AgentRole; name: string; ok: boolean; summary: string }
  /** A step of an agent that has no model to stream (the tuner), as one line. */
  | { type: 'agent-log'; role: AgentRole; message: string };

/** Where an agent sends its events. */
export type AgentSink = (e: AgentEvent) => void;

/** The first line of a tool result, short enough for one row. */
export function toolSummary(content: string, max = 160): string {
  const line = content.split('\n').find((l) => l.trim()) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
