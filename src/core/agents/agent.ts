// The seam between the cycle and whatever proposes and implements a change: the LLM planner and coder
// (llmAgent.ts) or the offline tuner (tuner.ts). The cycle engine calls it; it never calls the engine.
import type { AgentSink } from './agentEvents';
import type { ToolHost } from './coderTools';

/** What proposes and implements a change: the LLM planner and coder, or the offline tuner. */
export interface EvolutionAgent {
  readonly name: string;
  /**
   * Writes the plan. `emit` reports the agent at work to the host; `proposal` counts the cycle's
   * proposals from 0 (strategies that make several ask again, for a different one); `hint` is what the
   * strategy asks for (smc's kernel: "diff" for a local change, "rewrite" for a subsystem).
   */
  plan(ctx: {
    ws: string;
    cycle: number;
    proposal?: number;
    hint?: string;
    championDir: string;
    candidate: string;
    emit?: AgentSink;
  }): Promise<{ title: string; hypothesis: string }>;
  /** Implements the plan; `hypothesis` is HYPOTHESIS.md as it is on disk now (the person may have edited it before approving). */
  code(ctx: {
    ws: string;
    cycle: number;
    candidateDir: string;
    hypothesis: string;
    host: ToolHost;
    emit?: AgentSink;
  }): Promise<{ finished: boolean; detail: string }>;
}
