// The one way to evaluate a solver: `satlution eval`, the editor's Evaluate Candidate, the cycle engine
// (challengers, the champion, the held-out check) and the coder's smoke tool all call evaluateSolver.
// It plans the stages from satlution.yaml and the caller's overrides, resolves each stage's runner and
// its `jobs`, runs the gates (with perf tiers when asked), builds the evaluation document and, for a
// workspace candidate, records it. See ARCHITECTURE.md, "The path of an evaluation".
import * as os from 'node:os';
import { sweepLeftovers } from '../run/sweep';
import { isolationFor } from '../isolation/settings';
import { probeIsolation } from '../isolation/probe';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Config } from '../config/schema';
import { parseCandidateDir } from '../layout';
import type { InstanceResult } from '../run/result';
import { findDratTrim } from '../run/checkers';
import { setVersion } from '../instances/setVersion';
import { type RunnerEnv, stageRunners } from '../runners/select';
import type { Runner } from '../runners/runner';
import { evaluationHold } from '../run/keptProof';
import { releaseProofs } from './proofChecks';
import type { AuditRandom } from './audit';
import type { EvalDoc } from './evalDoc';
import { type GateName, type GateReport, runGates, type StagePlan } from './gates';
import { complianceGate, evalDoc, gateContext, MISSING_DRAT_TRIM, MISSING_DRAT_TRIM_AUDIT, type PlanOverrides, planStages } from './plan';
import { recordEvaluation, type Recorded } from './record';
import { recordTier, tierPlans } from './tiers';

/** A problem with the request itself (unknown runner, missing set or checker): nothing ran. */
export class EvaluationSetupError extends Error {
  override name = 'EvaluationSetupError';
}

/** What to evaluate, where, and who listens. */
export interface EvaluationRequest {
  /** The workspace (its config, rules, state); undefined for a solver outside any workspace. */
  ws: string | undefined;
  config: Config;
  solverDir: string;
  /** Stage, set, limits, runner and jobs instead of the config's. */
  overrides?: PlanOverrides;
  /** Build first (default true). */
  build?: boolean;
  /** The comply gate against .rules/ first, in a workspace (default true). */
  rules?: boolean;
  /** Keep the document and the candidate's status in the workspace, when the solver is one of its candidates (default true). */
  record?: boolean;
  /**
   * Multi-fidelity: run perf tier by tier (stages.perf.tiers) and stop where the candidate does not
   * rank high enough; a `reference` (the champion, a parent) always goes the whole way.
   */
  tiers?: { reference: boolean };
  /**
   * A cycle's challenger: every gate but the full perf set (the last tier), which the cycle's race
   * measures side by side with the champion (decide/againstChampion.ts raceChallengers) and then records into the document.
   */
  raceLater?: boolean;
  /** drat-trim given on the command line (else the config's, else one found on this machine). */
  dratTrim?: string;
  /** Where dist/worker.js is, for stages on ssh or slurm runners. */
  runnerEnv: RunnerEnv;
  signal?: AbortSignal;
  /** The perf audit's draw (default: crypto randomness); tests pass a seeded one. */
  auditRandom?: AuditRandom;
  onGateStart?: (gate: GateName, total: number) => void;
  onResult?: (gate: GateName, r: InstanceResult, done: number, total: number, reused: boolean) => void;
  /** A remote runner's word on what it is doing (syncing, queued jobs). */
  onStatus?: (gate: GateName, message: string) => void;
  /** A line for the log (tier decisions). */
  onLog?: (message: string) => void;
}

/** The evaluation's outcome: the gates as they ran, the document, and what was recorded. */
export interface Evaluation {
  verdict: 'pass' | 'fail';
  gates: GateReport[];
  doc: EvalDoc;
  stages: StagePlan[];
  /** Set when the document was kept for a workspace candidate. */
  recorded?: Recorded;
}

/** The stages a request would run, checked: every set a directory, every runner known, drat-trim found where proofs are checked or perf is audited. */
export async function plannedStages(req: Pick<EvaluationRequest, 'ws' | 'config' | 'overrides' | 'dratTrim'>): Promise<StagePlan[]> {
  const { config } = req;
  const runner = req.overrides?.runner;
  if (runner !== undefined && !config.runners.some((r) => r.name === runner))
    throw new EvaluationSetupError(`runner ${runner}: no such runner in satlution.yaml (known: ${config.runners.map((r) => r.name).join(', ')})`);
  const stages = planStages(config, req.ws ?? process.cwd(), req.overrides);
  for (const s of stages)
    if (
      !(await fs.stat(s.dir).then(
        (x) => x.isDirectory(),
        () => false,
      ))
    )
      throw new EvaluationSetupError(`benchmark set ${s.dir} is not a directory`);
  if (stages.some((s) => s.checkProofs || s.audit) && !findDratTrim(req.dratTrim, config.evaluation.drat_trim))
    throw new EvaluationSetupError(stages.some((s) => s.checkProofs) ? MISSING_DRAT_TRIM : MISSING_DRAT_TRIM_AUDIT);
  // Builds run here, and so do the stages on local runners: refuse before anything runs unconfined.
  // Remote runners check their hosts themselves (the worker sandboxes there).
  const local = new Set(config.runners.filter((r) => r.kind === 'local').map((r) => r.name));
  for (const iso of [isolationFor(config), ...stages.flatMap((s) => (s.isolation && local.has(s.runner ?? 'local') ? [s.isolation] : []))]) {
    const p = await probeIsolation(iso);
    if (!p.ok) throw new EvaluationSetupError(`${p.problem}. ${p.fix}`);
  }
  return stages;
}

/** Evaluates a solver through its stages with the config's runners and limits (the one evaluation path). */
export async function evaluateSolver(req: EvaluationRequest): Promise<Evaluation> {
  const { config, ws, solverDir } = req;
  const planned = await plannedStages(req);
  // The correctness stages always run in full; the full perf set of a challenger runs in its cycle's race.
  const last = planned[planned.length - 1];
  const tiered = !!req.tiers && !!config.stages.perf.tiers?.length && !!ws && last?.gate === 'perf';
  const raceLater = !!req.raceLater && last?.gate === 'perf';
  const stages = raceLater && !tiered ? planned.slice(0, -1) : planned;
  // What an evaluator killed with SIGKILL left: its solvers, memory cgroups and run directories.
  await sweepLeftovers({ scratchDirs: [os.tmpdir(), ...(config.evaluation.scratch_dir ? [config.evaluation.scratch_dir] : [])] });
  let runners;
  try {
    runners = stageRunners(
      config,
      stages.map((s) => s.runner ?? 'local'),
      req.runnerEnv,
    );
  } catch (e) {
    throw new EvaluationSetupError((e as Error).message);
  }
  const rules = req.rules === false ? {} : await complianceGate(config, ws, solverDir);
  // The proofs perf's runs keep for its audit are held for this evaluation only: released when it ends, however it ends.
  const keeping = stages.filter((st) => st.requireProofs && !st.checkProofs);
  const hold = keeping.length ? evaluationHold() : undefined;
  try {
    return await evaluateGates(req, { stages, runners, rules, tiered, raceLater, ...(hold ? { hold } : {}) });
  } finally {
    const left = hold
      ? await releaseProofs(
          { runners },
          hold,
          keeping.map((st) => st.runner ?? 'local'),
        )
      : [];
    for (const e of left)
      req.onLog?.(`could not remove the proofs this evaluation kept (${hold}) on ${e}; a later evaluation there removes them after two weeks`);
  }
}

/** The gates of an evaluation as planned, with perf tiers when asked; the document, recorded for a workspace candidate. */
async function evaluateGates(
  req: EvaluationRequest,
  o: {
    stages: StagePlan[];
    runners: (name: string) => Runner;
    rules: Awaited<ReturnType<typeof complianceGate>>;
    tiered: boolean;
    raceLater: boolean;
    hold?: string;
  },
): Promise<Evaluation> {
  const { config, ws, solverDir } = req;
  const { stages, runners, rules, tiered, raceLater } = o;
  const common = {
    ...gateContext(config, ws, req.dratTrim),
    solverDir,
    runners,
    ...(o.hold ? { hold: o.hold } : {}),
    // Preparing instances (hashing, decompressing) uses as many slots as the first stage runs.
    jobs: stages[0]?.jobs ?? 1,
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.auditRandom ? { auditRandom: req.auditRandom } : {}),
    ...(req.onGateStart ? { onGateStart: req.onGateStart } : {}),
    ...(req.onResult ? { onResult: req.onResult } : {}),
    ...(req.onStatus ? { onStatus: req.onStatus } : {}),
  };
  const first = { ...common, ...rules, build: req.build !== false };
  const runner = [...new Set(stages.map((p) => p.runner ?? 'local'))].join(',');
  const tiers = config.stages.perf.tiers ?? [];
  const perf = stages[stages.length - 1];
  let outcome: { verdict: 'pass' | 'fail'; gates: GateReport[]; stages: StagePlan[]; tier?: { reached: number; of: number } };
  let pending = raceLater && !tiered;
  if (!tiered || !ws || !perf || !req.tiers) {
    const r = await runGates({ ...first, stages });
    outcome = { ...r, stages };
  } else {
    // The cheaper tiers rank candidates among themselves; the last (the full set) is the race's.
    const plans = tierPlans(perf, tiers);
    const head = stages.slice(0, -1);
    const id = parseCandidateDir(path.basename(solverDir)) ?? 0;
    let r = await runGates({ ...first, stages: [...head, plans[0]!] });
    const gates = [...r.gates];
    let reached = 1;
    while (r.verdict === 'pass' && reached <= tiers.length) {
      const plan = plans[reached - 1]!;
      const par2 = gates[gates.length - 1]?.metrics?.par2 ?? null;
      const rec = await recordTier(ws, { candidate: id, plan, par2, top: req.tiers.reference ? null : tiers[reached - 1]!.promote_top });
      req.onLog?.(
        `${path.basename(solverDir)}: tier ${reached} of ${plans.length} (${Math.round(100 * (plan.fraction ?? 1))}% of perf, ${plan.timeoutS} s) PAR-2 ${par2?.toFixed(2)} s${rec.rank ? `, rank ${rec.rank} of ${rec.of}` : ''}: ${rec.promoted ? `on to tier ${reached + 1}` : 'stops here'}`,
      );
      if (!rec.promoted) break;
      reached++;
      if (raceLater && reached === plans.length) {
        pending = true;
        break;
      }
      // The next tier only: the build and the correctness stages are done.
      r = await runGates({ ...common, build: false, stages: [plans[reached - 1]!] });
      gates.push(...r.gates);
    }
    if (r.verdict === 'pass' && reached === plans.length && !raceLater)
      await recordTier(ws, { candidate: id, plan: plans[reached - 1]!, par2: gates[gates.length - 1]?.metrics?.par2 ?? null, top: null });
    outcome = { verdict: r.verdict, gates, stages: [...head, plans[reached - 1]!], tier: { reached, of: plans.length } };
  }
  const doc = evalDoc({
    solverDir,
    runner,
    verdict: outcome.verdict,
    gates: outcome.gates,
    stages: outcome.stages,
    buildIsolation: isolationFor(config).mode,
    ...(outcome.tier ? { tier: outcome.tier } : {}),
  });
  if (pending && outcome.verdict === 'pass') doc.race_pending = true;
  // The whole perf set's version, also for a tier or a race that ran part of it: that is the set the figures belong to.
  const perfSet = perf?.gate === 'perf' && outcome.gates.some((g) => g.gate === 'perf') ? await setVersion(perf.dir, common.cache) : undefined;
  if (perfSet) doc.perf_set = perfSet;
  const recorded = ws && req.record !== false ? await recordEvaluation(ws, solverDir, doc) : undefined;
  return { verdict: outcome.verdict, gates: outcome.gates, doc, stages, ...(recorded ? { recorded } : {}) };
}
