// The promotion test: is B better than A on what the workspace ranks by (evaluation.rank_by)? Exact
// sign-flip tests on side-by-side pairs. Under "no difference" the two runs of a pair are exchangeable
// (their order alternates), so flipping a pair flips its log time ratio, its PAR-2 difference and its
// solved difference together, and every p below is exact whatever the distribution: heavy tails,
// timeouts, mixed noise. The decision simulator (bench/decisions.ts) measures what the rules do on
// effects that are not "no difference": skewed ones, easy-fast-hard-slow ones, solved-more ones.
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

/** One pair as the test sees it: each side's PAR-2 time, and whether each solved the instance. */
export interface TestPair {
  a: number;
  b: number;
  solvedA: boolean;
  solvedB: boolean;
}

/** The promotion test's answer; every p one-sided. */
export interface ObjectiveTest {
  rank_by: RankBy;
  /** That B is better on rank_by (a promotion needs it under its level). */
  p: number;
  /** That B is worse on rank_by (a veto's: the held-out check). */
  p_worse: number;
  /** Its parts, in B's favour: the mean log time ratio (the geometric mean), the mean PAR-2 difference, and the instances one solves and the other does not (null when there are none). */
  log_ratio_p: number;
  par2_p: number;
  solved_p: number | null;
  /** B's geometric-mean speed-up over A, percent (positive: B faster). */
  speedup_pct: number;
  method: 'exact' | 'sampled';
}

/**
 * The promotion test: an exact max-T sign-flip test. Its statistics, each standardised by its spread
 * under sign flips (sum over the root of the sum of squares), are the mean PAR-2 difference (the
 * objective) and the mean log time ratio (the typical instance: a PAR-2 difference is carried by the
 * few longest instances, and its noise with them, so on a few dozen instances only the ratios see a
 * uniform 10% gain), and under `solved-then-par2` the count of instances one solved and the other did
 * not. `p`: the share of sign patterns whose largest standardised gain in B's favour reaches the
 * observed one (exact for identical solvers, whichever part carries the gain); `p_worse` the same
 * against B. A PAR-2 that got worse is kept out by the promotion rule's margin on the PAR-2 difference
 * (promotionRule.ts), and solving fewer by its solved-count rule. All 2^n sign patterns up to 16
 * pairs, else `resamples` seeded ones (p = (k + 1) / (B + 1)).
 */
export function objectiveTest(pairs: readonly TestPair[], rankBy: RankBy, resamples = 20000, seed = 1): ObjectiveTest {
  const n = pairs.length;
  const l = logRatios(
    pairs.map((p) => p.a),
    pairs.map((p) => p.b),
  );
  const d = pairs.map((p) => p.b - p.a);
  const u = pairs.map((p) => (p.solvedB ? 0 : 1) - (p.solvedA ? 0 : 1));
  const cols = [l, d, ...(rankBy === 'solved-then-par2' ? [u] : [])].filter((c) => c.some((x) => x !== 0));
  const speedup_pct = n ? 100 * (1 - Math.exp(sum(l) / n)) : 0;
  if (!n || !cols.length)
    return { rank_by: rankBy, p: 1, p_worse: 1, log_ratio_p: 1, par2_p: 1, solved_p: u.some((x) => x !== 0) ? 1 : null, speedup_pct, method: 'exact' };
  const scale = cols.map((c) => 1 / Math.sqrt(sum(c.map((x) => x * x))));
  const obs = cols.map((c, j) => sum(c) * scale[j]!);
  // Standardised sums within a rounding error of the observed ones count as reaching them (ties favour no verdict).
  const eps = 1e-9;
  const [better, worse] = [Math.max(...obs.map((x) => -x)), Math.max(...obs)];
  const reach = { better: 0, worse: 0, parts: cols.map(() => 0) };
  const k = cols.length;
  const sums = new Float64Array(k);
  const tally = (flip: (i: number) => boolean) => {
    sums.fill(0);
    for (let i = 0; i < n; i++) {
      const f = flip(i);
      for (let j = 0; j < k; j++) sums[j] += f ? -cols[j]![i]! : cols[j]![i]!;
    }
    let up = -Infinity;
    let down = -Infinity;
    for (let j = 0; j < k; j++) {
      const z = sums[j]! * scale[j]!;
      if (z <= obs[j]! + eps) reach.parts[j]!++;
      up = Math.max(up, -z);
      down = Math.max(down, z);
    }
    if (up >= better - eps) reach.better++;
    if (down >= worse - eps) reach.worse++;
  };
  let share: (c: number) => number;
  let method: 'exact' | 'sampled';
  if (n <= 16) {
    for (let m = 0; m < 2 ** n; m++) tally((i) => (m & (1 << i)) !== 0);
    share = (c) => c / 2 ** n;
    method = 'exact';
  } else {
    const rnd = prng(seed);
    for (let b = 0; b < resamples; b++) tally(() => rnd() < 0.5);
    share = (c) => (c + 1) / (resamples + 1);
    method = 'sampled';
  }
  const part = (c: number[]) => (cols.includes(c) ? share(reach.parts[cols.indexOf(c)]!) : 1);
  return {
    rank_by: rankBy,
    p: share(reach.better),
    p_worse: share(reach.worse),
    log_ratio_p: part(l),
    par2_p: part(d),
    solved_p: u.some((x) => x !== 0)
      ? rankBy === 'solved-then-par2'
        ? part(u)
        : binomialTail(u.filter((x) => x !== 0).length, u.filter((x) => x < 0).length)
      : null,
    speedup_pct,
    method,
  };
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);

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
