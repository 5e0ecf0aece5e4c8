// The LLM evolution agent: the planner and the coder, each with its configured model, metered
// (tokens, USD, budget) and with their transcripts kept under .satlution/transcripts/.
import * as path from 'node:path';
import type { Config, ModelConfig } from '../config/schema';
import type { EvolutionAgent } from './agent';
import type { AgentRole, AgentSink } from './agentEvents';
import { MeteredClient, createClient } from '../llm/factory';
import type { Role } from '../llm/provider';
import { UsageLedger } from '../llm/usage';
import { loadRules, selectRules } from '../rules/loadRules';
import type { Phase } from '../rules/ruleSchema';
import { RULES_DIR } from '../layout';
import { readNotes } from '../workspace/notes';
import { codeMap, consensusSummary, DEFAULT_DIRECTIONS, drawDirection, metricsHistory, recentFailures } from './context';
import { runCoder, type AgentLoopEvent } from './coder';
import { runPlanner } from './planner';
import { transcriptFile } from '../llm/transcript';
import { walkCandidate } from '../workspace/candidateFs';

/** The most of HYPOTHESIS.md the coder's task carries (a plan is far shorter; a person's edit may not be): the rest it can read. */
const TASK_PLAN_MAX_CHARS = 32_000;

/** The plan as the coder's task carries it: cut at TASK_PLAN_MAX_CHARS, saying so. */
const taskPlan = (hypothesis: string) =>
  hypothesis.length <= TASK_PLAN_MAX_CHARS
    ? hypothesis
    : `${hypothesis.slice(0, TASK_PLAN_MAX_CHARS)}\n[... the plan is cut here: ${hypothesis.length - TASK_PLAN_MAX_CHARS} more characters are in HYPOTHESIS.md]`;

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
  const transcript = (cycle: number, role: string) => transcriptFile(o.ws, cycle, role);
  // A loop's events, as the cycle's agent events (and the older onText hook).
  const relay = (role: AgentRole & Role, emit: AgentSink | undefined) => (e: AgentLoopEvent) => {
    if (e.type === 'text') {
      o.onText?.(role, e.delta);
      emit?.({ type: 'agent-text', role, delta: e.delta });
    } else emit?.({ type: 'agent-tool', role, name: e.name, ok: e.ok, summary: e.summary });
  };
  return {
    name: 'llm',
    async plan({ ws, cycle, hint, championDir, candidate, emit }) {
      const notes = await readNotes(ws);
      const r = await runPlanner({
        client: client('planner', cycle),
        championDir,
        // The candidate directories, never the benchmark sets or .satlution/ (agents never see the answers).
        workspace: ws,
        candidate,
        context: {
          rules: await rulesText('planning'),
          codeMap: await codeMap(championDir),
          metrics: [
            await metricsHistory(ws, cycle, o.config.par2_visible_from_cycle),
            cycle >= o.config.par2_visible_from_cycle ? await consensusSummary(ws).catch(() => '') : '',
          ]
            .filter(Boolean)
            .join('\n\n'),
          failures: await recentFailures(ws),
          notes,
          // The search strategy's request (e.g. smc's kernel) comes first; the drawn direction guides it.
          directive: [hint ? `This proposal should be a ${hint}.` : '', drawDirection(o.config.planner.directions ?? DEFAULT_DIRECTIONS, cycle).text]
            .filter(Boolean)
            .join(' '),
        },
        transcriptFile: transcript(cycle, 'planner'),
        ...(o.signal ? { signal: o.signal } : {}),
        onEvent: relay('planner', emit),
      });
      return { title: r.plan.title, hypothesis: r.hypothesis };
    },
    async code({ cycle, candidateDir, hypothesis, host, emit }) {
      // The auto-scoped rules that apply to the candidate's sources (e.g. R04 for C files).
      const sources = (await walkCandidate(candidateDir, { maxEntries: 100_000 }).catch(() => []))
        .filter((e) => e.kind === 'file' && /\.(c|h|cc|cpp|hpp)$/.test(e.rel))
        .map((e) => e.rel);
      const out = await runCoder({
        client: client('coder', cycle),
        host,
        task: `Implement this plan in the candidate directory.\n\n${taskPlan(hypothesis)}`,
        rules: await rulesText('coding', sources),
        transcriptFile: transcript(cycle, 'coder'),
        candidate: path.basename(candidateDir),
        ...(o.signal ? { signal: o.signal } : {}),
        onEvent: relay('coder', emit),
      });
      return { finished: out.finished, detail: out.reason };
    },
  };
}
