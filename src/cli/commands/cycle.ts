import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { ConfigSchema } from '../../core/config/schema';
import { runCycle } from '../../core/cycle/engine';
import { readCycle } from '../../core/store/cycleState';
import { apiKeyFromEnv } from '../../core/llm/factory';
import { LlmError } from '../../core/llm/types';
import { BudgetExhausted } from '../../core/cycle/budget';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../errors';
import { runnerEnv } from '../runnerEnv';
import { cycleSession, type CycleSession, SessionError } from '../../core/cycle/session';
import { terminalApprover, terminalLogger } from '../terminal';

export const CYCLE_HELP = `satlution cycle [--agent llm|tuner] [--cycles N] [--strategy NAME] [--yes] [--dir D]

--agent tuner (the default when no models are configured) needs no LLM: a (1+1) evolution strategy
over the option defaults in src/options.h (kissat's OPTION lines), one or two mutated per cycle.

Runs evolution cycles (champion/challenger): the planner writes HYPOTHESIS.md, the coder implements it
in a new SATLUTION_<n>/, the gates check it, RESULTS.md records the measurement against the champion,
and a significantly faster correct challenger becomes the champion. Every step is saved: after a crash
or Ctrl-C, run the command again and the cycle resumes where it stopped. With approval semi or manual,
each plan is shown for approval (--yes approves). API keys come from the variable named by
models.<role>.api_key_env (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
--strategy champion-challenger|sift overrides strategy.name of satlution.yaml for this run (sift: several
proposals per cycle, scored by the judge model, only the best evaluated).`;

export async function cycleCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { agent: { type: 'string' }, cycles: { type: 'string', default: '1' }, strategy: { type: 'string' }, yes: { type: 'boolean', default: false }, dir: { type: 'string', default: '.' } }, strict: true });
  const ws = await findWorkspace(values.dir);
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above`);
  const n = Number(values.cycles);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--cycles must be a positive whole number, got "${values.cycles}"`);
  let config = await loadConfig(ws);
  if (values.strategy !== undefined) {
    // Another strategy keeps only the keys every strategy has (the others' settings would not apply).
    const s = config.strategy;
    const over = ConfigSchema.safeParse({ ...config, strategy: values.strategy === s.name ? s : { name: values.strategy, min_improvement_pct: s.min_improvement_pct, alpha: s.alpha } });
    if (!over.success) throw new UsageError(`--strategy ${values.strategy}: ${over.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    config = over.data;
  }
  const log = terminalLogger(false);
  const abort = new AbortController();
  // Without models the offline tuner is the agent (ARCHITECTURE.md, "Agents").
  let session: CycleSession;
  try {
    session = cycleSession({
      ws,
      config,
      ...(values.agent !== undefined ? { agent: values.agent } : {}),
      signal: abort.signal,
      host: { apiKey: (_role, m) => apiKeyFromEnv(m), runnerEnv: runnerEnv(), onRetryWait: (w) => log.warn(`${w.role}: ${w.message}; retrying in ${(w.delayMs / 1000).toFixed(0)} s`) },
    });
  } catch (e) {
    if (e instanceof SessionError) throw new UsageError(`--agent: ${e.message}`);
    throw e;
  }
  const { agentName: _agentName, ...parts } = session;
  const stop = () => abort.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for (let i = 0; i < n; i++) {
      const s = await runCycle({
        ws,
        config,
        ...parts,
        approver: terminalApprover({ yes: values.yes, defaultAnswer: false, hint: 'pass --yes to approve plans, or set approval: auto' }),
        log,
        signal: abort.signal,
        onEvent: (e) => {
          if (e.type === 'step') process.stderr.write(`[cycle ${e.cycle}] ${e.step}${e.candidate ? ` ${e.candidate}` : ''}\n`);
          else if (e.type === 'log') log.info(e.message);
          else if (e.type === 'agent-tool') log.info(`${e.role}: ${e.name} ${e.ok ? 'ok' : 'failed'}${e.summary ? ` — ${e.summary}` : ''}`);
          else if (e.type === 'agent-log') log.info(`${e.role}: ${e.message}`);
        },
      });
      process.stdout.write(`cycle ${s.cycle}: ${s.outcome}\n`);
    }
    return EXIT.ok;
  } catch (e) {
    if (abort.signal.aborted) {
      const s = await readCycle(ws);
      process.stderr.write(`satlution cycle: interrupted at step "${s?.step}" of cycle ${s?.cycle}; run it again to resume\n`);
      return 130;
    }
    if (e instanceof BudgetExhausted) {
      process.stderr.write(`satlution cycle: stopped: ${e.message}\n`);
      return EXIT.ok;
    }
    if (e instanceof LlmError) {
      const s = await readCycle(ws);
      process.stderr.write(`satlution cycle: ${e.message} (cycle ${s?.cycle} stopped at step "${s?.step}"; run again to resume)\n`);
      return EXIT.usage;
    }
    throw e;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
