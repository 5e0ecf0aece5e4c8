// Is the judge worth it? Its scores against the measured gains, as Pearson's r and Spearman's rho
// (ties get average ranks). Null when there are fewer than 3 pairs or one side does not vary.
import { averageRanks } from '../stats/ranks';

export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = Math.min(xs.length, ys.length);
  if (n < 3) return null;
  const mx = xs.slice(0, n).reduce((a, b) => a + b, 0) / n;
  const my = ys.slice(0, n).reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  const n = Math.min(xs.length, ys.length);
  return n < 3 ? null : pearson(averageRanks(xs.slice(0, n)).ranks, averageRanks(ys.slice(0, n)).ranks);
}
