// Evaluates one solver on one instance set: prepares the instances (hash, validate, decompress),
// reuses stored results, runs the rest longest-expected-first on the local pool, and records each
// result the moment its run ends.
import { InstanceCache, type InstanceSpec, type PreparedInstance } from '../bench/instances';
import { runPool } from '../runners/pool';
import type { InstanceResult } from './result';
import { hashSolver, ResultsStore, runKey } from './resultsStore';
import { runInstance, type RunSettings } from './runInstance';
import { runLogPath } from './runLog';

export interface EvalRequest extends RunSettings {
  instances: InstanceSpec[];
  jobs: number;
  cache: InstanceCache;
  store: ResultsStore;
  /** Write each run's log to <logDir>/<solver hash>/<instance>.log (runLog.ts); none when absent. */
  logDir?: string;
  onResult?: (r: InstanceResult, done: number, total: number, reused: boolean) => void;
}

export interface EvalOutcome {
  solverHash: string;
  results: InstanceResult[];
  /** Results taken from earlier runs with the same key (resumed, or an identical binary). */
  reused: number;
}

export async function evaluate(req: EvalRequest): Promise<EvalOutcome> {
  const solverHash = await hashSolver(req.solverDir);
  const prepared = new Map<string, PreparedInstance>();
  await runPool(req.instances, req.jobs, async (spec) => void prepared.set(spec.name, await req.cache.prepare(spec.file)), req.signal);
  await req.cache.save();
  req.signal?.throwIfAborted();
  const stored = await req.store.load();
  const results = new Map<string, InstanceResult>();
  let done = 0;
  let reused = 0;
  const todo: { spec: InstanceSpec; inst: PreparedInstance; key: string; expected: number }[] = [];
  for (const spec of req.instances) {
    const inst = prepared.get(spec.name)!;
    const key = runKey({ solverHash, instanceHash: inst.hash, timeoutS: req.timeoutS, memMb: req.memMb, checkProofs: req.checkProofs });
    const prev = stored.get(key);
    if (prev) {
      const r = { ...prev.result, instance: spec.name, family: spec.family, expected: spec.expected ?? prev.result.expected };
      results.set(spec.name, r);
      reused++;
      req.onResult?.(r, ++done, req.instances.length, true);
    } else todo.push({ spec, inst, key, expected: (await req.store.expectedTime(inst.hash)) ?? Infinity });
  }
  // Longest expected first keeps the pool busy to the end; never-seen instances go first.
  todo.sort((a, b) => b.expected - a.expected);
  await runPool(
    todo,
    req.jobs,
    async ({ spec, inst, key }) => {
      const known = spec.expected ?? (await req.store.verifiedAnswer(inst.hash, solverHash)) ?? null;
      const { instances: _i, jobs: _j, cache: _c, store: _s, onResult: _o, logDir, ...settings } = req;
      const logFile = logDir ? runLogPath(logDir, solverHash, spec.name) : undefined;
      const r = await runInstance({
        ...(logFile ? { logFile } : {}),
        ...settings,
        name: spec.name,
        cnf: inst.plain,
        vars: inst.vars,
        emptyClause: inst.emptyClause,
        family: spec.family,
        expected: known,
        expectedFrom: spec.expected ? 'meta' : known ? 'vbs' : 'none',
      });
      await req.store.add({ key, solver_hash: solverHash, instance_hash: inst.hash, at: new Date().toISOString(), result: r });
      results.set(spec.name, r);
      req.onResult?.(r, ++done, req.instances.length, false);
    },
    req.signal,
  );
  req.signal?.throwIfAborted();
  return { solverHash, results: req.instances.map((s) => results.get(s.name)!).filter(Boolean), reused };
}
