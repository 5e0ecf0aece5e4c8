import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { ConfigSchema } from '../../core/config/schema';
import { runCycle } from '../../core/cycle/engine';
import { readCycle } from '../../core/store/cycleState';
import { apiKeyFromEnv } from '../../core/llm/factory';
import { LlmError } from '../../core/llm/provider';
import { BudgetExhausted } from '../../core/cycle/budget';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EvalStore } from '../../core/eval/evalStore';
import { candidateDirName } from '../../core/layout';
import { CandidateStore } from '../../core/store/candidates';
import { EXIT, UsageError } from '../exit';
import { runnerEnv } from '../runnerEnv';
import { cycleSession, type CycleSession, SessionError } from '../../core/cycle/session';
import { terminalApprover, terminalLogger } from '../terminal';
import { cancelOnSignals, EXIT_INTERRUPTED } from '../interrupt';

export const CYCLE_HELP = `satlution cycle [--agent llm|tuner] [--cycles N] [--minutes M] [--strategy NAME] [--yes] [--dir D]

--agent tuner (the default when no models are configured) needs no LLM: a (1+lambda) evolution
strategy over the option defaults in src/options.h (kissat's OPTION lines), one or two mutated per
proposal (strategy.lambda proposals per cycle under champion-challenger).
--minutes M: run cycles (up to --cycles, if given) while time is left: a new cycle starts only while at
least half of the average cycle so far is left (the cycle in progress always finishes). After each cycle a line gives the champion, its
PAR-2 on the perf set and the time left.

Runs evolution cycles (champion/challenger): the planner writes HYPOTHESIS.md, the coder implements it
in a new SATLUTION_<n>/, the gates check it, RESULTS.md records the measurement against the champion,
and a significantly faster correct challenger becomes the champion. Every step is saved: after a crash
or Ctrl-C (or SIGTERM), run the command again and the cycle resumes where it stopped. A stop ends the
step in progress within seconds (exit code 130); a second Ctrl-C ends the process at once. With approval semi or manual,
each plan is shown for approval (--yes approves). API keys come from the variable named by
models.<role>.api_key_env (default OPENAI_API_KEY / ANTHROPIC_API_KEY).
--strategy champion-challenger|sift overrides strategy.name of satlution.yaml for this run (sift: several
proposals per cycle, scored by the judge model, only the best evaluated).`;

export async function cycleCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      agent: { type: 'string' },
      cycles: { type: 'string' },
      minutes: { type: 'string' },
      strategy: { type: 'string' },
      yes: { type: 'boolean', default: false },
      dir: { type: 'string', default: '.' },
    },
    strict: true,
  });
  const ws = await findWorkspace(values.dir);
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above`);
  const n = values.cycles === undefined ? (values.minutes === undefined ? 1 : Infinity) : Number(values.cycles);
  if (values.cycles !== undefined && (!Number.isInteger(n) || n < 1)) throw new UsageError(`--cycles must be a positive whole number, got "${values.cycles}"`);
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
  if (minutes !== undefined && !(minutes > 0)) throw new UsageError(`--minutes must be a positive number, got "${values.minutes}"`);
  let config = await loadConfig(ws);
  if (values.strategy !== undefined) {
    // Another strategy keeps only the keys every strategy has (the others' settings would not apply).
    const s = config.strategy;
    const over = ConfigSchema.safeParse({
      ...config,
      strategy: values.strategy === s.name ? s : { name: values.strategy, min_improvement_pct: s.min_improvement_pct, alpha: s.alpha },
    });
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
      host: {
        apiKey: (_role, m) => apiKeyFromEnv(m),
        runnerEnv: runnerEnv(),
        onRetryWait: (w) => log.warn(`${w.role}: ${w.message}; retrying in ${(w.delayMs / 1000).toFixed(0)} s`),
      },
    });
  } catch (e) {
    if (e instanceof SessionError) throw new UsageError(`--agent: ${e.message}`);
    throw e;
  }
  const { agentName: _agentName, ...parts } = session;
  // Every step hears the stop (the agents' model calls and tools, builds, runs); what does not answer within seconds is cut short.
  const stopListening = cancelOnSignals(abort, { command: 'cycle' });
  try {
    const t0 = Date.now();
    const took: number[] = [];
    const typical = () => took.reduce((a, b) => a + b, 0) / Math.max(1, took.length);
    for (let i = 0; i < n; i++) {
      // A stop between cycles starts no new one.
      abort.signal.throwIfAborted();
      const started = Date.now();
      // Half a typical cycle left is enough to start: the cycle in progress always finishes, so a budget
      // overshoots by at most about half a cycle, and is not left half unused either.
      if (minutes !== undefined && i > 0 && started - t0 + typical() / 2 > minutes * 60000) {
        process.stdout.write(
          `time budget: ${fmtMinutes(Math.max(0, minutes * 60000 - (started - t0)))} left of ${minutes} min, less than half of what a cycle takes on average so far (${fmtMinutes(typical())}): no new cycle\n`,
        );
        break;
      }
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
      took.push(Date.now() - started);
      if (minutes !== undefined) process.stdout.write(`${await championLine(ws)}; ${fmtMinutes(Math.max(0, minutes * 60000 - (Date.now() - t0)))} left\n`);
    }
    return EXIT.ok;
  } catch (e) {
    if (abort.signal.aborted) {
      const s = await readCycle(ws);
      process.stderr.write(`satlution cycle: interrupted at step "${s?.step}" of cycle ${s?.cycle}; run it again to resume\n`);
      return EXIT_INTERRUPTED;
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
    stopListening();
  }
}

/** m:ss */
const fmtMinutes = (ms: number): string => `${Math.floor(ms / 60000)}:${String(Math.floor((ms % 60000) / 1000)).padStart(2, '0')}`;

/** "champion SATLUTION_3, PAR-2 4.21 s on the perf set (SATLUTION_0: 9.80 s)" from the stored evaluations. */
async function championLine(ws: string): Promise<string> {
  const index = (await new CandidateStore(ws).load()).index;
  const champion = index.champion ?? 0;
  const store = new EvalStore(ws);
  const par2 = async (id: number) => (await store.get(id, () => {}))?.metrics?.par2;
  const [c, seed] = [await par2(champion), await par2(0)];
  const f = (x: number | undefined) => (x === undefined ? '-' : `${x.toFixed(2)} s`);
  return `champion ${candidateDirName(champion)}, PAR-2 ${f(c)} on the perf set${champion !== 0 ? ` (${candidateDirName(0)}: ${f(seed)})` : ''}`;
}
