// The promotion rule every strategy shares (the paper's, made noise-proof): a correct candidate measured
// in full, then side by side with the champion in the same session (measureTogether.ts), significantly better
// there on what the workspace ranks by (objectiveTest.ts) and at least min_improvement_pct lower in
// PAR-2 at MARGIN_CONFIDENCE, becomes the champion; ranked solved-then-par2, one that solves more needs
// no margin and one that solves fewer never wins. No family may pay for it (familyCheck.ts).
import type { Comparison } from './comparison';
import { measuredInFull, type EvalDoc } from '../eval/evalDoc';
import { candidateDirName } from '../layout';
import { marginGainPct, pPhrase } from '../explain';
import { gainAt, MARGIN_CONFIDENCE } from './objectiveTest';
import { familyVeto, familyVetoReason } from './familyCheck';

/** An evaluated candidate with its side-by-side comparison against the reference (the champion). */
export interface Evaluated {
  candidate: number;
  json: EvalDoc | undefined;
  /** From the same-session duel with the champion (decide/measureTogether.ts); undefined when there was none. */
  cmp: Comparison | undefined;
  /** The duel found the candidate broken (a crash or a wrong answer there): it cannot win. */
  fatal?: string;
  /** Measured in full, but another of the cycle's candidates measured faster and met the champion instead (why, for the record). */
  unmatched?: string;
}

/** The promotion decision of a cycle. */
export interface Decision {
  /** The candidate to promote, or null: the parent stays champion. */
  winner: number | null;
  outcome: string;
}

/** The gain of B over A in percent of A's PAR-2 (positive: B faster), where instances ran again on the mean of their runs (Comparison `again`). */
export const gainPct = (c: Comparison | undefined): number => (c ? marginGainPct(c) : 0);

/** Instances a comparison's B solved that A did not, less the reverse, where the ranking counts them first (else 0). */
const solvedMore = (c: Comparison): number => (c.test?.rank_by === 'solved-then-par2' ? c.solvedOnlyB - c.solvedOnlyA : 0);

/** The PAR-2 gain, percent, that B reaches at MARGIN_CONFIDENCE (its point estimate where the comparison has no standard error). */
export const gainAtConfidence = (c: Comparison): number => gainAt({ gain_pct: gainPct(c), gain_se_pct: c.test.gain_se_pct });

/** Whether a significantly better B is better by enough: more solved where solved count first, else the margin in PAR-2 at MARGIN_CONFIDENCE (and never fewer solved). */
const byEnough = (c: Comparison, marginPct: number): boolean => (solvedMore(c) !== 0 ? solvedMore(c) > 0 : gainAtConfidence(c) >= marginPct);

/** Where instances ran again, how many: " with N instances run again by both ..." (else nothing). */
const twice = (c: Comparison): string =>
  c.again
    ? ` with ${c.again.instances} instance${c.again.instances === 1 ? '' : 's'} run again by both, up to ${c.again.runs ?? 2} times each (near the limit and the longest; the mean of the runs)`
    : '';

/** Of the evaluated candidates, the correct one significantly better side by side and better by enough with the largest gain (most solved first where they count first), else none (with why). */
export function greedyAccept(evaluated: Evaluated[], parent: number, marginPct: number): Decision {
  const margin = marginPct;
  const why = `the ${margin.toFixed(1)}% margin`;
  // A candidate that stopped at a cheaper perf tier or was rejected by racing was never measured on the full set.
  const passing = evaluated.filter((e) => e.json?.verdict === 'pass' && measuredInFull(e.json) && e.cmp && !e.fatal);
  const raced = evaluated.filter((e) => e.json?.verdict === 'pass' && e.json.race?.outcome === 'rejected early');
  const stopped = evaluated.filter((e) => e.json?.tier && e.json.tier.reached < e.json.tier.of);
  const better = passing.filter((e) => e.cmp!.verdict === 'B faster' && byEnough(e.cmp!, margin));
  const winners = better.filter((e) => !familyVeto(e.cmp!.families)).sort((a, b) => solvedMore(b.cmp!) - solvedMore(a.cmp!) || gainPct(b.cmp) - gainPct(a.cmp));
  const stays = candidateDirName(parent);
  const side = (c: Comparison) =>
    `side by side on ${c.on === 'cpu' ? 'CPU' : 'wall'} time: PAR-2 ${(c.again ?? c).par2A.toFixed(2)} -> ${(c.again ?? c).par2B.toFixed(2)} s, ${gainPct(c).toFixed(1)}% faster (at least ${gainAtConfidence(c).toFixed(1)}% at ${100 * MARGIN_CONFIDENCE}% confidence)${twice(c)}, ${pPhrase(c.test.p)}, n = ${c.common}`;
  const best = winners[0];
  if (best)
    return {
      winner: best.candidate,
      outcome: `${candidateDirName(best.candidate)} is the new champion (${side(best.cmp!)}; ${solvedMore(best.cmp!) > 0 ? `solves ${solvedMore(best.cmp!)} more` : `over ${why}`})`,
    };
  const of = evaluated.length > 1 ? `best of ${evaluated.length} evaluated: ` : '';
  const name = (id: number) => (evaluated.length > 1 ? `${candidateDirName(id)} ` : '');
  const specialist = [...better].sort((a, b) => gainPct(b.cmp) - gainPct(a.cmp))[0];
  if (specialist)
    return {
      winner: null,
      outcome: `${stays} stays champion (${of}${name(specialist.candidate)}${gainPct(specialist.cmp).toFixed(1)}% faster side by side over ${why}, but ${familyVetoReason(specialist.cmp!.families!)})`,
    };
  const close = passing.filter((e) => e.cmp!.verdict === 'B faster').sort((a, b) => gainPct(b.cmp) - gainPct(a.cmp))[0];
  if (close)
    return {
      winner: null,
      outcome: `${stays} stays champion (${of}${name(close.candidate)}${gainPct(close.cmp).toFixed(1)}% faster side by side${twice(close.cmp!)}: significant, but ${solvedMore(close.cmp!) < 0 ? `it solves ${-solvedMore(close.cmp!)} fewer` : `at ${100 * MARGIN_CONFIDENCE}% confidence only ${gainAtConfidence(close.cmp!).toFixed(1)}% faster, under ${why}`})`,
    };
  const fatal = evaluated.find((e) => e.fatal);
  if (!passing.length && fatal)
    return { winner: null, outcome: `${stays} stays champion (${name(fatal.candidate)}failed side by side with the champion: ${fatal.fatal})` };
  if (!passing.length && raced.length) {
    const r = raced[0]!.json!.race!;
    const when = r.ran >= r.of ? `by the race after all ${r.of} instances` : `early by racing after ${r.ran} of ${r.of} instances`;
    return { winner: null, outcome: `${stays} stays champion (${raced.map((e) => candidateDirName(e.candidate)).join(', ')} rejected ${when}: ${r.reason})` };
  }
  if (!passing.length && stopped.length) {
    const t = stopped[0]!.json!.tier!;
    return {
      winner: null,
      outcome: `${stays} stays champion (${of}${stopped.map((e) => candidateDirName(e.candidate)).join(', ')} stopped at perf tier ${t.reached} of ${t.of}: not among the best there)`,
    };
  }
  const cmp = passing[0]?.cmp;
  return {
    winner: null,
    outcome: `${stays} stays champion (${of}${cmp ? `${cmp.verdict} side by side (${gainPct(cmp).toFixed(1)}%, ${pPhrase(cmp.test.p)} against ${cmp.level.toPrecision(2)}, n = ${cmp.common}${cmp.band_pct ? `, noise band ${cmp.band_pct.toFixed(1)}%` : ''})` : 'no comparable measurement'})`,
  };
}

/** The strategy's `accept`: greedyAccept with the configured margin (the level is the comparisons' own: promotionLevel). */
export const acceptWithMargin =
  (marginPct: number) =>
  (evaluated: Evaluated[], reference: number): Decision =>
    greedyAccept(evaluated, reference, marginPct);
