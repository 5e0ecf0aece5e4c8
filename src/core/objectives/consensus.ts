// Consensus over an objective portfolio (Zhang, Sipling and Di Ventra, Sec. 4.2): each objective
// ranks the candidates (lower score is better; a missing or invalid score ranks last), objectives
// are weighted by how well they agree with the others (median Kendall tau, floored at 0), decayed by
// age and scaled by optional multipliers, and the consensus score of a candidate is the weighted
// Borda count C_j = sum_i w_i R_ij / (n - 1) in [0, 1], lower is better.
import { averageRanks } from '../stats/ranks';

/** 1-based ranks of scores (lower is better), ties sharing their average rank; NaN/infinite rank last. */
export function rankScores(scores: readonly number[]): number[] {
  return averageRanks(scores.map((x) => (Number.isFinite(x) ? x : Infinity))).ranks;
}

/** Kendall's tau-b between two rankings (ties handled); 0 when either is constant. */
export function kendallTau(a: readonly number[], b: readonly number[]): number {
  let concordant = 0;
  let discordant = 0;
  let tiesA = 0;
  let tiesB = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = i + 1; j < a.length; j++) {
      const da = Math.sign(a[i]! - a[j]!);
      const db = Math.sign(b[i]! - b[j]!);
      if (da === 0 && db === 0) continue;
      if (da === 0) tiesA++;
      else if (db === 0) tiesB++;
      else if (da === db) concordant++;
      else discordant++;
    }
  const denom = Math.sqrt((concordant + discordant + tiesA) * (concordant + discordant + tiesB));
  return denom > 0 ? (concordant - discordant) / denom : 0;
}

const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export interface PortfolioEntry {
  /** The round (cycle) the objective was added: older objectives decay by `decay` per round. */
  createdRound: number;
  multiplier: number;
}

export interface Consensus {
  /** ranks[i][j]: objective i's rank of candidate j. */
  ranks: number[][];
  /** tau[i][k]. */
  tau: number[][];
  /** Agreement-and-age weights before multipliers, then after (both sum to 1). */
  agreement: number[];
  weights: number[];
  /** Per candidate, in [0, 1], lower is better. */
  scores: number[];
}

export function consensus(scores: readonly (readonly number[])[], entries: readonly PortfolioEntry[], round: number, decay = 0.9): Consensus {
  const k = scores.length;
  const n = scores[0]?.length ?? 0;
  const ranks = scores.map((s) => rankScores(s));
  const tau = ranks.map((ri, i) => ranks.map((rk, j) => (i === j ? 1 : kendallTau(ri, rk))));
  const raw = ranks.map(
    (_, i) => Math.max(k > 1 ? median(tau[i]!.filter((_x, j) => j !== i)) : 1, 0) * Math.pow(decay, Math.max(0, round - (entries[i]?.createdRound ?? round))),
  );
  const sum = raw.reduce((a, b) => a + b, 0);
  const agreement = sum > 0 ? raw.map((x) => x / sum) : raw.map(() => (k ? 1 / k : 0));
  // A multiplier rescales; it cannot revive an objective the consensus gave no weight.
  const scaled = agreement.map((w, i) => w * (entries[i]?.multiplier ?? 1));
  const ssum = scaled.reduce((a, b) => a + b, 0);
  const weights = ssum > 0 ? scaled.map((x) => x / ssum) : agreement;
  const out = Array.from({ length: n }, (_, j) => (n > 1 ? ranks.reduce((c, r, i) => c + weights[i]! * (r[j]! - 1), 0) / (n - 1) : 0));
  return { ranks, tau, agreement, weights, scores: out };
}
