// Multi-fidelity evaluation (stages.perf.tiers): a candidate is measured on a cheap tier first (a
// fixed share of the perf set, a shorter timeout) and goes on to the next tier only when its PAR-2
// there ranks in the tier's top share of every candidate measured in it; the last tier is the full
// perf stage. Measurements are compared within a tier only, so a candidate that stopped early can
// never be promoted on a cheap number. `.satlution/tiers.jsonl` keeps every tier result.
import * as path from 'node:path';
import { z } from 'zod';
import type { Tier } from '../config/schema';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { STATE_DIR } from '../layout';
import type { StagePlan } from './gates';

export const TierRecord = z.object({
  at: z.string(),
  candidate: z.number().int().nonnegative(),
  /** 1 = the cheapest. */
  tier: z.number().int().positive(),
  fraction: z.number().gt(0).max(1),
  timeout_s: z.number().positive(),
  /** null: the candidate failed a gate in this tier. */
  par2: z.number().nonnegative().nullable(),
  promoted: z.boolean(),
  rank: z.number().int().positive().nullable(),
  of: z.number().int().nonnegative(),
});
export type TierRecord = z.infer<typeof TierRecord>;

export const tiersFile = (ws: string) => path.join(ws, STATE_DIR, 'tiers.jsonl');

export async function readTiers(ws: string): Promise<TierRecord[]> {
  const { records } = await readJsonLines(tiersFile(ws));
  return records.flatMap((r) => {
    const p = TierRecord.safeParse(r);
    return p.success ? [p.data] : [];
  });
}

/** The perf plans of each tier, cheapest first; the last is the perf stage itself. */
export function tierPlans(perf: StagePlan, tiers: readonly Tier[]): StagePlan[] {
  return [...tiers.map((t, i) => ({ ...perf, timeoutS: t.timeout_s, fraction: t.fraction, tier: i + 1 })), { ...perf, tier: tiers.length + 1 }];
}

/** 1-based rank of `par2` among the others' (ties share the better rank). */
export function rankAmong(par2: number, others: readonly number[]): { rank: number; of: number } {
  return { rank: others.filter((x) => x < par2).length + 1, of: others.length + 1 };
}

/** Goes on when ranked within the top share (at least the best always does). */
export function promotes(rank: number, of: number, top: number): boolean {
  return rank <= Math.max(1, Math.ceil(top * of));
}

/** Records a tier result and decides promotion against the latest result of every other candidate in that tier. */
export async function recordTier(ws: string, o: { candidate: number; plan: StagePlan; par2: number | null; top: number | null }): Promise<TierRecord> {
  const tier = o.plan.tier ?? 1;
  const latest = new Map<number, TierRecord>();
  for (const r of await readTiers(ws)) if (r.tier === tier && r.candidate !== o.candidate && r.timeout_s === o.plan.timeoutS) latest.set(r.candidate, r);
  const others = [...latest.values()].flatMap((r) => (r.par2 === null ? [] : [r.par2]));
  const ranked = o.par2 === null ? null : rankAmong(o.par2, others);
  // top null: the last tier, or a reference measurement (the champion always goes the whole way).
  const promoted = o.par2 !== null && (o.top === null || promotes(ranked!.rank, ranked!.of, o.top));
  const rec: TierRecord = {
    at: new Date().toISOString(),
    candidate: o.candidate,
    tier,
    fraction: o.plan.fraction ?? 1,
    timeout_s: o.plan.timeoutS,
    par2: o.par2,
    promoted,
    rank: ranked?.rank ?? null,
    of: ranked?.of ?? others.length,
  };
  await appendJsonLine(tiersFile(ws), rec);
  return rec;
}
