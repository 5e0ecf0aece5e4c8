// From a workspace's config (and any overrides) to the gates to run, and from their outcome to the
// evaluation document (evalDoc.ts). Used by the evaluation service (service.ts) only.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { InstanceCache } from '../instances/instances';
import { setDir, type Config, type StageName } from '../config/schema';
import { checkCandidate, protectedAfterBuild } from '../rules/workspaceCheck';
import { RULES_DIR, SEEDS_DIR, STATE_DIR } from '../layout';
import { EVAL_DOC_VERSION, type EvalDoc } from './evalDoc';
import type { GateReport, GateRequest, StagePlan } from './gates';
import { ResultsStore } from './resultsStore';
import { LOGS_DIR } from '../run/runLog';
import { findDratTrim } from '../run/checkers';
import type { CheckerPolicy } from '../run/proof';
import { auditOn } from './audit';
import { isolationFor, type IsolationMode } from '../isolation/settings';

export interface PlanOverrides {
  stage?: StageName | 'all';
  /** A set name from the config or a directory. */
  bench?: string;
  timeoutS?: number;
  memMb?: number;
  noProofs?: boolean;
  dratTrim?: string;
  /** Run every stage on this runner instead of each stage's configured one. */
  runner?: string;
  /** Parallel runs on a local runner, instead of the runner's configured `jobs`. */
  jobs?: number;
}

/** Parallel runs when neither the command nor the runner's `jobs` says: one core left for the machine. */
export const defaultJobs = (): number => Math.max(1, os.availableParallelism() - 1);

/** How many runs a stage on this runner executes at once: the override, else the local runner's `jobs`, else the default. */
export function stageJobs(config: Config, runner: string, override?: number): number {
  if (override !== undefined) return override;
  const r = config.runners.find((x) => x.name === runner);
  return (r?.kind === 'local' ? r.jobs : undefined) ?? defaultJobs();
}

export function planStages(config: Config, base: string, o: PlanOverrides = {}): StagePlan[] {
  const stage = o.stage ?? (o.bench ? 'verify' : 'all');
  const names: StageName[] = stage === 'all' ? ['smoke', 'verify', 'perf'] : [stage];
  const resolveSet = (set: string) => setDir(config, base, set);
  return names.map((st) => {
    const s = config.stages[st];
    const runner = o.runner ?? s.runner;
    // perf audits its UNSAT answers unless it checks every proof itself, or proofs were turned off.
    const audit = st === 'perf' && !s.check_proofs && !o.noProofs && auditOn(config.stages.perf.audit) ? config.stages.perf.audit : undefined;
    return {
      gate: st,
      dir: resolveSet(o.bench ?? s.set),
      shownDir: config.benchmarks[o.bench ?? s.set] ?? o.bench ?? s.set,
      timeoutS: o.timeoutS ?? s.timeout_s,
      memMb: o.memMb ?? s.mem_mb,
      checkProofs: s.check_proofs && !o.noProofs,
      runner,
      jobs: stageJobs(config, runner, o.jobs),
      // Audited, so each UNSAT answer must bring the proof its own run wrote (the audits check those).
      ...(audit ? { audit: { min: audit.min, share: audit.share }, requireProofs: true } : {}),
      isolation: isolationFor(config, runner),
    };
  });
}

/** The parts of a gate request that come from the config and the workspace. */
export function gateContext(
  config: Config,
  workspaceDir: string | undefined,
  dratTrimFlag?: string,
): Pick<
  GateRequest,
  | 'buildTimeoutS'
  | 'buildIsolation'
  | 'cache'
  | 'store'
  | 'maxProofMb'
  | 'maxOutputMb'
  | 'checkerTimeoutS'
  | 'checker'
  | 'scratchDir'
  | 'dratTrim'
  | 'baselineDirs'
  | 'logDir'
  | 'vacuousGates'
> {
  const stateDir = workspaceDir ? path.join(workspaceDir, STATE_DIR) : path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'satlution');
  const dratTrim = findDratTrim(dratTrimFlag, config.evaluation.drat_trim);
  return {
    buildTimeoutS: config.evaluation.build_timeout_s,
    buildIsolation: isolationFor(config),
    cache: new InstanceCache(path.join(stateDir, 'cache')),
    store: new ResultsStore(path.join(stateDir, 'results', 'runs.jsonl')),
    maxProofMb: config.evaluation.proof_max_mb,
    maxOutputMb: config.evaluation.output_max_mb,
    ...(config.evaluation.checker_timeout_s ? { checkerTimeoutS: config.evaluation.checker_timeout_s } : {}),
    checker: checkerPolicy(config),
    ...(config.evaluation.scratch_dir ? { scratchDir: config.evaluation.scratch_dir } : {}),
    vacuousGates: config.evaluation.vacuous_gates,
    ...(dratTrim ? { dratTrim } : {}),
    ...(workspaceDir ? { baselineDirs: config.seeds.map((s) => path.join(workspaceDir, SEEDS_DIR, s.name)) } : {}),
    // Solver output is kept per run only inside a workspace, where the dashboard opens it.
    ...(workspaceDir ? { logDir: path.join(stateDir, LOGS_DIR) } : {}),
  };
}

/** The compliance gate for a solver directory inside a workspace with a rulebase, and its protected paths asked again after the build (else neither). */
export async function complianceGate(
  config: Config,
  workspaceDir: string | undefined,
  solverDir: string,
): Promise<Pick<GateRequest, 'comply' | 'protectedAfterBuild'>> {
  if (
    !workspaceDir ||
    !(await fs.stat(path.join(workspaceDir, RULES_DIR)).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return {};
  return { comply: () => checkCandidate(workspaceDir, config, solverDir), protectedAfterBuild: () => protectedAfterBuild(workspaceDir, config, solverDir) };
}

export const MISSING_DRAT_TRIM =
  'proof checking needs drat-trim: locate or build it (VS Code: "SATLUTION: Set Up drat-trim"; or git clone https://github.com/marijnheule/drat-trim && make -C drat-trim), then set evaluation.drat_trim in satlution.yaml or pass --drat-trim PATH; or turn proofs off';

/** Starts like MISSING_DRAT_TRIM, so the CLI adds its --no-proofs hint (which turns the audit off too). */
export const MISSING_DRAT_TRIM_AUDIT =
  'proof checking needs drat-trim for the perf audit (stages.perf.audit re-checks a sample of UNSAT answers): locate or build it ("SATLUTION: Set Up drat-trim"), set evaluation.drat_trim in satlution.yaml or pass --drat-trim PATH, or turn the audit off with stages.perf.audit.min: 0 and share: 0';

/** Whether the build or a stage that ran had no sandbox (a stage that never started measured nothing). */
function ranUnconfined(gates: readonly GateReport[], build: IsolationMode): boolean {
  return gates.some((g) => (g.gate === 'build' ? build === 'off' : g.plan?.isolation?.mode === 'off'));
}

/** The evaluation document of a run of the gates. */
export function evalDoc(o: {
  solverDir: string;
  runner: string;
  verdict: 'pass' | 'fail';
  gates: GateReport[];
  stages: StagePlan[];
  tier?: { reached: number; of: number };
  buildIsolation?: IsolationMode;
}): EvalDoc {
  const last = [...o.gates].reverse().find((g) => g.results);
  const fallback = o.stages[o.stages.length - 1];
  return {
    version: EVAL_DOC_VERSION,
    solver: o.solverDir,
    solver_hash: last?.solverHash ?? null,
    runner: o.runner,
    timeout_s: last?.plan?.timeoutS ?? fallback?.timeoutS ?? null,
    mem_limit_mb: last?.plan?.memMb ?? fallback?.memMb ?? null,
    verdict: o.verdict,
    evaluated_at: new Date().toISOString(),
    instances: last?.results ?? [],
    metrics: last?.metrics ?? null,
    ...(o.tier ? { tier: o.tier } : {}),
    ...(last?.race ? { race: last.race } : {}),
    isolation: ranUnconfined(o.gates, o.buildIsolation ?? 'bwrap') ? 'off' : 'bwrap',
    gates: o.gates.map((g) => ({
      gate: g.gate,
      ok: g.ok,
      detail: g.detail,
      failures: g.failures,
      ...(g.metrics ? { metrics: g.metrics } : {}),
      ...(g.diagnostics?.length ? { diagnostics: g.diagnostics } : {}),
      ...(g.compliance
        ? { compliance: { score: g.compliance.score, errors: g.compliance.errors, warnings: g.compliance.warnings, violations: g.compliance.violations } }
        : {}),
      ...(g.reused !== undefined ? { reused: g.reused } : {}),
      ...(g.audit ? { audit: g.audit } : {}),
      ...(g.warning ? { warning: g.warning } : {}),
    })),
  };
}

/** evaluation.checker as the proof checks take it. */
export const checkerPolicy = (config: Config): CheckerPolicy => {
  const c = config.evaluation.checker;
  return { timeFactor: c.time_factor, timeMinS: c.time_min_s, memMb: c.mem_mb, proofMbPerS: c.proof_mb_per_s, proofMinMb: c.proof_min_mb };
};
