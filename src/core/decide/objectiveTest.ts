// The promotion test: is B better than A on what the workspace ranks by (evaluation.rank_by), on this
// very set? The instances are fixed; what is random is each run. So the test compares each side's
// expected PAR-2 on the set (and, ranked solved first, its expected count of unsolved instances), with
// the variance that run noise gives every instance: a run's time is its instance's time under
// log-normal noise of the session's measured spread, capped at the limit. That variance is what a
// sign-flip test cannot see where the two sides differ in shape and not in PAR-2: a challenger twice as
// fast on the easy instances and a little slower on those near the limit wins every easy pair and loses
// its PAR-2 on a few timeouts that one run rarely shows, so the sign flips find it "better" while its
// PAR-2 is not. Here the instances near the limit carry the variance of their flips between solved and
// 2T whether or not a flip was seen. The geometric mean (the mean log time ratio) stays in every report
// and guides the race's ordering; it never promotes. bench/decisions.ts measures the rule's errors.
import { normalCdf, normalQuantile } from '../stats/normal';
import { prng } from '../stats/prng';

/** What a promotion ranks by: PAR-2; or solved instances first and PAR-2 among equals, as the SAT Competition ranks. */
export type RankBy = 'par2' | 'solved-then-par2';

/**
 * Times under this count as this in a ratio (seconds): below it a process's start-up and the clock's
 * grain are most of the time, so a 0.01 s run is not "5x faster" than a 0.05 s one.
 */
export const RATIO_FLOOR_S = 0.05;

/** The per-instance log ratios of B's PAR-2 time to A's (negative: B faster), times floored at RATIO_FLOOR_S. */
export function logRatios(ta: readonly number[], tb: readonly number[]): number[] {
  return ta.map((x, i) => Math.log(Math.max(RATIO_FLOOR_S, tb[i]!) / Math.max(RATIO_FLOOR_S, x)));
}

/** One run as the test sees it: its PAR-2 time (2T unsolved; a capped run at its cap) and whether it solved the instance. */
export interface TestRun {
  t: number;
  solved: boolean;
}

/** One pair as the test sees it: each side's PAR-2 time and whether each solved, and both sides' further runs where the instance ran again. */
export interface TestPair {
  a: number;
  b: number;
  solvedA: boolean;
  solvedB: boolean;
  again?: readonly { a: TestRun; b: TestRun }[];
}

/** What the test needs besides the pairs: the time limit, and the per-run noise (the log-time standard deviation; runNoise()). */
export interface TestNoise {
  timeoutS: number;
  sigma: number;
}

/** The promotion test's answer; every p one-sided. */
export interface ObjectiveTest {
  rank_by: RankBy;
  /** That B is better on rank_by (a promotion needs it under its level). */
  p: number;
  /** That B is worse on rank_by (the held-out check's veto). */
  p_worse: number;
  /** That B's expected PAR-2 on the set is lower. */
  par2_p: number;
  /** For the report: the exact sign-flip p of the mean log time ratio in B's favour (the geometric mean); it decides nothing. */
  log_ratio_p: number;
  /** That B leaves fewer instances unsolved (null when no run of either side timed out). */
  solved_p: number | null;
  /** B's geometric-mean speed-up over A, percent (positive: B faster). */
  speedup_pct: number;
  /** B's PAR-2 gain on the means of each instance's runs, percent of A's PAR-2, and its standard error from the run noise. */
  gain_pct: number;
  gain_se_pct: number;
  /** The per-run noise the variances were taken at. */
  sigma: number;
  method: 'run-noise';
}

/**
 * The confidence a promotion needs that the PAR-2 gain reaches the margin (promotionRule.ts): the gain on
 * the means of the runs, less this quantile of its standard error from the run noise. The test's level
 * keeps a challenger with no gain out; this keeps one whose gain is under the margin out in most
 * decisions, without asking a real gain of twice the margin to prove itself at the test's level again.
 */
export const MARGIN_CONFIDENCE = 0.8;

/** The PAR-2 gain, percent, a test's runs reach at `confidence` (MARGIN_CONFIDENCE unless said): its gain less that quantile of its standard error. */
export const gainAt = (t: Pick<ObjectiveTest, 'gain_pct' | 'gain_se_pct'>, confidence = MARGIN_CONFIDENCE): number =>
  t.gain_pct - normalQuantile(confidence) * t.gain_se_pct;

/** The noise a session is assumed to have before its own second runs say otherwise (log-time sd per run: 10%). */
export const NOISE_PRIOR = 0.1;
/** The prior's weight, in pairs of runs of one solver on one instance. */
export const NOISE_PRIOR_WEIGHT = 4;
/** No session is taken to be quieter than this. */
export const NOISE_FLOOR = 0.02;

/** The fewest degrees of freedom of repeated runs that measure a session's noise by themselves; with fewer, the pairs' spread does. */
export const NOISE_FROM_AGAIN = 4;

/**
 * The per-run noise of a session: the log-time standard deviation of one run, shrunk towards
 * NOISE_PRIOR by its weight. Where both sides ran instances again (at least NOISE_FROM_AGAIN degrees
 * of freedom of solved runs of one solver on one instance), from those: the spread of a side's log
 * times on an instance about their mean.
 * Else from the spread of the pairs' log time ratios (both solved) about their mean, which is twice a
 * run's variance for solvers that differ by a constant factor and more where the difference varies
 * from instance to instance: never less than the noise, so a busy machine or a noisier solver than the
 * prior raises it. The mean square, not a robust spread: an outlier (a busy moment) is noise the test
 * must carry.
 */
export function runNoise(pairs: readonly TestPair[]): number {
  let ss = 0;
  let m = 0;
  for (const p of pairs) {
    if (!p.again?.length) continue;
    for (const side of ['a', 'b'] as const) {
      const logs = sideRuns(p, side)
        .filter((r) => r.solved)
        .map((r) => Math.log(Math.max(RATIO_FLOOR_S, r.t)));
      if (logs.length < 2) continue;
      const mu = mean(logs);
      ss += logs.reduce((t, x) => t + (x - mu) ** 2, 0);
      m += logs.length - 1;
    }
  }
  if (m < NOISE_FROM_AGAIN) {
    const l = logRatios(
      pairs.filter((p) => p.solvedA && p.solvedB).map((p) => p.a),
      pairs.filter((p) => p.solvedA && p.solvedB).map((p) => p.b),
    );
    const mean = l.reduce((t, x) => t + x, 0) / Math.max(1, l.length);
    ss = l.reduce((t, x) => t + (x - mean) ** 2, 0) / 2;
    m = Math.max(0, l.length - 1);
  }
  return Math.max(NOISE_FLOOR, Math.sqrt((ss + NOISE_PRIOR_WEIGHT * NOISE_PRIOR ** 2) / (m + NOISE_PRIOR_WEIGHT)));
}

/**
 * The most runs of one instance by one side (race.ts raceAgain): one run of an instance near the limit
 * is a coin flip worth the whole limit, and its variance falls as the runs grow; twelve runs take it to
 * a twelfth. With the race's looks predicting six (passChance.ts LOOK_RUNS), twelve in up to 14 rounds
 * promoted a true 10% winner at 44 instances in 63.5% of decisions against 59.8% with six in eight
 * (1,000 decisions, the same seeds; docs/decisions.md), at 1.47 champion evaluations per no-gain cycle
 * (1.46 with six, seed 1). Before the test carried the session's speed, ten runs promoted the `bimodal` no-better
 * challenger in 0.8%: the more rounds pick the instances whose variance looks largest, the more the rest
 * keep their first runs' luck; bench/decisions.ts measures it again.
 */
export const AGAIN_RUNS = 12;

/**
 * Runs this many prior noise deviations (NOISE_PRIOR) or less under the limit are near it: one run says
 * little about whether their instance is solved or 2T, the largest noise in a PAR-2.
 */
export const NEAR_LIMIT_SDS = 3;

/** Whether a run's PAR-2 time `t` is near the limit or past it (NEAR_LIMIT_SDS). */
export const nearLimit = (t: number, timeoutS: number): boolean => t >= timeoutS * Math.exp(-NEAR_LIMIT_SDS * NOISE_PRIOR);

/** One run's PAR-2 under the noise model, for an instance whose noise-free time is `t`: its mean, its variance, and its chance to time out. */
export function runModel(t: number, n: TestNoise): { mean: number; variance: number; timeout: number } {
  const T = n.timeoutS;
  const s = Math.max(NOISE_FLOOR, n.sigma);
  const z = Math.log(T / Math.max(1e-9, t)) / s;
  const timeout = 1 - normalCdf(z);
  const m1 = t * Math.exp((s * s) / 2) * normalCdf(z - s);
  const m2 = t * t * Math.exp(2 * s * s) * normalCdf(z - 2 * s);
  const mean = m1 + 2 * T * timeout;
  return { mean, variance: Math.max(0, m2 + 4 * T * T * timeout - mean * mean), timeout };
}

/** One side's runs of one instance. */
const sideRuns = (p: TestPair, side: 'a' | 'b'): TestRun[] => [
  side === 'a' ? { t: p.a, solved: p.solvedA } : { t: p.b, solved: p.solvedB },
  ...(p.again ?? []).map((x) => x[side]),
];

/** The geometric mean of runs' times. */
const geoMean = (runs: readonly TestRun[]): number => Math.exp(runs.reduce((sum, r) => sum + Math.log(Math.max(1e-9, r.t)), 0) / runs.length);

/**
 * The noise-free time of a side whose `k` runs of an instance all solved it: their geometric mean; near
 * the limit, one noise deviation of that mean (s / sqrt(k)) nearer the limit. A near-limit instance
 * whose runs came in lucky would otherwise carry the small variance of their luck exactly when its
 * difference looks best: a challenger 2x faster on the easy 70% and slower on the rest, no better in
 * PAR-2, passed in 0.6% of decisions at 44 instances, and in 0.2% with this (bench/decisions.ts).
 */
function solvedTime(solved: readonly TestRun[], k: number, n: TestNoise): number {
  const g = geoMean(solved);
  return nearLimit(g, n.timeoutS) ? Math.min(n.timeoutS, g * Math.exp(Math.max(NOISE_FLOOR, n.sigma) / Math.sqrt(k))) : g;
}

/**
 * One run's variance of a side on an instance, for its PAR-2 time and for its being unsolved, taken at
 * what its runs say of its noise-free time: the geometric mean of its solved runs; where a run of it
 * timed out and some run of the instance (either side's) solved, the instance is near the limit and may
 * flip: with one run, at the limit itself (the most a flip can vary); with more, where its share of
 * timeouts puts it (x of k, taken as (x + 1/2) / (k + 1): at the limit for one of two). Where no run of
 * either side solved, none: both stay unsolved.
 */
function sideVariance(runs: readonly TestRun[], anySolved: boolean, n: TestNoise): { par2: number; unsolved: number } {
  if (!anySolved) return { par2: 0, unsolved: 0 };
  const solved = runs.filter((r) => r.solved);
  const [k, x] = [runs.length, runs.length - solved.length];
  const t = !x ? solvedTime(solved, k, n) : timedOutTime(k, x, n);
  const m = runModel(t, n);
  return { par2: m.variance, unsolved: m.timeout * (1 - m.timeout) };
}

/**
 * The variance of the instances near the limit that every run left unsolved, so that none of them shows
 * it: a challenger a little slower there loses PAR-2 the runs did not see. Their number is not known,
 * but their density is: the set's instances per unit of log time just under the limit (`density`, from
 * the runs solved within a factor e of it) continue just over it. Each such instance at log distance u
 * from the limit stayed unsolved in all `runs` runs of each side with chance Phi(u / sigma)^(2 runs), and
 * would have carried both sides' run variance there, divided by the runs; the integral over u, times
 * the density, is what the unseen ones carry, at most `unsolved` instances' worth. `runs`: the fewest
 * runs of a side among the pairs every run left unsolved.
 */
export function unseenVariance(density: number, unsolved: number, n: TestNoise, runs = 1): { par2: number; unsolved: number } {
  if (unsolved <= 0 || density <= 0) return { par2: 0, unsolved: 0 };
  const s = Math.max(NOISE_FLOOR, n.sigma);
  let [par2, flips, peak] = [0, 0, 0];
  const step = s / 10;
  for (let u = -4 * s; u <= 6 * s; u += step) {
    const hidden = normalCdf(u / s) ** (2 * runs);
    const m = runModel(n.timeoutS * Math.exp(u), n);
    par2 += (hidden * 2 * m.variance * step) / runs;
    flips += (hidden * 2 * m.timeout * (1 - m.timeout) * step) / runs;
    peak = Math.max(peak, (2 * m.variance) / runs);
  }
  return { par2: Math.min(density * par2, unsolved * peak), unsolved: Math.min(density * flips, unsolved * 0.5) };
}

/**
 * One of the `unsolved` pairs that every run left unsolved, run `runs` times by each side: its share of
 * what they would carry if all had run as often (unseenVariance). Shares add up, so running some of them
 * again takes theirs off and the rest keep theirs.
 */
export function unseenShare(density: number, unsolved: number, n: TestNoise, runs: number): { par2: number; unsolved: number } {
  if (unsolved <= 0) return { par2: 0, unsolved: 0 };
  const all = unseenVariance(density, unsolved, n, runs);
  return { par2: all.par2 / unsolved, unsolved: all.unsolved / unsolved };
}

/**
 * The promotion test. B's expected PAR-2 on the set against A's: D, the sum over instances of the
 * difference of each side's mean over its runs, against its standard error from the run noise (each
 * run's variance at what its instance's runs say, near the limit the variance of flipping between
 * solved and 2T; divided by the runs each side made; and what the instances near the limit that no
 * run solved may carry, unseenVariance), one-sided in the normal approximation. A skewed
 * run time only shortens the tail on B's side (a flip costs at most 2T), so the approximation errs
 * towards the champion. Ranked `solved-then-par2`, the expected count of unsolved instances is a
 * second part, tested the same way, and `p` is the smaller part's p doubled (both parts at half the level).
 */
export function objectiveTest(pairs: readonly TestPair[], rankBy: RankBy, noise: TestNoise): ObjectiveTest {
  const n = pairs.length;
  const l = logRatios(
    pairs.map((p) => p.a),
    pairs.map((p) => p.b),
  );
  const speedup_pct = n ? 100 * (1 - Math.exp(sum(l) / n)) : 0;
  let [D, V, A, U, W] = [0, 0, 0, 0, 0];
  let timeouts = false;
  let nearSolved = 0;
  const unsolvedRuns: number[] = [];
  for (const p of pairs) {
    const x = pairTerms(p, noise);
    if (!x.anySolved) unsolvedRuns.push(1 + (p.again?.length ?? 0));
    else if (x.nearSolved) nearSolved++;
    timeouts ||= x.timeouts;
    D += x.d;
    A += x.a;
    V += x.v;
    U += x.u;
    W += x.w;
  }
  for (const runs of unsolvedRuns) {
    const unseen = unseenShare(nearSolved, unsolvedRuns.length, noise, runs);
    V += unseen.par2;
    W += unseen.unsolved;
  }
  V += sessionVariance(pairs, noise);
  const better = (d: number, v: number) => (v > 0 ? normalCdf(d / Math.sqrt(v)) : d < 0 ? 0 : 1);
  const par2_p = better(D, V);
  const par2_worse = better(-D, V);
  const solved_p = timeouts ? better(U, W) : null;
  const solved_worse = timeouts ? better(-U, W) : null;
  const both = (x: number, y: number | null) => (rankBy === 'solved-then-par2' && y !== null ? Math.min(1, 2 * Math.min(x, y)) : x);
  return {
    rank_by: rankBy,
    p: both(par2_p, solved_p),
    p_worse: both(par2_worse, solved_worse),
    par2_p,
    log_ratio_p: signFlipP(l),
    solved_p,
    speedup_pct,
    gain_pct: A > 0 ? (-100 * D) / A : 0,
    gain_se_pct: A > 0 ? (100 * Math.sqrt(V)) / A : 0,
    sigma: noise.sigma,
    method: 'run-noise',
  };
}

/** One pair's part of the test: the PAR-2 difference of its means (d), A's mean (a) and the difference's variance (v); the same for the unsolved count (u, w). */
interface PairTerms {
  d: number;
  a: number;
  v: number;
  u: number;
  w: number;
  anySolved: boolean;
  /** Some run solved it within a factor e under the limit (unseenVariance's density). */
  nearSolved: boolean;
  timeouts: boolean;
}

/**
 * The log-time standard deviation of a whole session's speed about its mean over sessions: what a
 * machine's speed moves by between sessions (drift.ts; on a 2-core VM up to 20% between two, at the 99%
 * interval's end) and the decision simulator's worlds (5-10%).
 */
export const SESSION_DRIFT = 0.075;

/**
 * What the session's speed adds to the variance of D. Both sides ran in one session, so D is their
 * difference at its speed, while a promotion claims one over sessions. Where the two sides differ in
 * shape near the limit, a fast session brings more of one side's near-limit instances under it than the
 * other's, so D moves with the speed even where its mean over sessions is 0 (a challenger x0.7 on half
 * the instances and x1.3 on the rest: without this, 1.8% of such challengers passed with no race, 0.7%
 * with it; bench/decisions.ts). The part that moves with D itself is taken off (a winner everywhere is
 * one in a fast session too): the slope of D in the log of the speed, at each side's times as its runs
 * say them, less D times the champion's relative slope, squared, times SESSION_DRIFT squared.
 */
export function sessionVariance(pairs: readonly TestPair[], noise: TestNoise): number {
  const h = 0.05;
  const at = (t: number, k: number) => runModel(t * Math.exp(k), noise).mean;
  const slope = (t: number) => (at(t, h) - at(t, -h)) / (2 * h);
  let [dD, dA, D, A] = [0, 0, 0, 0];
  for (const p of pairs) {
    const [ra, rb] = [sideRuns(p, 'a'), sideRuns(p, 'b')];
    if (!ra.some((r) => r.solved) && !rb.some((r) => r.solved)) continue;
    const [ta, tb] = [sideTime(ra, noise), sideTime(rb, noise)];
    dD += slope(tb) - slope(ta);
    dA += slope(ta);
    D += at(tb, 0) - at(ta, 0);
    A += at(ta, 0);
  }
  return A > 0 ? SESSION_DRIFT ** 2 * (dD - (D * dA) / A) ** 2 : 0;
}

/** A side's noise-free time on an instance as its runs say it: sideVariance's rule, but the solved runs' geometric mean as it is, and one noise deviation past the limit where none solved. */
function sideTime(runs: readonly TestRun[], n: TestNoise): number {
  const solved = runs.filter((r) => r.solved);
  const [k, x] = [runs.length, runs.length - solved.length];
  if (!x) return geoMean(solved);
  if (x === k) return n.timeoutS * Math.exp(Math.max(NOISE_FLOOR, n.sigma));
  return timedOutTime(k, x, n);
}

/** The noise-free time of a side that timed out in `x` of its `k` runs of an instance: where that share ((x + 1/2) / (k + 1)) puts it; the limit after one run. */
function timedOutTime(k: number, x: number, n: TestNoise): number {
  return k === 1 ? n.timeoutS : n.timeoutS * Math.exp(-Math.max(NOISE_FLOOR, n.sigma) * normalQuantile(1 - (x + 0.5) / (k + 1)));
}

/** One pair's part of the test (objectiveTest): each side's mean over its runs, and its variance divided by the runs it made. */
function pairTerms(p: TestPair, noise: TestNoise): PairTerms {
  const [ra, rb] = [sideRuns(p, 'a'), sideRuns(p, 'b')];
  const anySolved = ra.some((r) => r.solved) || rb.some((r) => r.solved);
  const [ma, mb] = [mean(ra.map((r) => r.t)), mean(rb.map((r) => r.t))];
  const [va, vb] = [sideVariance(ra, anySolved, noise), sideVariance(rb, anySolved, noise)];
  return {
    d: mb - ma,
    a: ma,
    v: va.par2 / ra.length + vb.par2 / rb.length,
    u: mean(rb.map((r) => (r.solved ? 0 : 1))) - mean(ra.map((r) => (r.solved ? 0 : 1))),
    w: va.unsolved / ra.length + vb.unsolved / rb.length,
    anySolved,
    nearSolved: anySolved && [...ra, ...rb].some((r) => r.solved && r.t >= noise.timeoutS / Math.E && r.t <= noise.timeoutS),
    timeouts: [...ra, ...rb].some((r) => !r.solved),
  };
}

/**
 * What running an instance once more on both sides would take off the variance of the PAR-2 test (its
 * part divided by the runs each side made, less the same with one run more), per pair: where more runs
 * pay (race.ts raceAgain). Both sides alike, never which side was faster.
 */
export function varianceRelief(pairs: readonly TestPair[], noise: TestNoise): number[] {
  const terms = pairs.map((p) => pairTerms(p, noise));
  const unsolved = terms.filter((x) => !x.anySolved).length;
  const density = terms.filter((x) => x.nearSolved).length;
  // Both sides ran a pair k times: its part is S / k, and S / (k + 1) after one run more; a pair every
  // run left unsolved carries its share of the unseen variance at its runs.
  return pairs.map((p, k) => {
    const runs = 1 + (p.again?.length ?? 0);
    if (terms[k]!.anySolved) return terms[k]!.v / (runs + 1);
    return unseenShare(density, unsolved, noise, runs).par2 - unseenShare(density, unsolved, noise, runs + 1).par2;
  });
}

/** The one-sided exact sign-flip p of a mean below 0 (all 2^n patterns up to 16 values, else 20,000 seeded ones), for the report. */
function signFlipP(xs: readonly number[]): number {
  const n = xs.length;
  if (!n || xs.every((x) => x === 0)) return 1;
  const obs = sum(xs);
  const eps = 1e-9 * Math.max(1, Math.abs(obs));
  let reach = 0;
  if (n <= 16) {
    for (let m = 0; m < 2 ** n; m++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += m & (1 << i) ? -xs[i]! : xs[i]!;
      if (s <= obs + eps) reach++;
    }
    return reach / 2 ** n;
  }
  const rnd = prng(1);
  const B = 20000;
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += rnd() < 0.5 ? -xs[i]! : xs[i]!;
    if (s <= obs + eps) reach++;
  }
  return (reach + 1) / (B + 1);
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
const mean = (xs: readonly number[]) => (xs.length ? sum(xs) / xs.length : 0);

/** P(X >= k) for X ~ Binomial(n, 1/2): the exact sign test's one-sided p. */
export function binomialTail(n: number, k: number): number {
  if (k <= 0) return 1;
  // In logs: n may be in the hundreds.
  let logC = 0;
  let tail = 0;
  for (let j = 0; j <= n; j++) {
    if (j > 0) logC += Math.log(n - j + 1) - Math.log(j);
    if (j >= k) tail += Math.exp(logC - n * Math.LN2);
  }
  return Math.min(1, tail);
}
