// Racing with adaptive capping (irace's racing; ParamILS's and SMAC's adaptive capping): a challenger's
// perf runs go first through a sample spread over the champion's times (the decision window), then
// longest first, each capped at a multiple of the champion's time on that instance, and stop as soon as
// the challenger cannot beat the champion by the margin. The
// rule is deliberately one-sided: racing may only reject. A challenger that survives is measured in
// full and then again side by side with the champion (duel.ts) before any promotion, so a cap or an
// early stop can never make a candidate win. Pure functions; gates.ts drives the runs.
import { z } from 'zod';
import type { RacingConfig } from '../config/schema';
import type { InstanceResult } from '../run/result';
import { par2Of, type TimeBasis } from './metrics';

/** What a race compares with, and how strictly. */
export interface RacePolicy {
  /** The champion's PAR-2 contribution per instance (on `on`), from its latest measurement at the same limits. */
  reference: ReadonlyMap<string, number>;
  on: TimeBasis;
  racing: RacingConfig;
  /** The promotion margin in force (percent): max(min_improvement_pct, noise band). */
  marginPct: number;
  /** The calibrated noise band (percent of PAR-2), 0 when not calibrated. */
  bandPct: number;
  /** The champion's directory: the decision window's blocks run it again in the same session (raceRuns.ts). */
  championDir?: string;
}

/** The race's outcome, kept in the evaluation document. */
export const RaceDoc = z.object({
  /** rejected early: the runs stopped here; survived: every instance ran and capped ones ran again in full. */
  outcome: z.enum(['rejected early', 'survived']),
  on: z.enum(['wall', 'cpu']),
  /** Instances run before the decision, of the perf set's. */
  ran: z.number().int().nonnegative(),
  of: z.number().int().nonnegative(),
  /** Runs stopped at their cap (a multiple of the champion's time). */
  capped: z.number().int().nonnegative(),
  /** The champion's runs in the race's decision window (same session, so drift cannot decide). */
  champion_reruns: z.number().int().nonnegative().default(0),
  /** The challenger's lower bound on the instances it ran (capped runs count their cap), seconds summed. */
  challenger_s: z.number().nonnegative(),
  /** The champion's time on the same instances, and on the whole set (seconds summed, PAR-2 contributions). */
  champion_s: z.number().nonnegative(),
  champion_total_s: z.number().nonnegative(),
  /** What the challenger had to stay under on those instances to stay in the race. */
  threshold_s: z.number().nonnegative(),
  margin_pct: z.number().nonnegative(),
  band_pct: z.number().nonnegative(),
  /** A rejected challenger's PAR-2 extrapolated from the race (a lower bound ratio times the champion's PAR-2). */
  estimated_par2: z.number().nonnegative().nullable(),
  /** CPU seconds (else wall) the race's runs took, the champion's re-runs included. */
  spent_s: z.number().nonnegative(),
  reason: z.string(),
});
export type RaceDoc = z.infer<typeof RaceDoc>;

/**
 * Run order: instances the champion has no time for first (they cannot be judged, only run); then the
 * decision window's sample, every k-th instance by the champion's times with k = 1 / min_share, so the
 * window is a cross-section of the set (easy and hard alike) that reaches min_share with little
 * overshoot (the window runs the champion too: every instance past min_share costs twice); then the rest
 * longest first, so the instances that weigh most in PAR-2 come early for the hopeless rule.
 */
export function raceOrder<T extends { name: string }>(instances: readonly T[], reference: ReadonlyMap<string, number>, minShare = 1): T[] {
  const w = (n: string) => reference.get(n) ?? Infinity;
  const sorted = [...instances].sort((a, b) => w(b.name) - w(a.name) || a.name.localeCompare(b.name));
  const unknown = sorted.filter((i) => !reference.has(i.name));
  const known = sorted.filter((i) => reference.has(i.name));
  const k = Math.max(1, Math.round(1 / minShare));
  return [...unknown, ...known.filter((_, j) => j % k === 0), ...known.filter((_, j) => j % k !== 0)];
}

/** The challenger's time limit on an instance: cap_factor times the champion's time, never under the floor nor over the timeout. */
export function capFor(reference: number | undefined, timeoutS: number, racing: RacingConfig): number {
  // The champion did not solve it (2T) or has no time for it: no cap, the instance may be where the challenger shines.
  if (reference === undefined || reference >= timeoutS) return timeoutS;
  const cap = Math.max(racing.cap_floor_s, racing.cap_factor * reference);
  return cap >= timeoutS ? timeoutS : Math.ceil(cap * 1000) / 1000;
}

/** A run's least possible PAR-2 contribution: a capped run needed at least its cap, an unsolved one counts 2T. */
export function lowerBound(r: InstanceResult, capS: number, timeoutS: number, on: TimeBasis): number {
  if (r.status === 'timeout' && capS < timeoutS) return capS;
  return par2Of(r, timeoutS, on);
}

/** The race so far: each judged instance's challenger lower bound and champion time. */
export interface RaceProgress {
  runs: { lb: number; ref: number }[];
  /** Instances in the set (judged or not). */
  of: number;
  /** The champion's total over every instance it has a time for. */
  championTotal: number;
}

/** Stop or go on, with the numbers behind it. */
export interface RaceCall {
  stop: boolean;
  reason: string;
  challengerS: number;
  championS: number;
  thresholdS: number;
}

/**
 * The racing rule. Winning needs a PAR-2 at least the margin m below the champion's; with noise band b
 * (calibrated on the whole set of N instances):
 * - hopeless (checked after every block): the challenger's lower bounds already exceed (1 - m)(1 + b)
 *   times the champion's whole-set total: even solving every remaining instance in no time, it cannot win;
 * - no faster (once the n instances run carry min_share of the champion's total and at least
 *   min_instances): on those instances its lower bounds exceed (1 - m + b') times the champion's, where
 *   b' = b * sqrt(N / n) is the band widened for the smaller sample (the noise of a sum of n runs, relative
 *   to it, shrinks as 1 / sqrt(n)): it is not even m - b' faster on a cross-section of the set.
 */
export function raceCall(p: RaceProgress, policy: Pick<RacePolicy, 'racing' | 'marginPct' | 'bandPct'>, o: { noFaster?: boolean } = {}): RaceCall {
  const m = policy.marginPct / 100;
  const b = policy.bandPct / 100;
  const challengerS = p.runs.reduce((s, r) => s + r.lb, 0);
  const championS = p.runs.reduce((s, r) => s + r.ref, 0);
  // A band over 100% of PAR-2 (a tiny or wildly noisy set) would make these negative: nothing can win then.
  const hopeless = Math.max(0, (1 - m) * (1 + b) * p.championTotal);
  if (p.championTotal > 0 && challengerS > hopeless)
    return { stop: true, reason: `cannot win: its first ${p.runs.length} runs already take ${challengerS.toFixed(2)} s, more than the ${hopeless.toFixed(2)} s the whole set allows (the champion's ${p.championTotal.toFixed(2)} s less the ${policy.marginPct.toFixed(1)}% margin)`, challengerS, championS, thresholdS: hopeless };
  const widened = p.runs.length ? b * Math.sqrt(Math.max(1, p.of / p.runs.length)) : b;
  const threshold = Math.max(0, (1 - m + widened) * championS);
  const covered = p.championTotal > 0 ? championS / p.championTotal : 0;
  if (o.noFaster !== false && p.runs.length >= policy.racing.min_instances && covered >= policy.racing.min_share && challengerS > threshold)
    return { stop: true, reason: `not faster where it counts: on the ${p.runs.length} instances carrying ${Math.round(100 * covered)}% of the champion's time it took at least ${challengerS.toFixed(2)} s against the champion's ${championS.toFixed(2)} s (it needed at most ${threshold.toFixed(2)} s to stay in the race: the ${policy.marginPct.toFixed(1)}% margin, less the ${(100 * widened).toFixed(1)}% band for ${p.runs.length} of ${p.of} instances)`, challengerS, championS, thresholdS: threshold };
  return { stop: false, reason: '', challengerS, championS, thresholdS: threshold };
}
