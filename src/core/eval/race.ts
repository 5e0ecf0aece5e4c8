// The race's rules (ARCHITECTURE.md, "The path of a cycle", evaluate). A cycle's challengers and the
// champion run the perf set side by side in one session, instance by instance (duel.ts measureTogether),
// so every challenger is paired with the same champion run and a session's drift cancels in every pair.
// This file holds the pure parts: the order (a cross-section of the set by the champion's times, so any
// prefix is a sample of easy and hard alike), the caps (a multiple of the champion's time: adaptive
// capping), and the futility rule that drops a challenger once its pairs say it is not the gain the race
// is for. Racing only ever drops: a promotion is decided on the full set's pairs, by the paired test
// (compare.ts), after the last instance, so dropping cannot make a challenger win (futility stopping
// leaves the false-promotion rate as it is) and no alpha is spent on looks.
import { z } from 'zod';
import type { RacingConfig } from '../config/schema';
import type { InstanceResult } from '../run/result';
import { logRatios, normalQuantile, ratioTest } from './compare';
import { basisOf, par2Of, type TimeBasis } from './metrics';

/** What a race orders and caps by. */
export interface RacePolicy {
  racing: RacingConfig;
  on: TimeBasis;
  /** The champion's PAR-2 contribution per instance (on `on`), from its latest measurement at the same limits. */
  reference: ReadonlyMap<string, number>;
}

/** A challenger's race, kept in its evaluation document and its duel. Fields marked "older" are read from documents of before the one-session race. */
export const RaceDoc = z.object({
  /** rejected early: dropped before the set's end; survived: every instance ran (capped ones again in full). */
  outcome: z.enum(['rejected early', 'survived']),
  on: z.enum(['wall', 'cpu']),
  /** Instances it ran, of the perf set's. */
  ran: z.number().int().nonnegative(),
  of: z.number().int().nonnegative(),
  /** Runs stopped at their cap (a multiple of the champion's time). */
  capped: z.number().int().nonnegative(),
  /** The race's session (its duel is `.satlution/duels/<session>.json`); absent in older documents. */
  session: z.string().optional(),
  /** Challengers in the race (the champion not counted); absent in older documents. */
  entrants: z.number().int().positive().optional(),
  /** The challenger's geometric-mean speed-up over the champion on the pairs it has, percent (positive: faster). */
  speedup_pct: z.number().optional(),
  /** How many times likelier its pairs were under "no faster than the champion" than under "detect_gain_pct faster" (the futility rule's likelihood ratio); null before the first look. */
  odds: z.number().nullable().optional(),
  /** The likelihood ratio at which the race drops (1 / FUTILITY_BETA when it ran). */
  drop_odds: z.number().optional(),
  /** Older documents: the most it could be faster at the futility rule's confidence when it was dropped, percent. */
  upper_pct: z.number().nullable().optional(),
  /** The gain the race is for (racing.detect_gain_pct). */
  detect_gain_pct: z.number().optional(),
  /** The champion's re-runs (older documents). */
  champion_reruns: z.number().int().nonnegative().default(0),
  /** Sums over the instances both ran, seconds (the challenger's capped runs count their cap). */
  challenger_s: z.number().nonnegative(),
  champion_s: z.number().nonnegative(),
  /** Older documents: the champion's whole-set total, the threshold, margin and band of the old rule. */
  champion_total_s: z.number().nonnegative().optional(),
  threshold_s: z.number().nonnegative().optional(),
  margin_pct: z.number().nonnegative().optional(),
  band_pct: z.number().nonnegative().optional(),
  /** A rejected challenger's PAR-2 extrapolated from its pairs (its time ratio to the champion there, times the champion's stored PAR-2). */
  estimated_par2: z.number().nonnegative().nullable(),
  /** CPU seconds (else wall) the challenger's runs took. */
  spent_s: z.number().nonnegative(),
  reason: z.string(),
});
export type RaceDoc = z.infer<typeof RaceDoc>;

/**
 * Run order: a stratified cross-section, so that any prefix is a fair sample of the set. Within each
 * family (meta.csv's; one family when there are none): instances the champion has no time for first,
 * then the rest, each part taken in bit-reversed rank order (van der Corput) of the champion's times
 * (of the names where there are no times): the median first, then the quartiles, the octiles, ..., so
 * the first 1, 3, 7, ... spread evenly over the range of difficulty and the very longest come late (a
 * race that starts with the longest instance has spent a sixth of a 44-instance evaluation on its
 * first pair). The families are then interleaved in proportion to their sizes, so a look
 * after k instances has seen every family about k / N of its size: a change that helps one family and
 * is neutral on another is not judged on either alone. A challenger dropped after k instances cost
 * about k / N of an evaluation.
 */
export function raceOrder<T extends { name: string; family?: string | null }>(instances: readonly T[], reference: ReadonlyMap<string, number>): T[] {
  const w = (n: string) => reference.get(n) ?? Infinity;
  const families = new Map<string, T[]>();
  for (const i of instances) families.set(i.family ?? '', [...(families.get(i.family ?? '') ?? []), i]);
  const within = [...families.entries()].sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b)).map(([, members]) => {
    const sorted = [...members].sort((a, b) => w(b.name) - w(a.name) || a.name.localeCompare(b.name));
    return [...crossSection(sorted.filter((i) => !reference.has(i.name))), ...crossSection(sorted.filter((i) => reference.has(i.name)))];
  });
  // Interleave: next from the family that has had the smallest share of its members so far (ties: the larger family).
  const taken = within.map(() => 0);
  const out: T[] = [];
  while (out.length < instances.length) {
    let pick = -1;
    for (let f = 0; f < within.length; f++) if (taken[f]! < within[f]!.length && (pick < 0 || taken[f]! / within[f]!.length < taken[pick]! / within[pick]!.length)) pick = f;
    out.push(within[pick]![taken[pick]!++]!);
  }
  return out;
}

/** `ranked` in the order of ranks floor(x * n) for x = 1/2, 1/4, 3/4, 1/8, ... (the radical inverse of k = 1, 2, ... in base 2), skipping ranks seen. */
function crossSection<T>(ranked: readonly T[]): T[] {
  const seen = new Set<number>();
  const out: T[] = [];
  for (let k = 1; out.length < ranked.length; k++) {
    let x = 0;
    for (let f = 0.5, j = k; j > 0; j >>= 1, f /= 2) if (j & 1) x += f;
    const at = Math.floor(x * ranked.length);
    if (!seen.has(at)) (seen.add(at), out.push(ranked[at]!));
  }
  return out;
}

/** The fewest pairs a look may judge on: min_instances, and at least one instance of each family in the order. */
export function firstLook(instances: readonly { family?: string | null }[], minInstances: number): number {
  return Math.max(2, minInstances, new Set(instances.map((i) => i.family ?? '')).size);
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

/**
 * The futility rule's error: a challenger truly `detect_gain_pct` faster is dropped in at most about this
 * share of races (Wald's bound for the sequential probability ratio test; the simulator measures it with
 * the noise estimated as the race goes, bench/decisions.ts).
 */
export const FUTILITY_BETA = 0.02;

/** The judgement of one challenger at one look. */
export interface FutilityCall {
  drop: boolean;
  /** Its geometric-mean speed-up so far, percent (positive: faster). */
  speedupPct: number;
  /** How many times likelier its pairs are if it is no faster than the champion than if it is `detect_gain_pct` faster; null before the first look. */
  odds: number | null;
  reason: string;
}

/**
 * Drop a challenger once its pairs are 1 / FUTILITY_BETA times likelier under "no faster than the
 * champion" than under "`detect_gain_pct` faster": Wald's sequential probability ratio test of the mean
 * log time ratio (0 against log(1 - gain)), normal with unknown spread, from the first look
 * (min_instances pairs) on. A challenger no faster is dropped after about 2 log(1/beta) sigma^2 / log(1 -
 * gain)^2 pairs whatever the set's size (15 at 13% noise per pair: a third of 44 instances), sooner
 * when it is slower; one half-way is rarely dropped and runs to the end. The pairs are lower bounds
 * where its runs were capped (they can only make it look faster than it is, so a drop stays safe).
 */
export function futility(pairs: readonly { champion: number; challenger: number }[], of: number, racing: Pick<RacingConfig, 'min_instances' | 'detect_gain_pct'>): FutilityCall {
  const { n, mean, spread, speedupPct } = ratioStats(pairs);
  if (n < Math.max(2, racing.min_instances)) return { drop: false, speedupPct, odds: null, reason: '' };
  // The generalised likelihood ratio: each side with the spread that fits it best (so few pairs that
  // happen to agree cannot pass for a precise measurement: a common plug-in spread lost twice as many
  // winners), "no faster" at its best mean of 0 or more (so a clearly slower one goes at once).
  const d = Math.log(1 - racing.detect_gain_pct / 100);
  const none = Math.max(mean, 0);
  const llr = (n / 2) * Math.log((spread + n * (mean - d) ** 2) / Math.max(spread + n * (mean - none) ** 2, 1e-300));
  const odds = Math.exp(Math.min(llr, 700));
  const drop = llr >= Math.log(1 / FUTILITY_BETA);
  const target = racing.detect_gain_pct;
  const way = speedupPct >= 0 ? `${speedupPct.toFixed(1)}% faster` : `${(-speedupPct).toFixed(1)}% slower`;
  return { drop, speedupPct, odds, reason: drop ? `not the ${target}% gain the race is for: after ${n} of ${of} instances it is ${way} than the champion (geometric mean of the time ratios, same session), and its pairs are ${oddsText(odds)} times likelier if it is no faster than the champion than if it is ${target}% faster (the race drops at ${oddsText(1 / FUTILITY_BETA)})` : '' };
}

/** The pairs' log time ratios (challenger over champion): their count, mean, sum of squared deviations, and the mean as a speed-up, percent. */
function ratioStats(pairs: readonly { champion: number; challenger: number }[]): { n: number; mean: number; spread: number; speedupPct: number } {
  const r = logRatios(pairs.map((p) => p.champion), pairs.map((p) => p.challenger));
  const n = r.length;
  const mean = n ? r.reduce((s, x) => s + x, 0) / n : 0;
  return { n, mean, spread: r.reduce((s, x) => s + (x - mean) ** 2, 0), speedupPct: 100 * (1 - Math.exp(mean)) };
}

/** A likelihood ratio for people: whole numbers, "over a million" beyond. */
function oddsText(odds: number): string {
  return odds >= 1e6 ? 'over a million' : odds >= 10 ? String(Math.round(odds)) : odds.toFixed(1);
}

/** The held-out check's error per look (cycle/verdicts.ts heldOutStop): each end of speedupInterval is one-sided at 1 - INTERVAL_LEVEL. */
export const INTERVAL_LEVEL = 0.005;

/**
 * The challenger's geometric-mean speed-up over the champion on its pairs and the two-sided t-interval
 * of it at 1 - 2 * INTERVAL_LEVEL (each end one-sided at 1 - INTERVAL_LEVEL), percent; no interval
 * before `minInstances` pairs (at least two). The interval of the mean log time ratio, turned into speed-ups.
 */
export function speedupInterval(pairs: readonly { champion: number; challenger: number }[], minInstances: number): { n: number; speedupPct: number; lowerPct: number | null; upperPct: number | null } {
  const { n, mean, spread, speedupPct } = ratioStats(pairs);
  if (n < Math.max(2, minInstances)) return { n, speedupPct, lowerPct: null, upperPct: null };
  const sd = Math.sqrt(spread / (n - 1));
  const half = tQuantile(1 - INTERVAL_LEVEL, n - 1) * Math.max(sd / Math.sqrt(n), 1e-12);
  return { n, speedupPct, lowerPct: 100 * (1 - Math.exp(mean + half)), upperPct: 100 * (1 - Math.exp(mean - half)) };
}

/** Student's t quantile with `df` degrees of freedom (Cornish-Fisher expansion around the normal one; within 1% from 3 df on). */
export function tQuantile(p: number, df: number): number {
  const z = normalQuantile(p);
  if (!Number.isFinite(df) || df > 1e6) return z;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  const z9 = z ** 9;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) + (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4);
}

/** The basis a look judges on: CPU only where every run of its pairs has a CPU time (metrics.ts basisOf). */
const pairsBasis = (on: TimeBasis, pairs: readonly { a: InstanceResult; b: InstanceResult }[]): TimeBasis => basisOf(on, pairs.flatMap((p) => [p.a, p.b]));

/** The session's look (raceRuns.ts) for a race: drop a challenger when futility says so, judged on its pairs' PAR-2 times (capped runs at their cap). */
export function raceLook(policy: RacePolicy, of: number, timeoutS: number): (side: string, pairs: readonly { a: InstanceResult; b: InstanceResult; capS: number }[]) => string | undefined {
  return (_side, pairs) => {
    const on = pairsBasis(policy.on, pairs);
    const call = futility(pairs.map((p) => ({ champion: par2Of(p.a, timeoutS, on), challenger: lowerBound(p.b, p.capS, timeoutS, on) })), of, policy.racing);
    return call.drop ? call.reason : undefined;
  };
}

/**
 * The race's last word on a survivor with capped runs (raceRuns.ts settle): it cannot be promoted if,
 * with each capped run counted at its cap, its PAR-2 is not below the champion's or the ratio test
 * (compare.ts, the promotion's) does not reach `level`. Both only get worse as a run gets longer (the
 * sign-flip p of "faster" cannot fall when a ratio grows), so its capped runs need not run again.
 */
export function raceSettle(policy: RacePolicy, timeoutS: number, level: number): (side: string, pairs: readonly { a: InstanceResult; b: InstanceResult; capS: number }[]) => string | undefined {
  return (_side, pairs) => {
    const on = pairsBasis(policy.on, pairs);
    const ta = pairs.map((p) => par2Of(p.a, timeoutS, on));
    const tb = pairs.map((p) => lowerBound(p.b, p.capS, timeoutS, on));
    const capped = pairs.filter((p) => p.b.status === 'timeout' && p.capS < timeoutS).length;
    const [sa, sb] = [ta.reduce((t, x) => t + x, 0), tb.reduce((t, x) => t + x, 0)];
    const test = ratioTest(logRatios(ta, tb), 20000, 1);
    const counted = `with its ${capped} capped run${capped === 1 ? '' : 's'} counted at the cap`;
    if (sb >= sa) return `cannot win: ${counted}, its PAR-2 is already ${sa > 0 ? `${((100 * (sb - sa)) / sa).toFixed(1)}% ` : ''}above the champion's, and longer runs only raise it`;
    if (test.pFaster >= level) return `cannot win: ${counted}, the ratio test gives p = ${test.pFaster.toPrecision(2)} against the ${level.toPrecision(2)} a promotion needs, and longer runs only raise it`;
    return undefined;
  };
}

/** The held-out check's judgement on the pairs so far: faster there, slower there, or not yet known. */
export interface HeldOutCall {
  stop: boolean;
  /** true: slower on the held-out set (a veto); false: faster there; undefined: not known yet. */
  slower: boolean | undefined;
  speedupPct: number;
  reason: string;
}

/**
 * The held-out check, sequential (cycle/engine.ts): the winner and the champion side by side on the
 * held-out set, stopped as soon as a t-interval of the mean log time ratio at 1 - INTERVAL_LEVEL lies
 * wholly on one side of 0, from `minInstances` pairs on. A winner clearly faster there needs no more
 * runs; one clearly slower is vetoed at once; one in between runs the whole set.
 */
export function heldOutCall(pairs: readonly { champion: number; challenger: number }[], of: number, minInstances: number): HeldOutCall {
  const { n, speedupPct, lowerPct: lo, upperPct: hi } = speedupInterval(pairs, minInstances);
  const conf = `${(100 * (1 - INTERVAL_LEVEL)).toFixed(1)}%`;
  if (lo !== null && lo > 0) return { stop: true, slower: false, speedupPct, reason: `after ${n} of ${of} instances ${speedupPct.toFixed(1)}% faster (geometric mean), at least ${lo.toFixed(1)}% at ${conf} confidence` };
  if (hi !== null && hi < 0) return { stop: true, slower: true, speedupPct, reason: `after ${n} of ${of} instances ${(-speedupPct).toFixed(1)}% slower (geometric mean), at least ${(-hi).toFixed(1)}% at ${conf} confidence` };
  return { stop: false, slower: undefined, speedupPct, reason: '' };
}

/** The held-out check as a duel's stop rule (duel.ts stopWhen): stop the session once heldOutCall can tell. */
export function heldOutLook(of: number, timeoutS: number, on: TimeBasis, minInstances: number): (pairs: readonly { a: InstanceResult; b: InstanceResult }[]) => string | undefined {
  return (pairs) => {
    const basis = pairsBasis(on, pairs);
    const call = heldOutCall(pairs.map((p) => ({ champion: par2Of(p.a, timeoutS, basis), challenger: par2Of(p.b, timeoutS, basis) })), of, minInstances);
    return call.stop ? call.reason : undefined;
  };
}
