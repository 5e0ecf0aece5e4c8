// The one entry for measuring on the perf stage outside an evaluation (ARCHITECTURE.md, "The path of a
// cycle", decide): the side-by-side sessions (the race, the held-out check, `compare --measure`, the
// noise calibration) and the promotion audit plan the perf stage here, once, through the same
// plannedStages as evaluateSolver (the set checked, the runner resolved, the sandbox probed), and run,
// audit and proof-check through what it returns.
import type { Config } from '../config/schema';
import { listSet, type InstanceSpec } from '../instances/instances';
import type { InstanceResult } from '../run/result';
import { stageRunners, type RunnerEnv } from '../runners/select';
import { auditOn, type AuditOutcome, type AuditRandom } from './audit';
import { auditStage, proofContext, runStage, type StagePlan } from './gates';
import { gateContext, type PlanOverrides } from './plan';
import { releaseProofs, type KeptProofContext } from './proofChecks';
import { EvaluationSetupError, plannedStages } from './service';

/** Where and how to measure: the perf stage of `config`, with a held-out set or other limits instead of its own. */
export interface PerfSessionRequest {
  ws: string | undefined;
  config: Config;
  overrides?: Pick<PlanOverrides, 'bench' | 'runner' | 'jobs' | 'timeoutS'>;
  runnerEnv: RunnerEnv;
  signal?: AbortSignal;
  /** The perf audit's draw (default: crypto randomness). */
  auditRandom?: AuditRandom;
}

/** One solver's runs in a session: the key they are stored under, and what a race or a lane adds. */
export interface SessionRuns {
  /** The results-store session key: runs under another key are never reused for these. */
  session: string;
  /** Racing's caps by instance. */
  caps?: ReadonlyMap<string, number>;
  /** Run one at a time (a lane of a session), on this CPU where given (null: not pinned). */
  single?: boolean;
  cpu?: number | null;
  /** Where the runs keep their proofs for the audits (null: required, not kept). */
  hold: string | null;
}

/** The perf stage as planned once, with what measuring on it needs. */
export interface PerfSession {
  /** The stage as planned (its audit policy included). */
  plan: StagePlan;
  /** The set's instances. */
  instances: InstanceSpec[];
  /** The runner's name, and whether it is local (lanes pinned to cores) or remote (a solver synced before its runs). */
  runner: string;
  local: boolean;
  /** Runs `instances` of the solver in `solverDir` as perf runs them, proofs required and not checked (the audits check them). */
  run(solverDir: string, instances: InstanceSpec[], runs: SessionRuns): Promise<InstanceResult[]>;
  /** The perf audit of a solver's runs, undefined when the stage has none. */
  audit(solverDir: string, results: InstanceResult[]): Promise<AuditOutcome> | undefined;
  /** How the runs' kept proofs are checked: the stage's runner, drat-trim and limits. */
  proofs: KeptProofContext;
  /** Removes the proofs kept under `hold` (only those of the runs `keys`, when given); the runners that could not. */
  release(hold: string, keys?: readonly string[]): Promise<string[]>;
}

/** Plans the perf stage (with the request's overrides) and resolves its runner; a bad set, runner or checker is an EvaluationSetupError. */
export async function openPerfSession(req: PerfSessionRequest): Promise<PerfSession> {
  const stages = await plannedStages({ ws: req.ws, config: req.config, overrides: { stage: 'perf', ...req.overrides } });
  const plan = stages[stages.length - 1];
  if (!plan) throw new EvaluationSetupError('no perf stage to measure on');
  const runner = plan.runner ?? 'local';
  let runners;
  try {
    runners = stageRunners(req.config, [runner], req.runnerEnv);
  } catch (e) {
    throw new EvaluationSetupError((e as Error).message);
  }
  const gates = {
    ...gateContext(req.config, req.ws),
    runners,
    jobs: plan.jobs ?? 1,
    build: false,
    stages: [plan],
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.auditRandom ? { auditRandom: req.auditRandom } : {}),
  };
  // Proofs are a correctness matter, settled by the gates and the audits: the runs measure speed, as perf does.
  const measured = { ...plan, audit: undefined };
  const instances = await listSet(plan.dir);
  return {
    plan,
    instances,
    runner,
    local: (req.config.runners.find((r) => r.name === runner)?.kind ?? 'local') === 'local',
    run: async (solverDir, chunk, runs) => {
      const { single, ...extra } = runs;
      const out = await runStage({ ...gates, solverDir }, single ? { ...measured, jobs: 1 } : measured, chunk, {}, extra);
      return out.results;
    },
    audit: (solverDir, results) =>
      plan.audit && auditOn(plan.audit) ? auditStage({ ...gates, solverDir }, measured, plan.audit, results, instances) : undefined,
    proofs: proofContext(gates, plan),
    release: (hold, keys) => releaseProofs({ runners }, hold, [runner], keys),
  };
}
