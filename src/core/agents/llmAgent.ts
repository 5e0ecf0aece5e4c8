// The LLM evolution agent: the planner and the coder, each with its configured model, metered
// (tokens, USD, budget) and with their transcripts kept under .satlution/transcripts/.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Config, ModelConfig } from '../config/schema';
import type { EvolutionAgent } from '../cycle/engine';
import { MeteredClient, createClient } from '../llm/factory';
import type { Role } from '../llm/types';
import { UsageLedger } from '../llm/usage';
import { loadRules, selectRules } from '../rules/load';
import type { Phase } from '../rules/schema';
import { RULES_DIR, STATE_DIR } from '../workspace/layout';
import { codeMap, DEFAULT_DIRECTIONS, drawDirection, metricsHistory, recentFailures } from './context';
import { runCoder } from './coder';
import { runPlanner } from './planner';

export interface LlmAgentOptions {
  ws: string;
  config: Config;
  /** API key per role (the extension's SecretStorage or the environment). */
  apiKey: (role: Role, model: ModelConfig) => string | undefined;
  runId: string;
  signal?: AbortSignal;
  onText?: (role: Role, delta: string) => void;
  /** A provider call failed and will be retried; `retryNow` skips the wait. */
  onRetryWait?: (w: { role: Role; delayMs: number; message: string; retryNow: () => void }) => void;
}

export function llmAgent(o: LlmAgentOptions): EvolutionAgent {
  const ledger = UsageLedger.forWorkspace(o.ws, o.config.budgets.usd);
  const client = (role: Role, cycle: number) => {
    const m = o.config.models[role] ?? o.config.models.coder ?? o.config.models.planner;
    if (!m) throw new Error(`no model configured for the ${role} (models.${role} in satlution.yaml)`);
    return new MeteredClient(createClient(m, o.apiKey(role, m)), {
      role,
      run: o.runId,
      cycle,
      config: m,
      ledger,
      retry: { onWait: (w) => o.onRetryWait?.({ role, delayMs: w.delayMs, message: w.error.message, retryNow: w.retryNow }) },
    });
  };
  const rulesText = async (phase: Phase, files: string[] = []) =>
    selectRules(await loadRules(path.join(o.ws, RULES_DIR)), phase, files)
      .map((r) => `## ${r.id} (v${r.version}): ${r.title}\n${r.body}`)
      .join('\n\n');
  const transcript = (cycle: number, role: string) => path.join(o.ws, STATE_DIR, 'transcripts', `cycle-${cycle}-${role}.jsonl`);
  return {
    name: 'llm',
    async plan({ ws, cycle, championDir, candidate }) {
      const notes = await fs.readFile(path.join(ws, STATE_DIR, 'notes.md'), 'utf8').catch(() => '');
      const r = await runPlanner({
        client: client('planner', cycle),
        championDir,
        readRoot: ws,
        candidate,
        context: {
          rules: await rulesText('planning'),
          codeMap: await codeMap(championDir),
          metrics: await metricsHistory(ws, cycle, o.config.par2_visible_from_cycle),
          failures: await recentFailures(ws),
          notes,
          directive: drawDirection(o.config.planner.directions ?? DEFAULT_DIRECTIONS, cycle).text,
        },
        transcriptFile: transcript(cycle, 'planner'),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      return { title: r.plan.title, hypothesis: r.hypothesis };
    },
    async code({ cycle, candidateDir, hypothesis, host }) {
      // The auto-scoped rules that apply to the candidate's sources (e.g. R04 for C files).
      const sources = (await fs.readdir(candidateDir, { recursive: true })).map(String).filter((f) => /\.(c|h|cc|cpp|hpp)$/.test(f));
      const out = await runCoder({
        client: client('coder', cycle),
        host,
        task: `Implement this plan in the candidate directory.\n\n${hypothesis}`,
        rules: await rulesText('coding', sources),
        transcriptFile: transcript(cycle, 'coder'),
        ...(o.signal ? { signal: o.signal } : {}),
        onEvent: (e) => e.type === 'text' && o.onText?.('coder', e.delta),
      });
      return { finished: out.finished, detail: out.reason };
    },
  };
}
