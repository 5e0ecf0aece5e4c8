// A comparison's verdict in plain sentences, for where a person looks (RESULTS.md, the outcome of a
// cycle): what changed with its CI, n and p, the margin in force, and the common reasons a faster-
// looking challenger stays a challenger (not significant; too few instances to ever be significant).

/** The smallest p-value written as a number; below it the normal tail is past what the approximation says (and may underflow to 0). */
export const P_FLOOR = 1e-6;

/** A p-value for people: "p = 0.012", or "p < 1e-6" where it is smaller (never "p = 0.0", which reads as certainty). */
export const pPhrase = (p: number): string => (p < P_FLOOR ? `p < ${P_FLOOR.toExponential(0)}` : `p = ${p.toPrecision(2)}`);

/** What an explanation needs of a comparison (decide/comparison.ts `Comparison`; RESULTS.md's copy of it). */
export interface ExplainedComparison {
  par2A: number;
  par2B: number;
  ci95: readonly [number, number];
  wilcoxon: { n: number; p: number };
  /** The geometric-mean test of comparisons made before the promotion test (its one-sided p). */
  ratio?: { p: number };
  /** The verdict's test (decide/objectiveTest.ts): its one-sided p and its parts'; absent in comparisons made before it. */
  test?: { p: number; par2_p: number; log_ratio_p: number; method?: string };
  verdict: 'B faster' | 'A faster' | 'no significant difference';
  caveat?: string;
  /** Each side's PAR-2 with the instances run again at the mean of their runs, where the test and the margin were judged on them (decide/comparison.ts). */
  again?: { instances: number; runs?: number; par2A: number; par2B: number };
}

/** The gain in percent of the champion's PAR-2 the margin is judged on: on both runs' mean where instances ran twice. */
export function marginGainPct(c: Pick<ExplainedComparison, 'par2A' | 'par2B' | 'again'>): number {
  const p = c.again ?? c;
  return p.par2A > 0 ? (100 * (p.par2A - p.par2B)) / p.par2A : 0;
}

/** The fewest pairs with which the exact tests can reach a two-sided p < alpha (all pairs one way: one-sided p = 1 / 2^n, under alpha / 2). */
export function minPairsForSignificance(alpha: number): number {
  let n = 1;
  while (2 / 2 ** n >= alpha && n < 64) n++;
  return n;
}

/** One or two sentences on why the comparison came out as it did; `marginPct` is the margin a promotion needs (already raised to the band). */
export function explainComparison(c: ExplainedComparison, o: { alpha: number; marginPct: number }): string {
  const gain = marginGainPct(c);
  const way = `${Math.abs(gain).toFixed(1)}% ${gain >= 0 ? 'faster' : 'slower'}`;
  const oneSided = c.test ?? c.ratio;
  const p = oneSided?.p ?? c.wilcoxon.p;
  // The tests' p is one-sided: it is compared with alpha / 2 (the Wilcoxon p of older comparisons with alpha).
  const level = oneSided ? o.alpha / 2 : o.alpha;
  const stats = `PAR-2 ${c.par2A.toFixed(2)} -> ${c.par2B.toFixed(2)} s, 95% CI of the difference ${c.ci95[0].toFixed(2)} .. ${c.ci95[1].toFixed(2)} s, ${pPhrase(p)}, n = ${c.wilcoxon.n}`;
  const need = minPairsForSignificance(o.alpha);
  if (c.caveat) return `No verdict: ${c.caveat}.`;
  // The exact sign-flip tests of comparisons made before the run-noise test could not reach a level with fewer pairs.
  if (c.test?.method !== 'run-noise' && c.wilcoxon.n < need)
    return `${way} (${stats}), but with ${c.wilcoxon.n} instance${c.wilcoxon.n === 1 ? '' : 's'} that differ no result can be significant at alpha ${o.alpha}: even if every one went the same way, the test needs at least ${need}. Add instances to the perf set.`;
  if (c.verdict === 'B faster')
    return gain >= o.marginPct
      ? `${way} (${stats}): significant, and over the ${o.marginPct.toFixed(1)}% margin.`
      : `${way} (${stats}): significant, but under the ${o.marginPct.toFixed(1)}% margin a promotion needs, which a difference this small may owe to the machine's noise.`;
  if (c.verdict === 'A faster') return `${way} (${stats}): significantly slower.`;
  const zero = c.ci95[0] <= 0 && c.ci95[1] >= 0;
  const [par2Sig, ratioSig] = c.test ? [c.test.par2_p < level, c.test.log_ratio_p < level] : [false, false];
  if (ratioSig && !par2Sig)
    return `${way} (${stats}): faster instance by instance (the geometric mean's ${pPhrase(c.test!.log_ratio_p)}), but its PAR-2 on this set is not significantly lower (${pPhrase(c.test!.par2_p)}): the gain is on instances that weigh little in PAR-2, or the time it loses near the limit may undo it. The geometric mean never promotes.`;
  return `${way} (${stats}), but not significant: ${p >= level ? `p is not under ${oneSided ? level.toPrecision(2) : level}` : 'the difference is inside the noise band'}${zero ? ', and the CI includes no difference at all' : ''}. The instances do not agree on a direction.`;
}

/** PAR-2 on the SAT and the UNSAT instances of each side's own evaluation (null: none of that kind). */
export interface AnswerSplit {
  satA: number | null;
  satB: number | null;
  unsatA: number | null;
  unsatB: number | null;
}

/** A change smaller than this share of the PAR-2 is no direction worth naming. */
const SPLIT_MIN = 0.05;

/**
 * "Faster on UNSAT (3.00 -> 2.10 s) but slower on SAT (1.20 -> 1.50 s)" when the two kinds went
 * opposite ways by more than 5% each, else undefined. From separate evaluations, and said so.
 */
export function explainSplit(s: AnswerSplit): string | undefined {
  const way = (a: number | null, b: number | null) => (a === null || b === null || a <= 0 ? 0 : Math.abs(b - a) / a < SPLIT_MIN ? 0 : b < a ? 1 : -1);
  const sat = way(s.satA, s.satB);
  const unsat = way(s.unsatA, s.unsatB);
  if (sat === 0 || unsat === 0 || sat === unsat) return undefined;
  const fig = (a: number | null, b: number | null) => `${a!.toFixed(2)} -> ${b!.toFixed(2)} s`;
  const [fast, slow] =
    sat > 0 ? [`SAT (${fig(s.satA, s.satB)})`, `UNSAT (${fig(s.unsatA, s.unsatB)})`] : [`UNSAT (${fig(s.unsatA, s.unsatB)})`, `SAT (${fig(s.satA, s.satB)})`];
  return `Faster on ${fast} but slower on ${slow}, by each one's own evaluation.`;
}

/** How a report names the run an answer came from: nothing for a first run, " (second run)", " (run 3)"... */
export const runLabel = (nth: number): string => (nth <= 1 ? '' : nth === 2 ? ' (second run)' : ` (run ${nth})`);
