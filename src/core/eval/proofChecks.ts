// Checking the proofs that measured runs kept (run/keptProof.ts), for the audits: the perf audit's
// random sample (audit.ts), the promotion audit and the held-out check (decide/promotionAudit.ts). Each
// proof is checked where its run ran (the runner that kept it), against the instance it was given, and
// what it shows is recorded on that run in the results store, so the run carries its evidence from then
// on. Releasing a hold is how the holder says that no decision will check its proofs any more.
import type { InstanceCache, InstanceSpec } from '../instances/instances';
import type { InstanceResult } from '../run/result';
import { localRunner } from '../runners/local';
import type { ProofBatch, ProofTask, Runner } from '../runners/runner';
import type { ResultsStore } from './resultsStore';

/** Where kept proofs are found, and how each runner's batch of them is checked (drat-trim, its limits, parallel checks). */
export interface KeptProofContext extends Omit<ProofBatch, 'hold' | 'tasks'> {
  cache: InstanceCache;
  store: ResultsStore;
  /** Resolves the runner a run kept its proof on; without it, the local one. */
  runners?: (name: string) => Runner;
  /** evaluation.scratch_dir: where the local runner keeps proofs. */
  scratchDir?: string;
}

/** The runner named `name`, as the context resolves it. */
export function runnerOf(ctx: Pick<KeptProofContext, 'runners' | 'scratchDir'>, name: string): Runner {
  return ctx.runners ? ctx.runners(name) : localRunner(name, ctx.scratchDir ? { scratchDir: ctx.scratchDir } : {});
}

/** A result whose run kept no proof for this check: it stands unproved (check `ok` null), saying why. */
const unkept = (r: InstanceResult): InstanceResult => ({
  ...r,
  check: {
    kind: 'drat',
    ok: null,
    time_s: 0,
    detail: r.proof ? 'the proof its run wrote was not kept for the audits' : 'its run wrote no proof that was kept',
  },
});

/**
 * Checks the kept proof of each result (UNSAT answers of measured runs) and returns each result as its
 * proof judges it, by instance name: verified (check ok), a lie (invalid_proof), or unproved (check ok
 * null: not checked in time, or no proof kept). Each verdict is recorded on its run in the store.
 */
export async function checkKeptProofs(
  ctx: KeptProofContext,
  results: readonly InstanceResult[],
  instances: readonly InstanceSpec[],
): Promise<Map<string, InstanceResult>> {
  const out = new Map<string, InstanceResult>();
  const files = new Map(instances.map((i) => [i.name, i.file]));
  const groups = new Map<string, { runner: string; hold: string; tasks: ProofTask[] }>();
  for (const r of results) {
    const kept = r.proof?.kept;
    const file = files.get(r.instance);
    if (!kept || !file) {
      out.set(r.instance, unkept(r));
      continue;
    }
    const inst = await ctx.cache.prepare(file);
    const id = JSON.stringify([kept.runner, kept.hold]);
    const g = groups.get(id) ?? { runner: kept.runner, hold: kept.hold, tasks: [] };
    g.tasks.push({ key: kept.run, name: r.instance, cnf: inst.plain, instanceHash: inst.hash, result: r });
    groups.set(id, g);
  }
  await ctx.cache.save();
  for (const g of groups.values()) {
    const { cache: _c, store: _s, runners: _r, scratchDir: _d, ...batch } = ctx;
    await runnerOf(ctx, g.runner).checkKept({ ...batch, hold: g.hold, tasks: g.tasks }, async (task, judged) => {
      await ctx.store.settle(task.key, judged);
      out.set(task.name, judged);
    });
  }
  ctx.signal?.throwIfAborted();
  return out;
}

/** Releases `hold` on every runner named (best effort: a host that cannot be reached keeps its copy until its own sweep), saying what failed. */
export async function releaseProofs(
  ctx: Pick<KeptProofContext, 'runners' | 'scratchDir'>,
  hold: string,
  runnerNames: readonly string[],
  keys?: readonly string[],
): Promise<string[]> {
  const errors: string[] = [];
  for (const name of new Set(runnerNames)) {
    try {
      await runnerOf(ctx, name).release(hold, keys);
    } catch (e) {
      errors.push(`${name}: ${(e as Error).message}`);
    }
  }
  return errors;
}
