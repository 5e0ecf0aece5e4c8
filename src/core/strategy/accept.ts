// The promotion rule every strategy shares (the paper's): a correct candidate significantly faster
// than the reference and at least a margin lower in PAR-2 becomes the champion.
import type { Comparison } from '../eval/compare';
import { candidateDirName } from '../layout';
import type { Decision, Evaluated } from './types';

/** Of the evaluated candidates, the correct one significantly faster and at least marginPct lower in PAR-2 with the largest gain, else none (with why). */
export function greedyAccept(evaluated: Evaluated[], parent: number, marginPct: number): Decision {
  const gain = (c: Comparison | undefined) => (c && c.par2A > 0 ? (100 * (c.par2A - c.par2B)) / c.par2A : 0);
  // A candidate that stopped at a cheaper perf tier was never measured on the full set: not promotable.
  const passing = evaluated.filter((e) => e.json?.verdict === 'pass' && (!e.json.tier || e.json.tier.reached === e.json.tier.of));
  const stopped = evaluated.filter((e) => e.json?.tier && e.json.tier.reached < e.json.tier.of);
  const winners = passing.filter((e) => e.cmp?.verdict === 'B faster' && gain(e.cmp) >= marginPct).sort((a, b) => gain(b.cmp) - gain(a.cmp));
  const stays = candidateDirName(parent);
  const best = winners[0];
  if (best) return { winner: best.candidate, outcome: `${candidateDirName(best.candidate)} is the new champion (PAR-2 ${best.cmp!.par2A.toFixed(2)} -> ${best.cmp!.par2B.toFixed(2)} s)` };
  const of = evaluated.length > 1 ? `best of ${evaluated.length} evaluated: ` : '';
  const close = passing.filter((e) => e.cmp?.verdict === 'B faster').sort((a, b) => gain(b.cmp) - gain(a.cmp))[0];
  if (close) return { winner: null, outcome: `${stays} stays champion (${of}${evaluated.length > 1 ? `${candidateDirName(close.candidate)} ` : ''}${gain(close.cmp).toFixed(1)}% faster: significant, but under the ${marginPct}% margin)` };
  if (!passing.length && stopped.length) {
    const t = stopped[0]!.json!.tier!;
    return { winner: null, outcome: `${stays} stays champion (${of}${stopped.map((e) => candidateDirName(e.candidate)).join(', ')} stopped at perf tier ${t.reached} of ${t.of}: not among the best there)` };
  }
  const cmp = passing[0]?.cmp ?? evaluated[0]?.cmp;
  return { winner: null, outcome: `${stays} stays champion (${of}${cmp ? cmp.verdict : 'no comparable measurement'})` };
}

/** The strategy's `accept`: greedyAccept with the configured margin. */
export const acceptWithMargin = (marginPct: number) => (evaluated: Evaluated[], reference: number): Decision => greedyAccept(evaluated, reference, marginPct);
