// Is candidate B really better than A? A paired comparison on the instances both ran: the promotion
// test on what the workspace ranks by (objectiveTest.ts: each side's expected PAR-2 on the set, and its
// unsolved instances, against the run noise), the Wilcoxon signed-rank test on per-instance PAR-2 times
// and the geometric mean (for the report), and a confidence interval of the PAR-2 difference (from
// random subsets of the pairs).
// Solver timings are noisy by a few percent; a bare PAR-2 delta is not evidence.
import { averageRanks } from '../stats/ranks';
import { prng } from '../stats/prng';
import { normalCdf } from '../stats/normal';
import { basisOf, par2Of, type TimeBasis } from '../eval/metrics';
import { objectiveTest, runNoise, type ObjectiveTest, type RankBy, type TestPair } from './objectiveTest';
import type { InstanceResult } from '../run/result';
import { familyCheck, type FamilyCheck, type FamilyRule } from './familyCheck';

export interface Comparison {
  /** The time the comparison was made on (PAR-2 values below are on it too). */
  on: TimeBasis;
  common: number;
  onlyA: number;
  onlyB: number;
  par2A: number;
  par2B: number;
  /** B minus A: negative means B is faster. */
  diff: number;
  /** 95% interval of `diff` (random-subset means, subsetMeanCi). */
  ci95: [number, number];
  /** The verdict's test (objectiveTest.ts): `p` that B is better on `rank_by`, `p_worse` that it is worse. */
  test: ObjectiveTest;
  /** The instance-by-instance view, for the report: B's geometric-mean speed-up over A in percent (positive: B faster), and the one-sided sign-flip p of its log time ratios in B's favour. */
  ratio: { speedup_pct: number; p: number; method: 'exact' | 'sampled' };
  /** The one-sided level `test.p` was held to (alpha / 2; a cycle's promotion level, shared among its race's challengers). */
  level: number;
  /** For the report: `w` is the smaller rank sum; `w_plus` the sum of the ranks of pairs where B took longer. */
  wilcoxon: { n: number; w: number; w_plus: number; z: number | null; p: number; method: 'exact' | 'normal' };
  /** Instances solved by one and not the other. */
  solvedOnlyA: number;
  solvedOnlyB: number;
  verdict: 'B faster' | 'A faster' | 'no significant difference';
  /** The noise band in force (percent of A's PAR-2): a difference inside it is never significant. */
  band_pct: number;
  /**
   * Where both sides ran some instances again (race.ts raceAgain): how many, the most runs of one by a
   * side, and each side's PAR-2 with every such instance at the mean of its runs. The test and the
   * margin are judged on these; `diff` and `ci95` stay on the first runs.
   */
  again?: { instances: number; runs?: number; par2A: number; par2B: number };
  /** Why no verdict could be drawn from these measurements however large the difference (compareSeparate). */
  caveat?: string;
  /** Each family's figures and the families shown slower (familyCheck.ts); absent where the pairs have one family. */
  families?: FamilyCheck;
}

/** Relative difference in CPU share beyond which two separate measurements were taken under different load. */
export const LOAD_TOLERANCE = 0.1;

/**
 * The share of a core a measurement's runs got: their CPU seconds over their wall seconds (about 1 for a
 * single-threaded solver on a quiet machine, less while other programs compete). Null without CPU times.
 */
export function cpuShare(rs: readonly InstanceResult[]): number | null {
  const timed = rs.filter((r) => r.cpu_s !== null && r.cpu_s !== undefined && r.time_s > 0);
  const wall = timed.reduce((s, r) => s + r.time_s, 0);
  return timed.length && wall > 0 ? timed.reduce((s, r) => s + r.cpu_s!, 0) / wall : null;
}

/** The two measurements' CPU shares when they differ by more than LOAD_TOLERANCE (other load moved one of them); undefined when they agree or one is unknown. */
export function differentLoad(a: readonly InstanceResult[], b: readonly InstanceResult[]): { a: number; b: number } | undefined {
  const [sa, sb] = [cpuShare(a), cpuShare(b)];
  return sa !== null && sb !== null && Math.abs(sa - sb) > LOAD_TOLERANCE * Math.max(sa, sb) ? { a: sa, b: sb } : undefined;
}

/**
 * Two separate measurements (taken at different moments, not side by side). The machine's speed drifts
 * between sessions as a whole, which the paired test takes for a difference, so:
 * - runs that got clearly different shares of the CPU were measured under different load (other
 *   programs moved one of them, CPU time included): nothing is called;
 * - `drift` is the drift the workspace recorded between separate measurements of one binary (its median)
 *   (drift.ts): the band is raised to it; 'unmeasured' when none is recorded yet: nothing is called.
 *   Without `drift` (a band given explicitly) the test decides with the band alone.
 * Whatever is not called says why in `caveat`.
 */
export function compareSeparate(
  a: InstanceResult[],
  b: InstanceResult[],
  timeoutS: number,
  opts: Parameters<typeof compareRuns>[3] & { drift?: { pct: number; n: number } | 'unmeasured' } = {},
): Comparison {
  const { drift, ...rest } = opts;
  const c = compareRuns(a, b, timeoutS, drift && drift !== 'unmeasured' ? { ...rest, bandPct: Math.max(rest.bandPct ?? 0, drift.pct) } : rest);
  const load = differentLoad(a, b);
  const pct = (x: number) => `${Math.round(100 * x)}%`;
  if (load)
    return {
      ...c,
      verdict: 'no significant difference',
      caveat: `measured under different load: A's runs got ${pct(load.a)} of a core, B's ${pct(load.b)}; a difference between these two measurements may be the load's, so none is called (compare --measure runs both side by side)`,
    };
  if (drift === 'unmeasured')
    return {
      ...c,
      verdict: 'no significant difference',
      caveat:
        'two separate measurements, and how far this machine drifts between sessions is not measured yet (a cycle or satlution calibrate records it each time the champion is measured again; --band sets a band by hand), so none is called (compare --measure runs both side by side)',
    };
  return c;
}

/**
 * The paired comparison of B with A on the instances both ran, on wall time unless `opts.on` says cpu,
 * ranked by PAR-2 unless `opts.rankBy` says solved instances first. `alpha` is two-sided: B is called
 * better when the promotion test's p is under alpha / 2 and the difference is beyond the band (a band is
 * given only for separate measurements, compareSeparate), worse when its `p_worse` is.
 */
export function compareRuns(
  a: InstanceResult[],
  b: InstanceResult[],
  timeoutS: number,
  opts: {
    alpha?: number;
    resamples?: number;
    seed?: number;
    on?: TimeBasis;
    bandPct?: number;
    rankBy?: RankBy;
    /** Further runs of both sides, by instance, in the order they ran (race.ts raceAgain). */
    again?: ReadonlyMap<string, readonly { a: InstanceResult; b: InstanceResult }[]>;
    /** The family rule (evaluation.families; its defaults when not given). */
    families?: FamilyRule;
  } = {},
): Comparison {
  const alpha = opts.alpha ?? 0.05;
  const pairs = pairUp(a, b);
  const twice = pairs.filter(([x]) => opts.again?.get(x.instance)?.length);
  const on = basisOf(opts.on ?? 'wall', [...pairs.flat(), ...twice.flatMap(([x]) => opts.again!.get(x.instance)!.flatMap((r) => [r.a, r.b]))]);
  const { ta, tb, d } = pairedPar2(pairs, timeoutS, on);
  const wil = wilcoxonSignedRank(d);
  const ci = subsetMeanCi(d, opts.resamples ?? 10000, opts.seed ?? 1);
  const diff = mean(d);
  const band = opts.bandPct ?? 0;
  const tp: TestPair[] = pairs.map(([x, y], i) => {
    const more = opts.again?.get(x.instance) ?? [];
    const run = (r: InstanceResult) => ({ t: par2Of(r, timeoutS, on), solved: r.status === 'solved' });
    return {
      a: ta[i]!,
      b: tb[i]!,
      solvedA: x.status === 'solved',
      solvedB: y.status === 'solved',
      ...(more.length ? { again: more.map((r) => ({ a: run(r.a), b: run(r.b) })) } : {}),
    };
  });
  const noise = { timeoutS, sigma: runNoise(tp) };
  const test = objectiveTest(tp, opts.rankBy ?? 'par2', noise);
  const families = familyCheck(
    pairs.map(([x, y], i) => ({ family: x.family ?? y.family, pair: tp[i]! })),
    noise,
    opts.families,
  );
  const beyondNoise = mean(ta) > 0 ? (100 * Math.abs(diff)) / mean(ta) > band : diff !== 0;
  const better = test.p < alpha / 2 && beyondNoise;
  const worse = !better && test.p_worse < alpha / 2 && beyondNoise;
  return {
    on,
    common: pairs.length,
    onlyA: a.length - pairs.length,
    onlyB: b.length - pairs.length,
    par2A: mean(ta),
    par2B: mean(tb),
    diff,
    ci95: ci,
    test,
    ratio: { speedup_pct: test.speedup_pct, p: test.log_ratio_p, method: pairs.length <= 16 ? 'exact' : 'sampled' },
    level: alpha / 2,
    wilcoxon: wil,
    solvedOnlyA: pairs.filter(([x, y]) => x.status === 'solved' && y.status !== 'solved').length,
    solvedOnlyB: pairs.filter(([x, y]) => y.status === 'solved' && x.status !== 'solved').length,
    verdict: better ? 'B faster' : worse ? 'A faster' : 'no significant difference',
    band_pct: band,
    ...(twice.length
      ? {
          again: {
            instances: twice.length,
            runs: Math.max(...twice.map(([x]) => 1 + opts.again!.get(x.instance)!.length)),
            ...meanOfRuns(pairs, opts.again!, timeoutS, on),
          },
        }
      : {}),
    ...(families ? { families } : {}),
  };
}

/** Each side's PAR-2 over the pairs, an instance run again counted at the mean of its runs (Comparison `again`). */
function meanOfRuns(
  pairs: readonly [InstanceResult, InstanceResult][],
  again: ReadonlyMap<string, readonly { a: InstanceResult; b: InstanceResult }[]>,
  timeoutS: number,
  on: TimeBasis,
): { par2A: number; par2B: number } {
  const side = (k: 0 | 1, key: 'a' | 'b') =>
    mean(pairs.map((p) => mean([p[k], ...(again.get(p[0].instance) ?? []).map((r) => r[key])].map((r) => par2Of(r, timeoutS, on)))));
  return { par2A: side(0, 'a'), par2B: side(1, 'b') };
}

/** The runs of the instances both measurements ran, in A's order. */
function pairUp(a: readonly InstanceResult[], b: readonly InstanceResult[]): [InstanceResult, InstanceResult][] {
  const byB = new Map(b.map((r) => [r.instance, r]));
  return a.flatMap((ra) => {
    const rb = byB.get(ra.instance);
    return rb ? [[ra, rb] as [InstanceResult, InstanceResult]] : [];
  });
}

/** The pairs' PAR-2 contributions on `on` and their differences B - A. */
function pairedPar2(pairs: readonly [InstanceResult, InstanceResult][], timeoutS: number, on: TimeBasis): { ta: number[]; tb: number[]; d: number[] } {
  const ta = pairs.map(([x]) => par2Of(x, timeoutS, on));
  const tb = pairs.map(([, y]) => par2Of(y, timeoutS, on));
  return { ta, tb, d: ta.map((x, i) => tb[i]! - x) };
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

/**
 * The confidence of bands (calibration.ts, drift.ts): an A/A difference reaches the band's end in at
 * most (1 - BAND_LEVEL) / 2 = 0.5% of duels, so the margin, more than the paired test's alpha / 2, is what
 * keeps identical solvers from being promoted (at the default alpha of 0.05 the test alone would let
 * 2.5% of such decisions through).
 */
export const BAND_LEVEL = 0.99;

/**
 * B - A in percent of A's PAR-2 on the instances both ran, and the band it spans: the larger end of the
 * BAND_LEVEL percentile bootstrap interval of that difference (a subset interval cannot be narrower
 * than its most extreme subsets, so on a small set it would make the band, a margin, forbid every
 * promotion). `n` instances; percentages 0 when A's PAR-2 is 0.
 */
export function relativeInterval(
  a: readonly InstanceResult[],
  b: readonly InstanceResult[],
  timeoutS: number,
  on: TimeBasis,
): { n: number; par2A: number; diff_pct: number; band_pct: number } {
  const { ta, d } = pairedPar2(pairUp(a, b), timeoutS, on);
  const par2A = mean(ta);
  const rel = (x: number) => (par2A > 0 ? (100 * x) / par2A : 0);
  const ci = percentileBootstrapCi(d, 10000, 1, BAND_LEVEL);
  return { n: d.length, par2A, diff_pct: rel(mean(d)), band_pct: Math.max(Math.abs(rel(ci[0])), Math.abs(rel(ci[1]))) };
}

/** Two-sided Wilcoxon signed-rank test; zero differences dropped, ties given average ranks. */
export function wilcoxonSignedRank(diffs: number[]): Comparison['wilcoxon'] {
  // Differences within 1 ms are measurement noise, treated as zero.
  const d = diffs.filter((x) => Math.abs(x) > 1e-3);
  const n = d.length;
  if (n === 0) return { n: 0, w: 0, w_plus: 0, z: null, p: 1, method: 'exact' };
  const { ranks, ties } = averageRanks(d.map(Math.abs), 1e-9);
  const tieTerm = ties.reduce((s, t) => s + t * t * t - t, 0);
  const wPlus = d.reduce((s, x, i) => s + (x > 0 ? ranks[i]! : 0), 0);
  const wMinus = (n * (n + 1)) / 2 - wPlus;
  const w = Math.min(wPlus, wMinus);
  if (n <= 25 && tieTerm === 0) {
    // Exact null distribution of W+ by dynamic programming over the ranks 1..n.
    const max = (n * (n + 1)) / 2;
    let counts = new Float64Array(max + 1);
    counts[0] = 1;
    for (let r = 1; r <= n; r++) {
      const next = new Float64Array(max + 1);
      for (let s = 0; s <= max; s++)
        if (counts[s]) {
          next[s] += counts[s]!;
          if (s + r <= max) next[s + r] += counts[s]!;
        }
      counts = next;
    }
    let tail = 0;
    for (let s = 0; s <= w; s++) tail += counts[s]!;
    return { n, w, w_plus: wPlus, z: null, p: Math.min(1, (2 * tail) / 2 ** n), method: 'exact' };
  }
  const mu = (n * (n + 1)) / 4;
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm / 48);
  const z = sigma === 0 ? 0 : (w - mu + 0.5) / sigma; // continuity correction towards the mean
  return { n, w, w_plus: wPlus, z, p: Math.min(1, 2 * normalCdf(Math.min(z, 0))), method: 'normal' };
}

/**
 * Interval of the mean of paired differences from random subsets (Hartigan 1969), `level` 95% unless
 * said otherwise: the means of subsets of the pairs (each pair in or out with probability 1/2), whose
 * quantiles bound the mean with exact coverage whenever each difference is symmetric about it, as the
 * two orders of a side-by-side pair make it for identical solvers. It is the interval that inverts the
 * paired sign-flip permutation test, so it leaves out 0 in A/A comparisons as often as its level says. A
 * bootstrap interval does not: PAR-2 differences are heavy-tailed (a few long instances carry them), and
 * with a few dozen pairs the percentile bootstrap left out 0 in 11-16% of simulated A/A comparisons, a
 * studentized or BCa one as often. Exact over all subsets up to 16 pairs, else `resamples` seeded ones.
 */
export function subsetMeanCi(xs: number[], resamples: number, seed: number, level = 0.95): [number, number] {
  const n = xs.length;
  if (n === 0) return [0, 0];
  const means: number[] = [];
  if (n <= 16) {
    for (let m = 1; m < 2 ** n; m++) {
      let s = 0;
      let k = 0;
      for (let i = 0; i < n; i++)
        if (m & (1 << i)) {
          s += xs[i]!;
          k++;
        }
      means.push(s / k);
    }
  } else {
    const rnd = prng(seed);
    while (means.length < resamples) {
      let s = 0;
      let k = 0;
      for (let i = 0; i < n; i++)
        if (rnd() < 0.5) {
          s += xs[i]!;
          k++;
        }
      if (k) means.push(s / k);
    }
  }
  means.sort((a, b) => a - b);
  // The N sorted means cut the line into N + 1 intervals the mean falls in alike: k of them below the
  // k-th mean. Fewer pairs than the level needs get the outermost means.
  const k = Math.max(1, Math.floor(((1 - level) / 2) * (means.length + 1)));
  return [means[k - 1]!, means[means.length - k]!];
}

/** Percentile bootstrap interval of the mean at `level`, from a seeded generator (reproducible): the noise band's. */
function percentileBootstrapCi(xs: readonly number[], resamples: number, seed: number, level: number): [number, number] {
  if (xs.length === 0) return [0, 0];
  const rnd = prng(seed);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[Math.floor(rnd() * xs.length)]!;
    means[b] = s / xs.length;
  }
  means.sort();
  const tail = (1 - level) / 2;
  return [means[Math.floor(tail * (resamples - 1))]!, means[Math.ceil((1 - tail) * (resamples - 1))]!];
}
