// Between-session drift: one binary measured at two moments differs by more than side-by-side noise,
// because the machine's speed moves as a whole (on a 2-core VM, CPU PAR-2 by up to 20%
// between sessions a minute apart at equal load). The calibration band cannot see it (both sides of
// its duel share the moment), and two separate measurements alone cannot estimate it. So the workspace
// records it each time it measures its champion again on the perf set (a decision duel, a calibration):
// the stored evaluation against the new measurement is a free A/A pair of separate measurements.
// `satlution compare` on two separate results calls nothing within the drift recorded (the upper median
// of the observations: the largest would grow with every observation, a tail of tails).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { STATE_DIR } from '../layout';
import type { InstanceResult } from '../run/result';
import { writeJsonAtomic } from '../store/atomic';
import { differentLoad, relativeInterval } from './comparison';
import { measuredInFull } from '../eval/evalDoc';
import { EvalStore } from '../eval/evalStore';
import { basisOf, type TimeBasis } from '../eval/metrics';

/** One A/A pair of separate measurements: the champion's stored evaluation and a later measurement of the same binary. */
export const DriftObservation = z.object({
  at: z.string(),
  /** The candidate measured (SATLUTION_<n>) and where the second measurement came from. */
  solver: z.string(),
  from: z.enum(['decision', 'calibration']),
  on: z.enum(['wall', 'cpu']),
  /** Instances both measurements ran. */
  n: z.number().int().positive(),
  /** The later measurement's PAR-2 minus the stored one's, percent of the stored one. */
  diff_pct: z.number(),
  /** The larger end of the 99% CI of that difference, percent: what separate measurements of one binary can differ by. */
  drift_pct: z.number().nonnegative(),
});
export type DriftObservation = z.infer<typeof DriftObservation>;

/** `.satlution/drift.json`: the observations, oldest first, the last MAX_OBSERVATIONS kept. */
export const DriftDoc = z.object({ version: z.literal(1), observations: z.array(DriftObservation) });
export type DriftDoc = z.infer<typeof DriftDoc>;

const MAX_OBSERVATIONS = 100;
/** Fewer common instances than this say nothing about a whole session's speed. */
const MIN_COMMON = 5;

export const driftFile = (ws: string): string => path.join(ws, STATE_DIR, 'drift.json');

/** The workspace's drift record; undefined when there is none or it is damaged (it is rebuilt as the champion is measured again). */
export async function readDrift(ws: string): Promise<DriftDoc | undefined> {
  const p = DriftDoc.safeParse(
    await fs
      .readFile(driftFile(ws), 'utf8')
      .then((t) => JSON.parse(t) as unknown)
      .catch(() => undefined),
  );
  return p.success ? p.data : undefined;
}

/**
 * The drift between two separate measurements of one binary on `on`, or undefined when they cannot
 * show it: too few common instances, nothing solved, or runs that got clearly different shares of the
 * CPU (that is other programs' load, which compare refuses on its own; recording it would let one busy
 * afternoon blind every later comparison).
 */
export function driftOf(
  stored: readonly InstanceResult[],
  now: readonly InstanceResult[],
  timeoutS: number,
  on: TimeBasis,
): Pick<DriftObservation, 'n' | 'diff_pct' | 'drift_pct'> | undefined {
  if (differentLoad(stored, now) || !stored.some((r) => r.status === 'solved') || !now.some((r) => r.status === 'solved')) return undefined;
  const r = relativeInterval(stored, now, timeoutS, on);
  if (r.n < MIN_COMMON || r.par2A <= 0) return undefined;
  const round = (x: number) => Math.round(100 * x) / 100;
  return { n: r.n, diff_pct: round(r.diff_pct), drift_pct: round(r.band_pct) };
}

/** Records one observation (if the two measurements can show drift); returns it. */
export async function recordDrift(
  ws: string,
  seen: { solver: string; from: DriftObservation['from']; stored: readonly InstanceResult[]; now: readonly InstanceResult[]; timeoutS: number; on: TimeBasis },
): Promise<DriftObservation | undefined> {
  // CPU only where both measurements have it for every run: never a drift of wall time filed as CPU.
  const on = basisOf(seen.on, [...seen.stored, ...seen.now]);
  const d = driftOf(seen.stored, seen.now, seen.timeoutS, on);
  if (!d) return undefined;
  const obs: DriftObservation = { at: new Date().toISOString(), solver: seen.solver, from: seen.from, on, ...d };
  const doc = (await readDrift(ws)) ?? { version: 1 as const, observations: [] };
  await fs.mkdir(path.dirname(driftFile(ws)), { recursive: true });
  await writeJsonAtomic(driftFile(ws), { version: 1, observations: [...doc.observations, obs].slice(-MAX_OBSERVATIONS) });
  return obs;
}

/**
 * After the champion in `dir` (a SATLUTION_<n> of the workspace, binary `hash`) was measured again on
 * the perf set: records the drift against its stored evaluation, if that is a full measurement of the
 * same binary at the same timeout.
 */
export async function recordChampionDrift(
  ws: string,
  seen: { dir: string; hash: string; from: DriftObservation['from']; now: readonly InstanceResult[]; timeoutS: number; on: TimeBasis },
): Promise<DriftObservation | undefined> {
  const name = path.basename(seen.dir);
  if (path.dirname(path.resolve(seen.dir)) !== path.resolve(ws) || !/^SATLUTION_\d+$/.test(name)) return undefined;
  const stored = await new EvalStore(ws).get(name);
  if (!stored || stored.solver_hash !== seen.hash || !measuredInFull(stored) || stored.timeout_s !== seen.timeoutS) return undefined;
  return recordDrift(ws, { solver: name, from: seen.from, stored: stored.instances, now: seen.now, timeoutS: seen.timeoutS, on: seen.on });
}

/**
 * The drift band on `on` (percent): the upper median of the observations' drift_pct, each already the end
 * of one pair's 99% interval, so a stable estimate of that end which, unlike the maximum, does not widen
 * as observations accumulate. With how many it rests on; undefined before the first.
 */
export function driftBand(doc: DriftDoc | undefined, on: TimeBasis): { pct: number; n: number } | undefined {
  const xs = (doc?.observations ?? [])
    .filter((x) => x.on === on)
    .map((x) => x.drift_pct)
    .sort((a, b) => a - b);
  return xs.length ? { pct: xs[Math.floor(xs.length / 2)]!, n: xs.length } : undefined;
}
