// The judge as a host wires it: from satlution.yaml's models (models.judge, else the planner's),
// metered and transcribed like the agents, for the strategies that screen with a judge.
import type { Config, ModelConfig } from '../config/schema';
import { createClient, MeteredClient } from '../llm/factory';
import { transcriptFile } from '../llm/transcript';
import type { Role } from '../llm/provider';
import { UsageLedger } from '../llm/usage';
import { llmJudge, type Judge } from './judge';
import { strategyFor } from './registry';

/** What the host gives judgeFromConfig: the workspace, its config, API keys and retry notices. */
export interface JudgeHostOptions {
  ws: string;
  config: Config;
  apiKey: (role: Role, model: ModelConfig) => string | undefined;
  runId: string;
  onRetryWait?: (w: { role: Role; delayMs: number; message: string; retryNow: () => void }) => void;
}

/** The judge of satlution.yaml (models.judge, else the planner's model), metered like the agents; undefined when the strategy needs none. */
export function judgeFromConfig(o: JudgeHostOptions): Judge | undefined {
  if (!strategyFor(o.config).needsJudge) return undefined;
  const m = o.config.models.judge ?? o.config.models.planner;
  if (!m) return undefined; // the config check already says so; the engine repeats it at the judge step
  const ledger = UsageLedger.forWorkspace(o.ws, o.config.budgets.usd);
  return llmJudge(
    (cycle) =>
      new MeteredClient(createClient(m, o.apiKey('judge', m)), {
        role: 'judge',
        run: o.runId,
        cycle,
        config: m,
        ledger,
        retry: { onWait: (w) => o.onRetryWait?.({ role: 'judge', delayMs: w.delayMs, message: w.error.message, retryNow: w.retryNow }) },
      }),
    { transcriptFile: (cycle) => transcriptFile(o.ws, cycle, 'judge') },
  );
}
