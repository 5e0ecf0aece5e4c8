import * as assert from 'node:assert/strict';
import { subsetMeanCi, compareRuns, compareSeparate, cpuShare, wilcoxonSignedRank } from '../../src/core/decide/comparison';
import { normalCdf } from '../../src/core/stats/normal';
import { basisOf, computeMetrics, virtualBest } from '../../src/core/eval/metrics';
import { prng } from '../../src/core/stats/prng';
import { explainComparison } from '../../src/core/explain';
import type { InstanceResult, RunStatus } from '../../src/core/run/result';

function r(
  instance: string,
  status: RunStatus,
  time_s: number,
  answer: 'SAT' | 'UNSAT' | null,
  expected: 'SAT' | 'UNSAT' | null = null,
  mem_mb: number | null = 10,
): InstanceResult {
  return {
    instance,
    family: null,
    expected,
    expected_from: expected ? 'meta' : 'none',
    answer,
    status,
    time_s,
    cpu_s: null,
    mem_mb,
    exit_code: null,
    signal: null,
    check: { kind: 'none', ok: null, time_s: 0, detail: '' },
    detail: '',
  };
}

describe('metrics (paper Table 3)', () => {
  it('computes PAR-2, per-answer PAR-2, thresholds, memory and wrong answers', () => {
    const T = 10;
    const res = [
      r('a', 'solved', 1, 'SAT', null, 100),
      r('b', 'solved', 3, 'UNSAT', 'UNSAT', 300),
      r('c', 'timeout', 10, null, 'SAT', 50),
      r('d', 'wrong', 0.5, 'UNSAT', 'SAT', null),
      r('e', 'crash', 0.1, null, null, 10),
    ];
    const m = computeMetrics(res, T);
    assert.equal(m.n, 5);
    assert.deepEqual([m.solved, m.solved_sat, m.solved_unsat], [2, 1, 1]);
    assert.equal(m.par2, (1 + 3 + 20 + 20 + 20) / 5);
    assert.equal(m.par2_sat, (1 + 20 + 20) / 3); // a (proved SAT), c and d (known SAT)
    assert.equal(m.par2_unsat, 3);
    assert.deepEqual(m.solved_within, { '0.6': 0, '1.2': 1, '2': 1, '4': 2, '6': 2, '9': 2 });
    assert.deepEqual([m.mem_avg_mb, m.mem_max_mb], [115, 300]);
    assert.equal(m.wrong, 1);
    assert.equal(m.vbs_match, false);
    assert.equal(m.unique_solved, null);
    assert.equal(computeMetrics(res, T, [[r('a', 'solved', 2, 'SAT')]]).unique_solved, 1);
  });

  it('the virtual best solver takes the best correct run per instance', () => {
    const vbs = virtualBest(
      [
        [r('x', 'solved', 5, 'SAT'), r('y', 'timeout', 10, null)],
        [r('x', 'solved', 2, 'SAT'), r('y', 'solved', 7, 'UNSAT')],
      ],
      10,
    );
    assert.deepEqual(
      vbs.map((v) => [v.instance, v.time_s]),
      [
        ['x', 2],
        ['y', 7],
      ],
    );
  });
});

describe('paired comparison', () => {
  it('Wilcoxon signed-rank matches the textbook example (exact, two-sided)', () => {
    // R: wilcox.test(x, y, paired = TRUE) on the depression scores of Hollander & Wolfe: V = 40, p = 0.03906
    const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
    const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
    const w = wilcoxonSignedRank(x.map((v, i) => v - y[i]!));
    assert.equal(w.method, 'exact');
    assert.equal(w.w, 5);
    assert.ok(Math.abs(w.p - 0.0390625) < 1e-9, String(w.p));
  });

  it('uses the normal approximation with ties, and gives p = 1 for no differences', () => {
    const d = [...Array(40)].map((_, i) => (i % 4 === 0 ? -1 : 1) * (1 + (i % 5)));
    const w = wilcoxonSignedRank(d);
    assert.equal(w.method, 'normal');
    assert.ok(w.p < 0.01);
    assert.equal(wilcoxonSignedRank([0, 0, 0]).p, 1);
    assert.ok(Math.abs(normalCdf(-1.959964) - 0.025) < 1e-6);
  });

  it('gives a reproducible interval of the mean from subsets of the pairs, exact up to 16 of them', () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const a = subsetMeanCi(xs, 5000, 42);
    assert.deepEqual(a, subsetMeanCi(xs, 5000, 42));
    assert.ok(a[0] < 5.5 && a[1] > 5.5 && a[0] > 3 && a[1] < 8);
    assert.deepEqual(subsetMeanCi([2, 2, 2], 100, 1), [2, 2]);
    // Three values: the seven subset means 1, 1.5, 2, 2, 2, 2.5, 3 cut the line into eight parts of 1/8 each.
    assert.deepEqual(subsetMeanCi([1, 2, 3], 100, 1, 0.99), [1, 3]);
    assert.deepEqual(subsetMeanCi([1, 2, 3], 100, 1, 0.5), [1.5, 2.5]);
    const big = [...Array(40)].map((_, i) => i);
    assert.notDeepEqual(subsetMeanCi(big, 2000, 1), subsetMeanCi(big, 2000, 2), 'past 16 pairs the subsets are drawn');
  });

  it('its 95% interval leaves out 0 in about 5% of A/A comparisons, heavy-tailed PAR-2 differences included', function () {
    this.timeout(60000);
    // Times log-uniform over 0.05-30 s, each run with 2-15% noise: the shape of a perf set (a bootstrap
    // interval left out 0 in 11-16% of these).
    const rnd = prng(7);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    for (const n of [12, 22, 44]) {
      let out = 0;
      const trials = 400;
      for (let t = 0; t < trials; t++) {
        const d = [...Array(n)].map(() => {
          const time = Math.exp(Math.log(0.05) + (Math.log(30) - Math.log(0.05)) * rnd());
          const s = 0.02 + 0.13 * rnd();
          return time * Math.exp(s * normal()) - time * Math.exp(s * normal());
        });
        const ci = subsetMeanCi(d, 1000, t + 1);
        if (ci[0] > 0 || ci[1] < 0) out++;
      }
      assert.ok(out / trials <= 0.085, `${n} pairs: 0 left out in ${(100 * out) / trials}% of A/A comparisons`);
    }
  });

  it('calls B faster only when it is significantly faster', () => {
    const T = 100;
    const inst = [...Array(30)].map((_, i) => `i${i}`);
    const A = inst.map((n, i) => r(n, 'solved', 10 + i, 'SAT'));
    const faster = inst.map((n, i) => r(n, 'solved', (10 + i) * 0.7, 'SAT'));
    const noisy = inst.map((n, i) => r(n, 'solved', (10 + i) * (i % 2 ? 1.02 : 0.98), 'SAT'));
    const c = compareRuns(A, faster, T);
    assert.equal(c.verdict, 'B faster');
    assert.ok(c.ci95[1] < 0);
    assert.equal(compareRuns(A, noisy, T).verdict, 'no significant difference');
    assert.equal(compareRuns(faster, A, T).verdict, 'A faster');
    const partial = compareRuns(A.slice(0, 20), faster, T);
    assert.deepEqual([partial.common, partial.onlyA, partial.onlyB], [20, 0, 10]);
  });

  it('decides on PAR-2, the objective, though most instances got slower: a PAR-2 gain the long instances carry is a gain, one inside the run noise is not', () => {
    // 44 - k instances 5% slower and `k` long ones faster by `gain`: PAR-2 says B is faster, most instances say slower.
    const T = 1000;
    const mixed = (k: number, gain: number) => {
      const small = [...Array(44 - k)].map((_, i) => [`s${i}`, 2 + i / 10] as const);
      const large = [...Array(k)].map((_, i) => [`l${i}`, 40 + i] as const);
      const A = [...small, ...large].map(([n, t]) => r(n, 'solved', t, 'SAT'));
      const B = [...small.map(([n, t]) => r(n, 'solved', t * 1.05, 'SAT')), ...large.map(([n, t]) => r(n, 'solved', t * (1 - gain), 'SAT'))];
      return compareRuns(A, B, T);
    };
    const ten = mixed(10, 0.4);
    assert.ok(ten.diff < 0, 'lower PAR-2');
    assert.equal(ten.verdict, 'B faster', `ten long instances 40% faster: p = ${ten.test.p}, PAR-2 part ${ten.test.par2_p}`);
    assert.ok(ten.wilcoxon.w_plus > (44 * 45) / 4, 'the ranks favour A: reported, not a veto');
    // Five long instances 8% faster: a PAR-2 gain of 1.6%, inside the run noise the pairs show.
    const five = mixed(5, 0.08);
    assert.equal(five.verdict, 'no significant difference', JSON.stringify(five.test));
    assert.match(explainComparison(five, { alpha: 0.05, marginPct: 5 }), /but not significant: p is not under 0\.025/);
    // Faster instance by instance but not in PAR-2: the geometric mean never promotes, and the why says so.
    const why = explainComparison({ ...five, test: { ...five.test, par2_p: 0.3, log_ratio_p: 0.001 } }, { alpha: 0.05, marginPct: 5 });
    assert.match(
      why,
      /faster instance by instance \(the geometric mean's p = 0\.0010\), but its PAR-2 on this set is not significantly lower \(p = 0\.30\).*The geometric mean never promotes\./,
    );
  });

  it('compares on CPU time only when every run compared has one, else on wall time for all: never a mix', () => {
    const T = 100;
    const inst = [...Array(20)].map((_, i) => `i${i}`);
    // CPU says B is 30% faster; wall says B is 30% slower (a loaded machine while B ran).
    const a = inst.map((n, i) => ({ ...r(n, 'solved', 10 + i, 'SAT'), cpu_s: 10 + i }));
    const b = inst.map((n, i) => ({ ...r(n, 'solved', 1.3 * (10 + i), 'SAT'), cpu_s: 0.7 * (10 + i) }));
    const onCpu = compareRuns(a, b, T, { on: 'cpu' });
    assert.deepEqual([onCpu.on, onCpu.verdict], ['cpu', 'B faster']);
    // One of B's runs has no CPU time (run where no cgroup could be made): the whole comparison is on wall time, and says so.
    const gap = b.map((x, i) => (i === 7 ? { ...x, cpu_s: null } : x));
    const onWall = compareRuns(a, gap, T, { on: 'cpu' });
    assert.deepEqual([onWall.on, onWall.verdict], ['wall', 'A faster']);
    assert.equal(onWall.par2B, gap.reduce((t, x) => t + x.time_s, 0) / gap.length, 'every figure is wall time');
    assert.equal(basisOf('cpu', gap), 'wall');
    assert.equal(basisOf('cpu', b), 'cpu');
    assert.equal(basisOf('wall', b), 'wall');
  });

  it('calls nothing between two separate measurements whose runs got different shares of the CPU (other load)', () => {
    const T = 100;
    const inst = [...Array(30)].map((_, i) => `i${i}`);
    // The same solver, measured once on a quiet machine (runs get 97% of a core) and once beside another
    // program (70%), which also made its CPU time 8% longer: the paired test alone calls that.
    const quiet = inst.map((n, i) => ({ ...r(n, 'solved', (10 + i) / 0.97, 'SAT'), cpu_s: 10 + i }));
    const loaded = inst.map((n, i) => ({ ...r(n, 'solved', (1.08 * (10 + i)) / 0.7, 'SAT'), cpu_s: 1.08 * (10 + i) }));
    assert.equal(cpuShare(quiet)!.toFixed(2), '0.97');
    assert.equal(cpuShare(loaded)!.toFixed(2), '0.70');
    assert.equal(compareRuns(quiet, loaded, T, { on: 'cpu' }).verdict, 'A faster');
    const c = compareSeparate(quiet, loaded, T, { on: 'cpu' });
    assert.equal(c.verdict, 'no significant difference');
    assert.match(c.caveat ?? '', /measured under different load: A's runs got 97% of a core, B's 70%/);
    // Same load on both: the test decides, with the band raised to the recorded drift between sessions.
    const loadedFaster = inst.map((n, i) => ({ ...r(n, 'solved', (0.6 * (10 + i)) / 0.7, 'SAT'), cpu_s: 0.6 * (10 + i) }));
    const same = compareSeparate(loaded, loadedFaster, T, { on: 'cpu', bandPct: 3, drift: { pct: 20, n: 4 } });
    assert.equal(same.verdict, 'B faster', '40% faster clears a 20% drift');
    assert.equal(same.band_pct, 20);
    assert.equal(same.caveat, undefined);
    // The same solver, 12% apart at equal load (the host's clock): inside the recorded drift, nothing is called.
    const drifted = inst.map((n, i) => ({ ...r(n, 'solved', (1.21 * (10 + i)) / 0.7, 'SAT'), cpu_s: 1.21 * (10 + i) }));
    assert.equal(compareSeparate(loaded, drifted, T, { on: 'cpu' }).verdict, 'A faster', 'the paired test alone calls it');
    assert.equal(compareSeparate(loaded, drifted, T, { on: 'cpu', bandPct: 3, drift: { pct: 15, n: 4 } }).verdict, 'no significant difference');
    // No drift recorded yet: nothing called between separate measurements, and why.
    const unknown = compareSeparate(loaded, loadedFaster, T, { on: 'cpu', drift: 'unmeasured' });
    assert.equal(unknown.verdict, 'no significant difference');
    assert.match(unknown.caveat ?? '', /drifts between sessions is not measured yet/);
    // Without CPU times there is no load to compare: the test alone.
    assert.equal(cpuShare(inst.map((n) => r(n, 'solved', 1, 'SAT'))), null);
    assert.equal(
      compareSeparate(
        inst.map((n, i) => r(n, 'solved', 10 + i, 'SAT')),
        inst.map((n, i) => r(n, 'solved', 7 + i, 'SAT')),
        T,
      ).verdict,
      'B faster',
    );
  });
});
