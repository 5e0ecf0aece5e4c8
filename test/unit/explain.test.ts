// Verdicts in plain sentences: the common reasons a challenger that looks faster stays a challenger.
import * as assert from 'node:assert/strict';
import { explainComparison, explainSplit, minPairsForSignificance, pPhrase, type ExplainedComparison } from '../../src/core/explain';

const cmp = (o: Partial<ExplainedComparison> & { n?: number }): ExplainedComparison => ({
  par2A: 1,
  par2B: 0.6,
  ci95: [-0.6, -0.2],
  wilcoxon: { n: o.n ?? 22, p: 0.01 },
  verdict: 'B faster',
  ...o,
});

describe('verdicts explained', () => {
  it('knows how many instances the two-sided Wilcoxon test needs at all', () => {
    assert.equal(minPairsForSignificance(0.05), 6); // 2/2^5 = 0.0625, 2/2^6 = 0.031
    assert.equal(minPairsForSignificance(0.01), 8); // 2/2^7 = 0.0156, 2/2^8 = 0.0078
  });

  it('says when too few instances can never be significant, however large the gain', () => {
    const s = explainComparison(cmp({ n: 4, wilcoxon: { n: 4, p: 0.125 }, verdict: 'no significant difference' }), { alpha: 0.05, marginPct: 5 });
    assert.match(
      s,
      /^40\.0% faster \(PAR-2 1\.00 -> 0\.60 s, 95% CI of the difference -0\.60 \.\. -0\.20 s, p = 0\.13, n = 4\), but with 4 instances that differ no result can be significant at alpha 0\.05: even if every one went the same way, the test needs at least 6\. Add instances to the perf set\.$/,
    );
  });

  it('never writes a p that underflowed as "p = 0.0": below 1e-6 it says so', () => {
    const s = explainComparison(cmp({ wilcoxon: { n: 22, p: 0 } }), { alpha: 0.05, marginPct: 10 });
    assert.match(s, /, p < 1e-6, n = 22\)/);
    assert.doesNotMatch(s, /p = 0\.0/);
    assert.equal(pPhrase(2e-7), 'p < 1e-6');
    assert.equal(pPhrase(0.0123), 'p = 0.012');
    assert.equal(pPhrase(1e-6), 'p = 0.0000010');
  });

  it('tells a win from a significant gain under the margin, a loss, and no agreement', () => {
    assert.match(explainComparison(cmp({}), { alpha: 0.05, marginPct: 10 }), /^40\.0% faster \(.*\): significant, and over the 10\.0% margin\.$/);
    assert.match(
      explainComparison(cmp({ par2B: 0.95 }), { alpha: 0.05, marginPct: 10 }),
      /^5\.0% faster \(.*\): significant, but under the 10\.0% margin a promotion needs/,
    );
    assert.match(
      explainComparison(cmp({ par2B: 1.3, ci95: [0.1, 0.5], verdict: 'A faster' }), { alpha: 0.05, marginPct: 10 }),
      /^30\.0% slower \(.*\): significantly slower\.$/,
    );
    assert.match(
      explainComparison(cmp({ par2B: 0.8, ci95: [-0.5, 0.1], wilcoxon: { n: 22, p: 0.3 }, verdict: 'no significant difference' }), {
        alpha: 0.05,
        marginPct: 10,
      }),
      /^20\.0% faster \(.*\), but not significant: p is not under 0\.05, and the CI includes no difference at all\. The instances do not agree on a direction\.$/,
    );
    assert.match(
      explainComparison(cmp({ caveat: 'measured under different load', verdict: 'no significant difference' }), { alpha: 0.05, marginPct: 10 }),
      /^No verdict: measured under different load\.$/,
    );
  });
});

describe('explain: SAT against UNSAT', () => {
  it('names opposite directions, and only those over 5%', () => {
    assert.equal(
      explainSplit({ satA: 1.2, satB: 1.5, unsatA: 3, unsatB: 2.1 }),
      "Faster on UNSAT (3.00 -> 2.10 s) but slower on SAT (1.20 -> 1.50 s), by each one's own evaluation.",
    );
    assert.match(explainSplit({ satA: 2, satB: 1, unsatA: 1, unsatB: 1.5 }) ?? '', /^Faster on SAT \(2\.00 -> 1\.00 s\) but slower on UNSAT/);
    assert.equal(explainSplit({ satA: 1, satB: 0.5, unsatA: 1, unsatB: 0.5 }), undefined, 'same direction');
    assert.equal(explainSplit({ satA: 1, satB: 1.04, unsatA: 1, unsatB: 0.5 }), undefined, 'under 5% is no direction');
    assert.equal(explainSplit({ satA: null, satB: 1, unsatA: 1, unsatB: 0.5 }), undefined);
  });
});
