// The race's rules (ARCHITECTURE.md, "The path of a cycle", decide). A cycle's challengers and the
// champion run the perf set side by side in one session, instance by instance (measureTogether.ts),
// so every challenger is paired with the same champion run and a session's drift cancels in every pair.
// This file holds the pure parts: the order (a cross-section of the set by the champion's times, so any
// prefix is a sample of easy and hard alike), the caps (a multiple of the champion's time: adaptive
// capping), the futility rule that drops a challenger once its pairs say it cannot pass the promotion
// test at the end, and the further runs while its decision is in doubt (heldOut.ts holds the held-out
// check's rules). Racing only ever drops: a promotion is decided on the
// full set's pairs, by the promotion test (objectiveTest.ts), after the last instance, so dropping cannot
// make a challenger win (futility stopping leaves the false-promotion rate as it is) and no alpha is
// spent on looks.
import type { RacingConfig } from '../config/schema';
import type { InstanceResult } from '../run/result';
import { normalCdf, normalQuantile } from '../stats/normal';
import { pPhrase } from '../explain';
import { basisOf, par2Of, type TimeBasis } from '../eval/metrics';
import {
  AGAIN_RUNS,
  logRatios,
  gainAt,
  nearLimit,
  NOISE_FLOOR,
  NOISE_PRIOR,
  objectiveTest,
  RATIO_FLOOR_S,
  runNoise,
  varianceRelief,
  type RankBy,
  type TestNoise,
  type TestPair,
  type TestRun,
} from './objectiveTest';
import { passChance, solvedTimeout, type FinalTest, type LookPair } from './passChance';
import { familyAgain, type FamilyRule } from './familyCheck';

/** What a race orders and caps by. */
export interface RacePolicy {
  racing: RacingConfig;
  on: TimeBasis;
  /** The champion's PAR-2 contribution per instance (on `on`), from its latest measurement at the same limits. */
  reference: ReadonlyMap<string, number>;
}

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
  const within = [...families.entries()]
    .sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b))
    .map(([, members]) => {
      const sorted = [...members].sort((a, b) => w(b.name) - w(a.name) || a.name.localeCompare(b.name));
      return [...crossSection(sorted.filter((i) => !reference.has(i.name))), ...crossSection(sorted.filter((i) => reference.has(i.name)))];
    });
  // Interleave: next from the family that has had the smallest share of its members so far (ties: the larger family).
  const taken = within.map(() => 0);
  const out: T[] = [];
  while (out.length < instances.length) {
    let pick = -1;
    for (let f = 0; f < within.length; f++)
      if (taken[f]! < within[f]!.length && (pick < 0 || taken[f]! / within[f]!.length < taken[pick]! / within[pick]!.length)) pick = f;
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
    if (!seen.has(at)) {
      seen.add(at);
      out.push(ranked[at]!);
    }
  }
  return out;
}

/** The fewest pairs a look may judge on: min_instances, and at least one instance of each family in the order. */
export function firstLook(instances: readonly { family?: string | null }[], minInstances: number): number {
  return Math.max(2, minInstances, new Set(instances.map((i) => i.family ?? '')).size);
}

/** Each look takes at least this many more pairs than the one before: LOOK_GROWTH times as many. */
export const LOOK_GROWTH = 1.25;

/**
 * Whether a look at `n` pairs is one of the looks (the race's futility, the held-out check): the first
 * at `first`, each next one LOOK_GROWTH times as many pairs, and the last at `of`. Looks that grow
 * geometrically are few (9 on 44 instances from 8, 21 on 400), so the error each may spend is not cut
 * to nothing by sharing it among hundreds, and a gain carried by a minority of instances has run some
 * of them before its next look.
 */
export function isLook(n: number, first: number, of: number): boolean {
  return lookPoints(first, of).includes(n);
}

/** The looks' pair counts, first to last (isLook). */
export function lookPoints(first: number, of: number): number[] {
  const out: number[] = [];
  for (let n = Math.max(2, first); n < of; n = Math.max(n + 1, Math.ceil(n * LOOK_GROWTH))) out.push(n);
  out.push(of);
  return out;
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
 * The race drops a challenger once its chance to pass the promotion test at the set's end is under this
 * from DROP_FULL_SHARE of the set on, less at earlier looks (dropBelow). A winner's chance stays above
 * it at every look but in rare runs of bad luck; the simulator measures the winners lost
 * (bench/decisions.ts).
 */
export const DROP_BELOW = 0.25;

/** The share of the set run from which a look drops at the whole of DROP_BELOW. */
export const DROP_FULL_SHARE = 0.25;

/**
 * The drop threshold at a look after `n` of `of` instances: DROP_BELOW times the share run over
 * DROP_FULL_SHARE, and all of it from there on. An early look has seen few of the instances a gain may
 * sit in (the champion's timeouts a challenger solves, the hardest third), so on a large set, where the
 * first looks come after a few percent of it, it drops only a challenger that is nearly sure to fail;
 * once a quarter has run, the chance it computes is what it judges by. Measured (bench/decisions.ts,
 * 44 and 400 instances, 300-1,000 decisions each): growing to the end of the set kept no-gain
 * challengers running (a no-gain cycle at 44 instances cost 2.1 champion evaluations); the whole
 * threshold from the first look dropped a challenger that solves 24 more of 100 timeouts in 40% of
 * decisions; growing as the root of the share over a quarter, in 18% (linearly: 10%); linearly to a
 * fifth, in 13%, and a uniform 10% winner was promoted in 56% against 61%.
 */
export const dropBelow = (n: number, of: number): number => DROP_BELOW * Math.min(1, n / Math.max(1, of) / DROP_FULL_SHARE);

/**
 * The share of the PAR-2 margin a look asks of the gain it predicts. The margin is judged at the end on
 * runs a look does not see yet: where a significant gain falls under it, the instances that carry the
 * PAR-2 run again (raceAgain), and a real gain's first estimate that fell under the margin by bad luck
 * mostly clears it on the mean of both runs. A look that asked the whole margin of the first runs
 * dropped those winners early; one that asks less keeps no-gain challengers longer (bench/decisions.ts
 * measures both: docs/decisions.md).
 */
export const LOOK_MARGIN_SHARE = 0.6;

/** The judgement of one challenger at one look. */
export interface FutilityCall {
  drop: boolean;
  /** Its geometric-mean speed-up so far, percent (positive: faster). */
  speedupPct: number;
  /** Its chance to pass the promotion test at the end; null before the first look. */
  chance: number | null;
  reason: string;
}

/** A pair at a look, and whether the champion's stored run of its instance timed out (where a solved-more gain shows). */
export type SeenPair = LookPair & { timeout: boolean };

/** What a look needs besides the pairs: the set's size, the limit, the final test, and the first look. */
export interface LookContext {
  of: number;
  timeoutS: number;
  test: FinalTest;
  minInstances: number;
}

/**
 * Drop a challenger once its chance to pass the promotion test at the end of the set is under
 * DROP_BELOW (passChance.ts: the rest of the set predicted from its pairs, the champion's timeouts
 * apart), from `minInstances` pairs on. `rest`: the champion's stored PAR-2 time of each instance still
 * to run. Pairs are lower bounds where its runs were capped (they can only make it look better than it
 * is, so a drop stays safe).
 */
export function futility(seen: readonly SeenPair[], rest: readonly number[], look: LookContext): FutilityCall {
  const { n, speedupPct } = ratioStats(seen.map((p) => ({ champion: p.a, challenger: p.b })));
  // Between looks, and once every instance has run (the test decides then, raceSettle where runs were capped), no call.
  if (!isLook(n, look.minInstances, look.of) || !rest.length) return { drop: false, speedupPct, chance: null, reason: '' };
  const chance = passChance(seen, rest, look.timeoutS, { ...look.test, marginPct: LOOK_MARGIN_SHARE * look.test.marginPct });
  const threshold = dropBelow(n, look.of);
  const drop = chance < threshold;
  const way = speedupPct >= 0 ? `${speedupPct.toFixed(1)}% faster` : `${(-speedupPct).toFixed(1)}% slower`;
  const timeouts = seen.filter((p) => p.timeout);
  const solved = timeouts.length
    ? `, it solved ${timeouts.filter(solvedTimeout).length} of the ${timeouts.length} it ran that the champion's measurement did not solve (where the champion's run beside it did not either),`
    : '';
  return {
    drop,
    speedupPct,
    chance,
    reason: drop
      ? `it cannot pass the promotion test: after ${n} of ${look.of} instances it is ${way} than the champion (geometric mean of the time ratios, same session)${solved} and its chance to pass at the end of the set is ${pctText(chance)} (the race drops under ${pctText(threshold)} at this look)`
      : '',
  };
}

/** The pairs' log time ratios (challenger over champion): their count, mean, sum of squared deviations, and the mean as a speed-up, percent. */
function ratioStats(pairs: readonly { champion: number; challenger: number }[]): { n: number; mean: number; spread: number; speedupPct: number } {
  const r = logRatios(
    pairs.map((p) => p.champion),
    pairs.map((p) => p.challenger),
  );
  const n = r.length;
  const mean = n ? r.reduce((s, x) => s + x, 0) / n : 0;
  return { n, mean, spread: r.reduce((s, x) => s + (x - mean) ** 2, 0), speedupPct: 100 * (1 - Math.exp(mean)) };
}

/** A chance for people: "under 0.1%" below it. */
function pctText(p: number): string {
  return p < 0.001 ? 'under 0.1%' : `${(100 * p).toFixed(p < 0.1 ? 1 : 0)}%`;
}

/** The held-out check's early "faster" stop: a t-interval of the mean log time ratio whose lower end, one-sided at 1 - INTERVAL_LEVEL, is above 0. */
export const INTERVAL_LEVEL = 0.005;

/**
 * The challenger's geometric-mean speed-up over the champion on its pairs and the two-sided t-interval
 * of it at 1 - 2 * INTERVAL_LEVEL (each end one-sided at 1 - INTERVAL_LEVEL), percent; no interval
 * before `minInstances` pairs (at least two). The interval of the mean log time ratio, turned into speed-ups.
 */
export function speedupInterval(
  pairs: readonly { champion: number; challenger: number }[],
  minInstances: number,
): { n: number; speedupPct: number; lowerPct: number | null; upperPct: number | null } {
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
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4)
  );
}

/** The basis a look judges on: CPU only where every run of its pairs has a CPU time (metrics.ts basisOf). */
export const pairsBasis = (on: TimeBasis, pairs: readonly { a: InstanceResult; b: InstanceResult }[]): TimeBasis =>
  basisOf(
    on,
    pairs.flatMap((p) => [p.a, p.b]),
  );

/** A session's pair: both sides' runs, the cap B's had, and both sides' further runs (scheduler.ts). */
type RacePair = { a: InstanceResult; b: InstanceResult; capS: number; again?: readonly { a: InstanceResult; b: InstanceResult }[] };

/** A session's pairs as the tests see them on `on`: a capped run at its cap (the least it can take), and counted as solved (the most it can do); further runs (never capped) as they ran. */
function testPairs(pairs: readonly RacePair[], timeoutS: number, on: TimeBasis): TestPair[] {
  const run = (r: InstanceResult): TestRun => ({ t: par2Of(r, timeoutS, on), solved: r.status === 'solved' });
  return pairs.map((p) => {
    const capped = p.b.status === 'timeout' && p.capS < timeoutS;
    return {
      a: par2Of(p.a, timeoutS, on),
      b: lowerBound(p.b, p.capS, timeoutS, on),
      solvedA: p.a.status === 'solved',
      solvedB: p.b.status === 'solved' || capped,
      ...(p.again?.length ? { again: p.again.map((x) => ({ a: run(x.a), b: run(x.b) })) } : {}),
    };
  });
}

/** A race's look at a challenger's pairs (with the names of their instances), for the session (scheduler.ts) and the race's record (measureTogether.ts). */
export function raceCall(
  policy: RacePolicy,
  order: readonly string[],
  ctx: LookContext,
  pairs: readonly { a: InstanceResult; b: InstanceResult; capS: number }[],
): FutilityCall {
  const on = pairsBasis(policy.on, pairs);
  const seenNames = new Set(pairs.map((p) => p.a.instance));
  const tp = testPairs(pairs, ctx.timeoutS, on);
  const seen = tp.map((p, i) => ({ ...p, timeout: (policy.reference.get(pairs[i]!.a.instance) ?? 0) >= ctx.timeoutS }));
  // An instance the champion has no stored time for counts as the champion's average one so far.
  const typical = tp.length ? tp.reduce((s, p) => s + p.a, 0) / tp.length : 1;
  const rest = order.filter((n) => !seenNames.has(n)).map((n) => policy.reference.get(n) ?? typical);
  return futility(seen, rest, ctx);
}

/** The session's look (scheduler.ts) for a race: drop a challenger when futility says so, judged on its pairs' PAR-2 times (capped runs at their cap). */
export function raceLook(
  policy: RacePolicy,
  order: readonly string[],
  ctx: LookContext,
): (side: string, pairs: readonly { a: InstanceResult; b: InstanceResult; capS: number }[]) => string | undefined {
  return (_side, pairs) => {
    const call = raceCall(policy, order, ctx, pairs);
    return call.drop ? call.reason : undefined;
  };
}

/**
 * The race's last word on a survivor with capped runs (scheduler.ts settle): it cannot be promoted if,
 * with each capped run counted at its cap and as solved (the best it could have done), the promotion
 * test does not reach `level` even at the least noise a session is taken to have; its capped runs need
 * not run again then.
 */
export function raceSettle(
  policy: RacePolicy,
  timeoutS: number,
  level: number,
  rankBy: RankBy,
): (side: string, pairs: readonly { a: InstanceResult; b: InstanceResult; capS: number }[]) => string | undefined {
  return (_side, pairs) => {
    const tp = testPairs(pairs, timeoutS, pairsBasis(policy.on, pairs));
    const capped = pairs.filter((p) => p.b.status === 'timeout' && p.capS < timeoutS).length;
    // At the least noise any session is taken to have: its second runs may yet measure little, and "cannot win" must hold even then.
    const test = objectiveTest(tp, rankBy, { timeoutS, sigma: NOISE_FLOOR });
    if (test.p < level) return undefined;
    return `cannot win: with its ${capped} capped run${capped === 1 ? '' : 's'} counted at the cap and as solved (the best they could have done), the promotion test gives ${pPhrase(test.p)} against the ${level.toPrecision(2)} a promotion needs`;
  };
}

/**
 * The share of a survivor's PAR-2 (both sides' PAR-2 times summed) whose instances run again in the
 * first round: the few longest solved instances carry most of the run noise of the PAR-2 difference.
 * In later rounds, the share of the variance that one run more would take off (AGAIN_RELIEF).
 */
export const AGAIN_SHARE = 0.5;

/** In the rounds after the first: the instances that give this share of what one run more of each would take off the test's variance, the most per CPU second first. */
export const AGAIN_RELIEF = 0.5;

/**
 * A survivor runs again only while its runs give the promotion test at least this z (one-sided p
 * 0.16): below it, more runs cannot bring it to a promotion level. Declining further runs only ever
 * declines a promotion, and a round stops because the test passes only where it is beyond doubt
 * (BEYOND_DOUBT), so the test's level on all runs holds to within a few percent of it.
 */
export const AGAIN_FROM_Z = 1;

/**
 * The race's last step for a survivor (scheduler.ts again), round by round. The first round: unless
 * its first runs are far from a promotion (AGAIN_FROM_Z, at the prior noise), both sides run once more
 * every instance near the limit (a run of either side, or the champion's stored run, near it
 * (objectiveTest.ts nearLimit), or solved by one side and not the other) and the solved instances
 * carrying AGAIN_SHARE of the pairs' PAR-2, heaviest first. Each later round, while the test on all runs
 * so far (at the noise they measure) still gives AGAIN_FROM_Z, both run once more the instances where a
 * run more takes the most off the test's variance per CPU second (objectiveTest.ts varianceRelief: in
 * practice those near the limit, and those no run solved), up to AGAIN_RUNS runs of each. With `clear`
 * (the promotion level and margin), no round runs once the decision is beyond doubt (BEYOND_DOUBT).
 * The test and the margin are then judged on each instance's mean of its runs (comparison.ts `again`).
 * Each round where the survivor would pass, `clear.families` (the family rule) adds the instances of the
 * families in doubt (familyCheck.ts familyAgain): those follow which side was faster in a family, but run
 * only where the promotion passes already, so they serve to keep a specialist out.
 * Otherwise which instances run again depends on both sides alike, never on which was faster; in the first
 * round, pairs that both sides and the champion's stored run left unsolved do not run again (2T again
 * says little). Ranked solved first, a survivor that solves a different count runs them too: its
 * count is judged on all runs.
 */
export function raceAgain(
  policy: RacePolicy,
  timeoutS: number,
  rankBy: RankBy,
  clear?: { level: number; marginPct: number; families?: FamilyRule },
): (side: string, pairs: readonly RacePair[]) => string[] {
  return (_side, pairs) => {
    const tp = testPairs(pairs, timeoutS, pairsBasis(policy.on, pairs));
    const names = pairs.map((p) => p.a.instance);
    const later = pairs.some((p) => p.again?.length);
    const next =
      clear && beyondDoubt(tp, rankBy, timeoutS, clear, later)
        ? []
        : later
          ? laterRound(tp, names, timeoutS, rankBy)
          : firstRound(policy, tp, names, timeoutS, rankBy);
    if (!clear?.families) return next;
    const noise = { timeoutS, sigma: runNoise(tp) };
    if (!passes(tp, rankBy, noise, clear)) return next;
    const doubt = familyAgain(
      pairs.map((p, k) => ({ family: p.a.family ?? p.b.family, pair: tp[k]! })),
      names,
      noise,
      clear.families,
    );
    return [...new Set([...next, ...doubt])];
  };
}

/** Whether a survivor's runs so far pass the promotion test and its margin (promotionRule.ts; ranked solved first, solving more needs no margin). */
function passes(tp: readonly TestPair[], rankBy: RankBy, noise: TestNoise, clear: { level: number; marginPct: number }): boolean {
  const test = objectiveTest(tp, rankBy, noise);
  const more = rankBy === 'solved-then-par2' ? tp.filter((p) => p.solvedB && !p.solvedA).length - tp.filter((p) => p.solvedA && !p.solvedB).length : 0;
  return test.p < clear.level && (more !== 0 ? more > 0 : gainAt(test) >= clear.marginPct);
}

/**
 * The share of the promotion level, and the confidence of the margin, at which a survivor needs no more
 * runs: its decision is beyond doubt. Each round may end so, at most MAX_AGAIN_ROUNDS (14) times, which
 * spends at most 14 / 200 of the level (a union bound: 7% of it) on these early ends, and spares a clear
 * winner up to eleven runs of its heaviest instances.
 */
export const BEYOND_DOUBT = { levelShare: 0.005, marginConfidence: 0.99 };

/** Whether the test on all runs so far (at the noise they measure; at the prior before any ran again) passes at BEYOND_DOUBT. */
function beyondDoubt(tp: readonly TestPair[], rankBy: RankBy, timeoutS: number, clear: { level: number; marginPct: number }, measured: boolean): boolean {
  const test = objectiveTest(tp, rankBy, { timeoutS, sigma: measured ? runNoise(tp) : Math.max(NOISE_PRIOR, runNoise(tp)) });
  return test.p < BEYOND_DOUBT.levelShare * clear.level && gainAt(test, BEYOND_DOUBT.marginConfidence) >= clear.marginPct;
}

/** raceAgain's first round, on a survivor's pairs as the test sees them (`names`: their instances): the instances near the limit and the heaviest solved ones. */
function firstRound(policy: RacePolicy, tp: readonly TestPair[], names: readonly string[], timeoutS: number, rankBy: RankBy): string[] {
  // At the prior noise: the first runs' spread mixes the noise with how the gain varies from instance to instance, which the further runs tell apart.
  const test = objectiveTest(tp, rankBy, { timeoutS, sigma: NOISE_PRIOR });
  if (test.gain_se_pct > 0 ? test.gain_pct / test.gain_se_pct < AGAIN_FROM_Z : test.p >= 0.5) return [];
  const near = (t: number) => nearLimit(t, timeoutS);
  const out = new Set<string>();
  tp.forEach((p, k) => {
    const reference = policy.reference.get(names[k]!);
    const none = !p.solvedA && !p.solvedB && (reference === undefined || reference >= timeoutS);
    if (!none && (p.solvedA !== p.solvedB || near(p.a) || near(p.b) || (reference !== undefined && near(reference)))) out.add(names[k]!);
  });
  const heavy = tp.flatMap((p, k) => (p.solvedA && p.solvedB && !out.has(names[k]!) ? [{ k, w: p.a + p.b }] : [])).sort((x, y) => y.w - x.w || x.k - y.k);
  for (const k of leading(heavy, AGAIN_SHARE * heavy.reduce((t, h) => t + h.w, 0))) out.add(names[k]!);
  return [...out];
}

/** The first of `sorted` (by `k`) whose weights `w`, summed in order, reach `share`: the last one taken is the one that reaches it. */
function leading(sorted: readonly { k: number; w: number }[], share: number): number[] {
  const out: number[] = [];
  for (let acc = 0, j = 0; j < sorted.length && acc < share; j++) {
    acc += sorted[j]!.w;
    out.push(sorted[j]!.k);
  }
  return out;
}

/** raceAgain's later rounds, on a survivor's pairs as the test sees them: while the test on all runs is within reach, the instances where one run more takes the most variance off per CPU second. */
function laterRound(tp: readonly TestPair[], names: readonly string[], timeoutS: number, rankBy: RankBy): string[] {
  const noise = { timeoutS, sigma: runNoise(tp) };
  const test = objectiveTest(tp, rankBy, noise);
  if (test.p > 1 - normalCdf(AGAIN_FROM_Z)) return [];
  const relief = varianceRelief(tp, noise);
  // A run costs about its side's mean PAR-2 time there, the limit at most.
  const cost = (p: TestPair) =>
    [p.a, p.b, ...(p.again ?? []).flatMap((x) => [x.a.t, x.b.t])].reduce((s, t) => s + Math.min(t, timeoutS), 0) / (2 + 2 * (p.again?.length ?? 0));
  const open = tp
    .flatMap((p, k) =>
      relief[k]! > 0 && 1 + (p.again?.length ?? 0) < AGAIN_RUNS ? [{ k, w: relief[k]!, per: relief[k]! / Math.max(RATIO_FLOOR_S, cost(p)) }] : [],
    )
    .sort((x, y) => y.per - x.per || x.k - y.k);
  return leading(open, AGAIN_RELIEF * relief.reduce((t, r) => t + r, 0)).map((k) => names[k]!);
}
