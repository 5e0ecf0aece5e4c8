// The gates, cheapest first (ARCHITECTURE.md, "The path of an evaluation"): build, then each stage's instance set. A candidate that
// fails a gate is not measured further; the failure says what went wrong where.
import { listSet, type InstanceCache, type InstanceSpec } from '../instances/instances';
import type { ComplianceReport } from '../rules/check';
import { type BuildResult, buildSolver, type Diagnostic } from '../run/buildSolver';
import { runSet, type RunSetOutcome, type RunSetRequest } from './runSet';
import type { MemoryMethod } from '../run/limits';
import type { CheckerPolicy } from '../run/proof';
import type { IsolationSettings } from '../isolation/settings';
import { computeMetrics, type Metrics } from './metrics';
import { FATAL, type InstanceResult, type RunStatus } from '../run/result';
import { type ResultsStore, solverIdentity } from './resultsStore';
import type { Between } from '../runners/pool';
import type { Runner } from '../runners/runner';
import type { AuditDoc, GateName } from './evalDoc';
import { auditOn, auditStream, auditSummary, type AuditOutcome, type AuditPolicy, type AuditRandom, type AuditStream } from './audit';
import { checkKeptProofs, type KeptProofContext } from './proofChecks';
import { inSubset } from './subset';
import { recordDisputes } from '../instances/metaCsv';
import * as path from 'node:path';
import type { RaceDoc } from './evalDoc';

export type { GateName } from './evalDoc';

export interface StagePlan {
  gate: Exclude<GateName, 'build' | 'comply'>;
  /** The set's directory. */
  dir: string;
  /** The directory as satlution.yaml or the caller gave it (relative to the workspace), for messages; `dir` when absent. */
  shownDir?: string;
  timeoutS: number;
  memMb: number;
  checkProofs: boolean;
  /** The runner (a `runners` entry) this stage runs on; local when absent. */
  runner?: string;
  /** Runs at once on a local runner (its `jobs`, or an override); the request's `jobs` when absent. */
  jobs?: number;
  /** Multi-fidelity tier: only this fixed share of the set (inSubset), with its own timeout. */
  fraction?: number;
  /** The tier's number (1 = cheapest), for records and messages. */
  tier?: number;
  /** perf without proofs: check a random sample of the proofs its UNSAT answers' runs kept afterwards (audit.ts). */
  audit?: AuditPolicy;
  /** Every UNSAT answer needs the proof its own run wrote, kept for the audits (RunSettings.requireProofs): perf with its audit on. */
  requireProofs?: boolean;
  /** The sandbox of this stage's runs (its runner's, else the workspace's); default: bubblewrap. */
  isolation?: IsolationSettings;
}

export interface GateReport {
  gate: GateName;
  ok: boolean;
  detail: string;
  /** One line per failing instance (at most 20). */
  failures: string[];
  diagnostics?: Diagnostic[];
  compliance?: ComplianceReport;
  results?: InstanceResult[];
  metrics?: Metrics;
  plan?: StagePlan;
  reused?: number;
  solverHash?: string;
  /** The perf audit, when the stage had one. */
  audit?: AuditDoc;
  /** The stage checked nothing but passed (evaluation.vacuous_gates: warn): why, shown with the verdict. */
  warning?: string;
  /** A cycle's race, when perf was measured in one (decide/withRace.ts). */
  race?: RaceDoc;
}

export interface GateRequest {
  solverDir: string;
  /** Rule compliance, checked before anything is built or run (absent outside a workspace). */
  comply?: () => Promise<ComplianceReport>;
  /** The protected paths that differ from the parent's, asked again after the build (absent outside a workspace). */
  protectedAfterBuild?: () => Promise<string[]>;
  build: boolean;
  buildTimeoutS: number;
  /** The build's sandbox (the workspace's `sandbox`); default: bubblewrap. */
  buildIsolation?: IsolationSettings;
  stages: StagePlan[];
  jobs: number;
  cache: InstanceCache;
  store: ResultsStore;
  dratTrim?: string;
  maxProofMb: number;
  /** evaluation.output_max_mb: more output stops a run (a crash). */
  maxOutputMb?: number;
  /** Proof-check time limit; default 3x the stage timeout. */
  checkerTimeoutS?: number;
  /** evaluation.checker: proof checks bounded relative to each run's solving time. */
  checker?: CheckerPolicy;
  memoryMethod?: MemoryMethod;
  scratchDir?: string;
  /** Per-run logs go here (workspace evaluations; see runLog.ts). */
  logDir?: string;
  /** Baseline solvers (the seeds): their stored results give each stage's unique_solved. */
  baselineDirs?: string[];
  /** Resolves a stage's runner name; without it every stage runs on the local pool. */
  runners?: (name: string) => Runner;
  signal?: AbortSignal;
  /** The perf audit's draw; default: crypto randomness (tests inject a seeded one). */
  auditRandom?: AuditRandom;
  /** evaluation.vacuous_gates: a stage that checks nothing fails (default) or passes with a warning. */
  vacuousGates?: VacuousGates;
  onGateStart?: (gate: GateName, total: number) => void;
  onResult?: (gate: GateName, r: InstanceResult, done: number, total: number, reused: boolean) => void;
  /** A remote runner's word on what it is doing (syncing, jobs queued). */
  onStatus?: (gate: GateName, message: string) => void;
  /** Solver identities, each computed once after the build (runGates sets it): a solver's files do not change between its stages. */
  identityOf?: (dir: string) => Promise<string>;
  /** Where stages that require proofs keep them for the audits (run/keptProof.ts); its holder releases it. Absent: required, not kept. */
  hold?: string;
}

/** solverIdentity, once per directory. */
function memoIdentities(): (dir: string) => Promise<string> {
  const known = new Map<string, Promise<string>>();
  return (dir) => {
    const key = path.resolve(dir);
    let h = known.get(key);
    if (!h) known.set(key, (h = solverIdentity(key)));
    return h;
  };
}

/** evaluation.vacuous_gates: what a stage that checks nothing does. */
export type VacuousGates = 'fail' | 'warn';

/** Smoke instances are trivial: a timeout or memout there is a hang or a leak, not slowness. */
const FAILS: Record<StagePlan['gate'], (s: RunStatus) => boolean> = {
  smoke: (s) => FATAL.has(s) || s === 'timeout' || s === 'memout',
  verify: (s) => FATAL.has(s),
  perf: (s) => FATAL.has(s),
};

/** What the baselines that were evaluated on these instances got (none: unique_solved stays null). */
async function baselineResults(req: GateRequest, self: string, names: Set<string>): Promise<InstanceResult[][] | undefined> {
  const lists: InstanceResult[][] = [];
  for (const dir of req.baselineDirs ?? []) {
    const hash = await (req.identityOf ?? solverIdentity)(dir).catch(() => undefined); // no such directory: no results
    if (!hash || hash === self) continue;
    const rs = (await req.store.resultsOf(hash)).filter((r) => names.has(r.instance));
    if (rs.length) lists.push(rs);
  }
  return lists.length ? lists : undefined;
}

export async function runGates(req: GateRequest): Promise<{ verdict: 'pass' | 'fail'; gates: GateReport[] }> {
  const gates: GateReport[] = [];
  if (req.comply) {
    req.onGateStart?.('comply', 0);
    const c = await req.comply();
    const errors = c.violations.filter((v) => v.severity === 'error');
    const at = (v: (typeof errors)[number]) => `${v.rule} ${v.check}${v.file ? ` ${v.file}${v.line ? `:${v.line}` : ''}` : ''}: ${v.message}`;
    gates.push({
      gate: 'comply',
      ok: errors.length === 0,
      detail: errors.length
        ? `${errors.length} rule violation${errors.length > 1 ? 's' : ''}, first: ${at(errors[0]!)}`
        : `compliance ${(100 * c.score).toFixed(0)}% (${c.checksPassed}/${c.checksRun} checks${c.warnings ? `, ${c.warnings} warning${c.warnings > 1 ? 's' : ''}` : ''})`,
      failures: errors.slice(0, 20).map(at),
      compliance: c,
    });
    if (errors.length) return { verdict: 'fail', gates };
  }
  if (req.build) {
    req.onGateStart?.('build', 0);
    const b = await buildSolver(req.solverDir, req.buildTimeoutS, req.signal, req.buildIsolation);
    // What the build may not change: the protected paths, checked again now that its code has run.
    const changed = b.ok && req.protectedAfterBuild ? await req.protectedAfterBuild() : [];
    const ok = b.ok && changed.length === 0;
    const detail = !b.ok ? b.detail : changed.length ? `the build changed protected files: ${changed.join('; ')}` : `built in ${b.timeS.toFixed(1)} s`;
    gates.push({ gate: 'build', ok, detail, failures: b.ok ? changed : buildFailures(b), diagnostics: b.diagnostics });
    if (!ok) return { verdict: 'fail', gates };
  }
  // From here on nothing changes the solvers' files: each identity is computed once.
  req = { ...req, identityOf: req.identityOf ?? memoIdentities() };
  for (const plan of req.stages) {
    const instances = (await listSet(plan.dir)).filter((i) => plan.fraction === undefined || inSubset(i.name, plan.fraction));
    req.onGateStart?.(plan.gate, instances.length);
    if (instances.length === 0) {
      const share = plan.fraction === undefined ? '' : ` (tier ${plan.tier ?? 1}: ${Math.round(100 * plan.fraction)}% of it)`;
      const none = `no instances in ${plan.shownDir ?? plan.dir}${share}: nothing to check`;
      const empty = vacuous(req, plan, none, 'add instances (or run `satlution generate`)');
      gates.push({
        gate: plan.gate,
        ok: empty.ok,
        detail: empty.detail ?? none,
        failures: [],
        results: [],
        plan,
        ...(empty.warning ? { warning: empty.warning } : {}),
      });
      if (!empty.ok) return { verdict: 'fail', gates };
      continue;
    }
    // perf's audit draws as its runs end and checks beside the remaining runs (audit.ts).
    const stream = !plan.checkProofs && auditOn(plan.audit) ? openAudit(req, plan, plan.audit, instances) : undefined;
    const progress = {
      onResult: (r: InstanceResult, done: number, total: number, reused: boolean) => {
        stream?.offer(r);
        req.onResult?.(plan.gate, r, done, total, reused);
      },
      ...(req.onStatus ? { onStatus: (m: string) => req.onStatus?.(plan.gate, m) } : {}),
    };
    const ran = await runStage(req, plan, instances, progress, stream ? { between: stream.next } : {});
    const failing = ran.results.filter((r) => FAILS[plan.gate](r.status));
    // Only a stage that passed is judged by its audit: a failed one fails anyway. The answers it checked carry their proof's verdict from then on.
    const audit = failing.length === 0 && stream ? await stream.finish(ran.results) : undefined;
    const out = audit ? { ...ran, results: ran.results.map((r) => audit.checked.get(r.instance) ?? r) } : ran;
    const metrics = computeMetrics(out.results, plan.timeoutS, await baselineResults(req, out.solverHash, new Set(instances.map((i) => i.name))));
    // A verify stage that passed without checking a single answer proved nothing.
    const why = failing.length === 0 && !audit?.failures.length ? uncheckedVerify(plan, out.results) : undefined;
    const unchecked = why
      ? vacuous(req, plan, why, `add instances the solver solves within the verify timeout (${plan.timeoutS} s), or known answers in meta.csv`)
      : undefined;
    const ok = failing.length === 0 && !audit?.failures.length && (unchecked?.ok ?? true);
    const measured = `${metrics.solved}/${metrics.n} solved, PAR-2 ${metrics.par2.toFixed(2)} s`;
    gates.push({
      gate: plan.gate,
      ok,
      detail: failing.length
        ? `${failing.length} of ${out.results.length} instances failed: ${failing[0]!.detail}`
        : (unchecked?.detail ?? (audit ? `${measured}; ${auditSummary(audit.doc)}` : measured)),
      failures: [...failing.map((r) => `${r.status}: ${r.detail}`), ...(audit?.failures ?? [])].slice(0, 20),
      results: out.results,
      metrics,
      plan,
      reused: out.reused,
      solverHash: out.solverHash,
      ...(audit ? { audit: audit.doc } : {}),
      ...(unchecked?.warning ? { warning: unchecked.warning } : {}),
    });
    if (!ok) return { verdict: 'fail', gates };
  }
  return { verdict: 'pass', gates };
}

/** Lines shown for a failed build: its compiler errors, else the end of its log (a build can fail with no error a compiler printed). */
export function buildFailures(b: Pick<BuildResult, 'diagnostics' | 'log'>): string[] {
  const errors = b.diagnostics
    .filter((d) => d.severity === 'error')
    .slice(0, 20)
    .map((d) => `${d.file ? `${d.file}:${d.line}: ` : ''}${d.message}`);
  if (errors.length) return errors;
  const tail = b.log
    .trimEnd()
    .split('\n')
    .filter((l) => l.trim())
    .slice(-BUILD_LOG_LINES);
  return tail.length ? [`the end of the build's output:`, ...tail.map((l) => l.slice(0, 300))] : ['the build printed nothing'];
}

/** How much of a failed build's output its gate shows when no compiler error names the cause. */
const BUILD_LOG_LINES = 15;

/**
 * A stage that checked nothing must not pass silently (a candidate that breaks everything would sail
 * through it): with vacuous_gates fail (the default) it fails saying what to add; with warn it passes
 * with a warning, keeping its own detail (undefined here).
 */
function vacuous(req: GateRequest, plan: StagePlan, why: string, fix: string): { ok: boolean; detail?: string; warning?: string } {
  if ((req.vacuousGates ?? 'fail') === 'fail') return { ok: false, detail: `${why} — ${fix}, or set evaluation.vacuous_gates: warn` };
  return { ok: true, warning: `${plan.gate} checked nothing: ${why} — ${fix}` };
}

/** An answer that was checked: its model or proof checked, or it agrees with a known answer from meta.csv. */
const checkedAnswer = (r: InstanceResult): boolean =>
  r.check.ok === true || (r.status === 'solved' && (r.expected_from === 'meta' || r.expected_from === 'claim') && r.answer === r.expected);

/** Why a verify stage checked no answer (every run timed out, or nothing it said could be checked); undefined when it checked one, or is not verify. */
function uncheckedVerify(plan: StagePlan, results: readonly InstanceResult[]): string | undefined {
  if (plan.gate !== 'verify' || results.some(checkedAnswer)) return undefined;
  const label: Partial<Record<RunStatus, string>> = {
    timeout: 'timed out',
    memout: 'ran out of memory',
    unknown: 'unknown',
    solved: 'answered with nothing to check it against',
  };
  const counts = new Map<string, number>();
  for (const r of results) counts.set(label[r.status] ?? r.status, (counts.get(label[r.status] ?? r.status) ?? 0) + 1);
  return `none of the ${results.length} answer${results.length === 1 ? '' : 's'} could be checked (${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')})`;
}

/** What a caller adds to a stage's runs: racing's caps, a duel's session, a lane's CPU, where proofs are kept, work between runs. */
interface RunExtras {
  caps?: ReadonlyMap<string, number>;
  session?: string;
  cpu?: number | null;
  hold?: string | null;
  between?: Between;
}

/**
 * One stage's runs through runSet, on the stage's runner with the request's checker and limits;
 * racing's caps, a duel's session, a lane's CPU (null: not pinned) and where its proofs are kept
 * (`hold`: the request's by default; null: required, not kept) when given.
 */
export async function runStage(
  req: GateRequest,
  plan: StagePlan,
  instances: InstanceSpec[],
  progress: Pick<RunSetRequest, 'onResult' | 'onStatus'>,
  extra: RunExtras = {},
): Promise<RunSetOutcome> {
  const out = await runSetOf(req, plan, instances, progress, extra);
  // A run that proved the opposite of a claim of the set's meta.csv marks it disputed there, with the proved answer.
  const disputes = out.results.flatMap((r) =>
    r.disputed && (r.answer === 'SAT' || r.answer === 'UNSAT') ? [{ instance: r.instance, claim: r.disputed.claim, proved: r.answer, by: r.disputed.by }] : [],
  );
  const changed = await recordDisputes(plan.dir, disputes).catch((e: Error) => {
    req.onStatus?.(plan.gate, `could not mark disputed claims in ${plan.dir}/meta.csv: ${e.message}`);
    return [];
  });
  if (changed.length) req.onStatus?.(plan.gate, `meta.csv: the claims on ${changed.join(', ')} were disproved by checked answers, and are marked disputed`);
  return out;
}

/** runStage's runs, as runSet takes them. */
function runSetOf(
  req: GateRequest,
  plan: StagePlan,
  instances: InstanceSpec[],
  progress: Pick<RunSetRequest, 'onResult' | 'onStatus'>,
  extra: RunExtras,
): Promise<RunSetOutcome> {
  const { caps, session, cpu, between } = extra;
  const hold = extra.hold !== undefined ? extra.hold : (req.hold ?? null);
  const { identityOf } = req;
  return runSet({
    ...(identityOf ? { identity: () => identityOf(req.solverDir) } : {}),
    ...(caps?.size ? { caps } : {}),
    ...(session ? { session } : {}),
    ...(cpu !== undefined ? { cpu } : {}),
    ...(between ? { between } : {}),
    solverDir: req.solverDir,
    instances,
    timeoutS: plan.timeoutS,
    memMb: plan.memMb,
    checkProofs: plan.checkProofs,
    ...(plan.requireProofs && !plan.checkProofs ? { requireProofs: { hold } } : {}),
    ...(req.dratTrim ? { dratTrim: req.dratTrim } : {}),
    maxProofMb: req.maxProofMb,
    ...(req.maxOutputMb ? { maxOutputMb: req.maxOutputMb } : {}),
    checkerTimeoutS: req.checkerTimeoutS ?? 3 * plan.timeoutS,
    ...(req.checker ? { checker: req.checker } : {}),
    jobs: plan.jobs ?? req.jobs,
    cache: req.cache,
    store: req.store,
    ...(req.memoryMethod ? { memoryMethod: req.memoryMethod } : {}),
    ...(req.scratchDir ? { scratchDir: req.scratchDir } : {}),
    ...(plan.isolation ? { isolation: plan.isolation } : {}),
    ...(req.logDir ? { logDir: req.logDir } : {}),
    ...(plan.runner && req.runners ? { runner: req.runners(plan.runner) } : {}),
    buildTimeoutS: req.buildTimeoutS,
    ...(req.signal ? { signal: req.signal } : {}),
    ...progress,
  });
}

/**
 * The perf audit (audit.ts) of a stage's runs: the proofs that the sampled runs kept, checked where they
 * ran (same runner and drat-trim as verify); what each showed is recorded on its run. Progress goes out
 * as status lines.
 */
export function openAudit(req: GateRequest, plan: StagePlan, policy: AuditPolicy, instances: InstanceSpec[]): AuditStream {
  const say = (m: string) => req.onStatus?.(plan.gate, `audit: ${m}`);
  return auditStream({
    policy,
    instances,
    ...(req.auditRandom ? { random: req.auditRandom } : {}),
    check: (sample, specs) => {
      say(
        `checking the proof${sample.length > 1 ? 's' : ''} of ${sample.map((r) => r.instance).join(', ')}, as ${sample.length > 1 ? 'their runs' : 'its run'} wrote ${sample.length > 1 ? 'them' : 'it'}`,
      );
      return checkKeptProofs(proofContext(req, plan), sample, specs);
    },
  });
}

/** The perf audit of runs that are all in (a race's survivor): openAudit's sample drawn at once. */
export function auditStage(
  req: GateRequest,
  plan: StagePlan,
  policy: AuditPolicy,
  results: InstanceResult[],
  instances: InstanceSpec[],
): Promise<AuditOutcome> {
  return openAudit(req, plan, policy, instances).finish(results);
}

/** How a stage's kept proofs are checked: its runner, the request's drat-trim and limits. */
export function proofContext(
  req: Pick<
    GateRequest,
    'cache' | 'store' | 'runners' | 'scratchDir' | 'dratTrim' | 'checkerTimeoutS' | 'checker' | 'maxProofMb' | 'jobs' | 'signal' | 'onStatus'
  >,
  plan: StagePlan,
): KeptProofContext {
  const runners = req.runners;
  return {
    cache: req.cache,
    store: req.store,
    ...(runners ? { runners } : {}),
    ...(req.scratchDir ? { scratchDir: req.scratchDir } : {}),
    ...(req.dratTrim ? { dratTrim: req.dratTrim } : {}),
    checkerTimeoutS: req.checkerTimeoutS ?? 3 * plan.timeoutS,
    ...(req.checker ? { checker: req.checker } : {}),
    maxProofMb: req.maxProofMb,
    jobs: plan.jobs ?? req.jobs,
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.onStatus ? { onStatus: (m: string) => req.onStatus?.(plan.gate, m) } : {}),
  };
}
