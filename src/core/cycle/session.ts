// What a host (the CLI or the editor) needs to run cycles, built once from satlution.yaml: the agent
// (the LLM planner and coder, or the offline tuner), the judge for strategies that screen proposals,
// and the runners' environment. Both hosts call cycleSession, so a config means the same thing in each;
// the host only brings its API keys, its retry notices and where the worker bundle is.
import { randomBytes } from 'node:crypto';
import type { EvolutionAgent } from '../agents/agent';
import { llmAgent } from '../agents/llmAgent';
import { tunerAgent } from '../agents/tuner';
import type { Config, ModelConfig } from '../config/schema';
import type { Role } from '../llm/provider';
import type { RunnerEnv } from '../runners/select';
import type { Judge } from '../strategy/judge';
import { judgeFromConfig } from '../strategy/judgeHost';
import type { CycleRequest } from './engine';

/** The agents a cycle can run with. */
export type AgentName = 'llm' | 'tuner';

/** A retry the LLM client is waiting out; `retryNow` cuts the wait short. */
export interface RetryWait {
  role: Role;
  delayMs: number;
  message: string;
  retryNow: () => void;
}

/** What the host brings: keys, notices, and where the worker bundle is. */
export interface SessionHost {
  apiKey: (role: Role, model: ModelConfig) => string | undefined;
  runnerEnv: RunnerEnv;
  /** A retry of an agent's model call is being waited out. */
  onRetryWait?: (w: RetryWait) => void;
  /** A retry of the judge's model call is being waited out (default: onRetryWait). */
  onJudgeRetryWait?: (w: RetryWait) => void;
}

/** A session's parts, to spread into runCycle's request. */
export type CycleSession = Pick<CycleRequest, 'agent' | 'runnerEnv'> & { judge?: Judge; agentName: AgentName };

/** A request the config cannot serve (an unknown agent, no models for the LLM agent). */
export class SessionError extends Error {
  override name = 'SessionError';
}

/** The agent a config runs with when none is asked for: the LLM agent once models are configured, else the tuner. */
export const defaultAgent = (config: Config): AgentName => (config.models.planner || config.models.coder ? 'llm' : 'tuner');

/** Builds the agent, the judge and the runners' environment of a config for one host. */
export function cycleSession(o: { ws: string; config: Config; agent?: string; host: SessionHost; signal?: AbortSignal }): CycleSession {
  const name = o.agent ?? defaultAgent(o.config);
  if (name !== 'llm' && name !== 'tuner') throw new SessionError(`the agent must be llm or tuner, got "${name}"`);
  if (name === 'llm' && !o.config.models.planner && !o.config.models.coder)
    throw new SessionError('no models configured: set models.planner and models.coder in satlution.yaml, or run the offline tuner agent');
  // One id per session: the usage ledger and the transcripts group a session's calls by it.
  const runId = randomBytes(4).toString('hex');
  const { apiKey, onRetryWait } = o.host;
  const agent: EvolutionAgent =
    name === 'tuner'
      ? tunerAgent()
      : llmAgent({ ws: o.ws, config: o.config, apiKey, runId, ...(o.signal ? { signal: o.signal } : {}), ...(onRetryWait ? { onRetryWait } : {}) });
  const onJudgeWait = o.host.onJudgeRetryWait ?? onRetryWait;
  const judge = judgeFromConfig({ ws: o.ws, config: o.config, apiKey, runId, ...(onJudgeWait ? { onRetryWait: onJudgeWait } : {}) });
  return { agentName: name, agent, runnerEnv: o.host.runnerEnv, ...(judge ? { judge } : {}) };
}
