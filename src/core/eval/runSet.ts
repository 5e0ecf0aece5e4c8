// Runs one solver on one instance set: prepares the instances (hash, validate, decompress),
// reuses stored results, runs the rest longest-expected-first on a runner (the local pool unless
// another is given), and records each result the moment its run ends.
import { InstanceCache, type InstanceSpec, type PreparedInstance } from '../instances/instances';
import { localRunner } from '../runners/local';
import { runPool, type Between } from '../runners/pool';
import type { Runner, RunTask } from '../runners/runner';
import type { InstanceResult } from '../run/result';
import { ResultsStore, runKey, solverIdentity } from './resultsStore';
import type { RunSettings } from '../run/runInstance';
import { runLogPath } from '../run/runLog';
import { limitsOf } from '../isolation/settings';

export interface RunSetRequest extends RunSettings {
  instances: InstanceSpec[];
  jobs: number;
  cache: InstanceCache;
  store: ResultsStore;
  /** Write each run's log to <logDir>/<solver hash>/<instance>.log (runLog.ts); none when absent. */
  logDir?: string;
  /** Where the runs execute; default: the local process pool. */
  runner?: Runner;
  /** For runners that build remotely. */
  buildTimeoutS?: number;
  onResult?: (r: InstanceResult, done: number, total: number, reused: boolean) => void;
  /** Passed to the runner (RunBatch.onStatus). */
  onStatus?: (message: string) => void;
  /** Per-instance time limits below the stage's (racing's adaptive caps, race.ts); each is part of that run's key. */
  caps?: ReadonlyMap<string, number>;
  /**
   * A measurement session (measureTogether.ts): every instance is run again under keys of this session's own, so
   * no result stored earlier (here or kept on a remote host) is reused; the new runs are still stored.
   */
  session?: string;
  /** The solver's identity when the caller already has it (computed once per evaluation: runs do not change the solver). */
  identity?: () => Promise<string>;
  /** Passed to the runner (RunBatch.between): the perf audit's checks, in free slots between runs. */
  between?: Between;
}

export interface RunSetOutcome {
  solverHash: string;
  results: InstanceResult[];
  /** Results taken from earlier runs with the same key (resumed, or an identical binary). */
  reused: number;
}

export async function runSet(req: RunSetRequest): Promise<RunSetOutcome> {
  const solverHash = req.identity ? await req.identity() : await solverIdentity(req.solverDir);
  const prepared = new Map<string, PreparedInstance>();
  await runPool(req.instances, req.jobs, async (spec) => void prepared.set(spec.name, await req.cache.prepare(spec.file)), req.signal);
  await req.cache.save();
  req.signal?.throwIfAborted();
  const stored = await req.store.load();
  const results = new Map<string, InstanceResult>();
  let done = 0;
  let reused = 0;
  const todo: (RunTask & { expectedTime: number })[] = [];
  for (const spec of req.instances) {
    const inst = prepared.get(spec.name)!;
    const timeoutS = Math.min(req.timeoutS, req.caps?.get(spec.name) ?? Infinity);
    const key = runKey({
      solverHash,
      instanceHash: inst.hash,
      timeoutS,
      memMb: req.memMb,
      checkProofs: req.checkProofs,
      ...(req.maxOutputMb !== undefined ? { maxOutputMb: req.maxOutputMb } : {}),
      isolation: req.isolation?.mode ?? 'bwrap',
      ...(req.session ? { session: req.session } : {}),
      limits: limitsOf(req.isolation ?? {}),
      ...(req.requireProofs ? { requireProofs: true } : {}),
    });
    const prev = stored.get(key);
    // A stored verdict is reused only if it was reached against the answer known now: a wrong answer
    // is always measured again (meta.csv may have been corrected), and so is any run whose expected
    // answer differs from meta.csv's, or was a claim where it is proved now (or the other way round). Where proofs are kept for the audits, an UNSAT answer is reused
    // only with its evidence: its proof checked, or kept in this stage's hold (a resumed race).
    if (
      prev &&
      prev.result.status !== 'wrong' &&
      (spec.expected === null || (spec.expected === prev.result.expected && (spec.proved ? 'meta' : 'claim') === prev.result.expected_from)) &&
      (!req.requireProofs?.hold || evidenceAtHand(prev.result, req.requireProofs.hold))
    ) {
      const r = { ...prev.result, instance: spec.name, family: spec.family, expected: spec.expected ?? prev.result.expected };
      results.set(spec.name, r);
      reused++;
      req.onResult?.(r, ++done, req.instances.length, true);
      continue;
    }
    const known = spec.expected ?? (await req.store.verifiedAnswer(inst.hash, solverHash)) ?? null;
    todo.push({
      key,
      name: spec.name,
      cnf: inst.plain,
      instanceHash: inst.hash,
      vars: inst.vars,
      emptyClause: inst.emptyClause,
      family: spec.family,
      expected: known,
      expectedFrom: spec.expected ? (spec.proved ? 'meta' : 'claim') : known ? 'vbs' : 'none',
      ...(req.logDir ? { logFile: runLogPath(req.logDir, solverHash, spec.name) } : {}),
      ...(timeoutS < req.timeoutS ? { timeoutS } : {}),
      expectedTime: (await req.store.expectedTime(inst.hash)) ?? Infinity,
    });
  }
  // Longest expected first keeps the slots busy to the end; never-seen instances go first.
  todo.sort((a, b) => b.expectedTime - a.expectedTime);
  const {
    instances: _i,
    jobs: _j,
    cache: _c,
    store: _s,
    onResult: _o,
    onStatus,
    logDir: _l,
    runner,
    buildTimeoutS,
    caps: _caps,
    session: _session,
    identity: _id,
    between,
    ...settings
  } = req;
  const on = runner ?? localRunner('local', req.scratchDir ? { scratchDir: req.scratchDir } : {});
  const hold = req.requireProofs?.hold ?? null;
  await on.run(
    {
      settings,
      solverHash,
      tasks: todo,
      jobs: req.jobs,
      ...(buildTimeoutS ? { buildTimeoutS } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
      ...(onStatus ? { onStatus } : {}),
      ...(between ? { between } : {}),
    },
    async (task, got) => {
      // Where its proof is kept: the run that wrote it, the runner it is on, the hold it is in.
      const r = got.proof && hold ? { ...got, proof: { bytes: got.proof.bytes, kept: { run: task.key, runner: on.name, hold } } } : got;
      await req.store.add({ key: task.key, solver_hash: solverHash, instance_hash: task.instanceHash, at: new Date().toISOString(), result: r });
      results.set(task.name, r);
      req.onResult?.(r, ++done, req.instances.length, false);
    },
  );
  req.signal?.throwIfAborted();
  return { solverHash, results: req.instances.map((s) => results.get(s.name)!).filter(Boolean), reused };
}

/**
 * Whether a stored run can stand in for one in a stage that keeps proofs in `hold`: anything but an
 * UNSAT answer taken on trust can; such an answer only when its proof was checked or is kept in this
 * very hold. Otherwise the run is measured again, so that every answer a decision counts can be
 * checked from the proof of the run that gave it.
 */
export function evidenceAtHand(r: InstanceResult, hold: string): boolean {
  if (r.status !== 'solved' || r.answer !== 'UNSAT' || r.check.ok === true) return true;
  return r.proof?.kept?.hold === hold;
}
