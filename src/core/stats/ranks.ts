// Ranks with ties, as the rank statistics use them (Wilcoxon's signed-rank test, Spearman's correlation,
// the objective portfolio's Borda count).

/** Ranks of `xs` (1-based, smallest first), values within `eps` of the first of their run sharing the average of their ranks; `ties` holds the size of each run of two or more. */
export function averageRanks(xs: readonly number[], eps = 0): { ranks: number[]; ties: number[] } {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const ranks = new Array<number>(xs.length);
  const ties: number[] = [];
  const same = (a: number, b: number) => a === b || Math.abs(a - b) <= eps;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && same(order[j + 1]![0], order[i]![0])) j++;
    for (let k = i; k <= j; k++) ranks[order[k]![1]] = (i + j) / 2 + 1;
    if (j > i) ties.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, ties };
}
