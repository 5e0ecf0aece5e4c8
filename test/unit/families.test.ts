import * as assert from 'node:assert/strict';
import { compareRuns } from '../../src/core/decide/comparison';
import { DEFAULT_FAMILY_RULE, familyAgain, familyCheck, FAMILY_RUNS, NO_FAMILY, type FamilyPair } from '../../src/core/decide/familyCheck';
import { objectiveTest, type TestPair } from '../../src/core/decide/objectiveTest';
import { greedyAccept } from '../../src/core/decide/promotionRule';
import { raceAgain } from '../../src/core/decide/race';
import { heldOutAgain, heldOutCall, heldOutEnd } from '../../src/core/decide/heldOut';
import { duelComparison } from '../../src/core/decide/againstChampion';
import { DuelDoc } from '../../src/core/decide/duels';
import { FamiliesSchema } from '../../src/core/config/schema';
import { decisionWhy } from '../../src/core/dashboard/verdictsView';
import type { DashDuel } from '../../src/core/dashboard/dashboardSchema';
import type { InstanceResult } from '../../src/core/run/result';
import { sampleEvalDoc } from '../fixtures/evalDocs';
import { readVerdict, renderResults, writeResults } from '../../src/core/workspace/resultsFile';
import { familyText } from '../../src/core/familyReport';
import { tempDir } from './helpers';

const run = (instance: string, family: string | null, t: number, timeoutS = 100): InstanceResult => ({
  instance,
  family,
  expected: null,
  expected_from: 'none',
  answer: t <= timeoutS ? 'SAT' : null,
  status: t <= timeoutS ? 'solved' : 'timeout',
  time_s: Math.min(t, timeoutS),
  cpu_s: Math.min(t, timeoutS),
  mem_mb: null,
  exit_code: 0,
  signal: null,
  check: { kind: 'none', ok: null, time_s: 0, detail: '' },
  detail: '',
});

/**
 * Four families of 8 instances (2-9 s, 100 s limit), each run three times by both sides with a 1%
 * jitter (so the noise is measured from the repeats): B is `factor(family)` times A's time.
 */
function measured(factor: (family: string) => number) {
  const families = ['f1', 'f2', 'f3', 'f4'];
  const a: InstanceResult[] = [];
  const b: InstanceResult[] = [];
  const again = new Map<string, { a: InstanceResult; b: InstanceResult }[]>();
  families.forEach((f, j) =>
    Array.from({ length: 8 }, (_, k) => {
      const name = `${f}-${k}`;
      const t = 2 + k + j / 4;
      const jitter = (r: number) => 1 + 0.01 * Math.sin(7 * k + 3 * j + r);
      a.push(run(name, f, t * jitter(0)));
      b.push(run(name, f, t * factor(f) * jitter(1)));
      again.set(
        name,
        [2, 4].map((r) => ({ a: run(name, f, t * jitter(r)), b: run(name, f, t * factor(f) * jitter(r + 1)) })),
      );
    }),
  );
  return { a, b, again };
}

const pass = sampleEvalDoc({ verdict: 'pass' });

describe('the family rule: no family pays for a promotion', () => {
  it("gives each family's PAR-2 on both sides and its change, judged by the promotion test on its own pairs", () => {
    const { a, b, again } = measured((f) => (f === 'f1' ? 1.3 : 0.7));
    const c = compareRuns(a, b, 100, { on: 'cpu', again, alpha: 0.01 });
    assert.equal(c.verdict, 'B faster');
    const fam = c.families!;
    assert.equal(fam.families[0]!.family, 'f1', 'the slowest first');
    assert.deepEqual(fam.families.map((f) => f.family).sort(), ['f1', 'f2', 'f3', 'f4']);
    const f1 = fam.families[0]!;
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const meanOfRuns = (side: 'a' | 'b') =>
      mean((side === 'a' ? a : b).filter((r) => r.family === 'f1').map((r) => mean([r.cpu_s!, ...again.get(r.instance)!.map((x) => x[side].cpu_s!)])));
    assert.ok(Math.abs(f1.par2A - meanOfRuns('a')) < 1e-9 && Math.abs(f1.par2B - meanOfRuns('b')) < 1e-9, `${f1.par2A} ${f1.par2B}`);
    assert.ok(Math.abs(f1.change_pct - 100 * (f1.par2B / f1.par2A - 1)) < 1e-9, 'the change is the PAR-2 ratio');
    assert.ok(f1.change_pct > 29 && f1.change_pct < 31, String(f1.change_pct));
    assert.deepEqual([f1.instances, f1.solvedA, f1.solvedB], [8, 8, 8]);
    // Its p is the promotion test's p of worse on the family's own pairs, at the whole comparison's noise.
    const pairs: TestPair[] = a
      .map((r, i) => [r, b[i]!] as const)
      .filter(([r]) => r.family === 'f1')
      .map(([x, y]) => ({
        a: x.cpu_s!,
        b: y.cpu_s!,
        solvedA: true,
        solvedB: true,
        again: again.get(x.instance)!.map((r) => ({ a: { t: r.a.cpu_s!, solved: true }, b: { t: r.b.cpu_s!, solved: true } })),
      }));
    assert.equal(f1.p_slower, objectiveTest(pairs, 'par2', { timeoutS: 100, sigma: c.test.sigma }).p_worse);
    assert.equal(fam.level, DEFAULT_FAMILY_RULE.error / 4, 'the error shared among the four judged families');
    assert.deepEqual(fam.slower, ['f1']);
  });

  it('keeps a specialist out and names the family; promotes it with the veto off, and a winner on every family either way', () => {
    const { a, b, again } = measured((f) => (f === 'f1' ? 1.3 : 0.7));
    const specialist = compareRuns(a, b, 100, { on: 'cpu', again, alpha: 0.01 });
    const d = greedyAccept([{ candidate: 2, json: pass, cmp: specialist }], 0, 5);
    assert.equal(d.winner, null);
    assert.match(
      d.outcome,
      /^SATLUTION_0 stays champion \(1\d\.\d% faster side by side over the 5\.0% margin, but slower on a family: f1 30\.0% slower \(8 instances, PAR-2 5\.50 -> 7\.15 s\); significantly and more than the 5% a family may lose \(each family judged at 0\.050: an error of 0\.2 over 4\)\)$/,
    );
    const off = compareRuns(a, b, 100, { on: 'cpu', again, alpha: 0.01, families: { ...DEFAULT_FAMILY_RULE, veto: false } });
    assert.deepEqual(off.families!.slower, ['f1'], 'still reported');
    assert.equal(greedyAccept([{ candidate: 2, json: pass, cmp: off }], 0, 5).winner, 2);
    const everywhere = measured(() => 0.8);
    const w = compareRuns(everywhere.a, everywhere.b, 100, { on: 'cpu', again: everywhere.again, alpha: 0.01 });
    assert.deepEqual(w.families!.slower, []);
    assert.equal(greedyAccept([{ candidate: 2, json: pass, cmp: w }], 0, 5).winner, 2);
  });

  it('tolerates a family slower within the tolerance, and does not judge a family under min_instances', () => {
    const within = measured((f) => (f === 'f1' ? 1.03 : 0.7));
    const c = compareRuns(within.a, within.b, 100, { on: 'cpu', again: within.again, alpha: 0.01 });
    const f1 = c.families!.families.find((f) => f.family === 'f1')!;
    assert.ok(f1.p_slower! < c.families!.level, '3% slower is significant at 1% noise');
    assert.deepEqual(c.families!.slower, [], 'but within the 5% tolerance');
    const big = measured((f) => (f === 'f1' ? 1.3 : 0.7));
    const small = compareRuns(big.a, big.b, 100, { on: 'cpu', again: big.again, alpha: 0.01, families: { ...DEFAULT_FAMILY_RULE, min_instances: 9 } });
    assert.equal(small.families!.families[0]!.p_slower, null, 'eight instances: reported, not judged');
    assert.deepEqual(small.families!.slower, []);
  });

  it('has nothing to say where the set is one family, or has none', () => {
    const one = measured((f) => (f === 'f1' ? 1.3 : 0.7));
    const none = (rs: InstanceResult[]) => rs.map((r) => ({ ...r, family: null }));
    assert.equal(compareRuns(none(one.a), none(one.b), 100, { on: 'cpu' }).families, undefined);
    // Family-less instances beside named families are a family of their own.
    const mixed = one.a.map((r) => (r.family === 'f4' ? { ...r, family: null } : r));
    const c = familyCheck(
      mixed.map((r, i) => ({ family: r.family, pair: { a: r.time_s, b: one.b[i]!.time_s, solvedA: true, solvedB: true } })),
      { timeoutS: 100, sigma: 0.05 },
    );
    assert.ok(c!.families.some((f) => f.family === NO_FAMILY && f.instances === 8));
  });

  it('a survivor that would pass runs the instances of a family in doubt again, up to FAMILY_RUNS runs; none where no family is in doubt or the rule is off', () => {
    const policy = { racing: { enabled: true, cap_factor: 3, cap_floor_s: 1, min_instances: 5 }, on: 'cpu' as const, reference: new Map<string, number>() };
    const clear = { level: 0.005, marginPct: 5, families: DEFAULT_FAMILY_RULE };
    const racePairs = (factor: (f: string) => number, runs = 3) => {
      const m = measured(factor);
      return m.a.map((x, i) => ({ a: x, b: m.b[i]!, capS: 100, again: m.again.get(x.instance)!.slice(0, runs - 1) }));
    };
    const asked = raceAgain(
      policy,
      100,
      'par2',
      clear,
    )(
      'B',
      racePairs((f) => (f === 'f1' ? 1.3 : 0.6)),
    );
    assert.deepEqual(
      asked.filter((n) => n.startsWith('f1')),
      Array.from({ length: 8 }, (_, k) => `f1-${k}`),
      asked.join(','),
    );
    assert.ok(!asked.some((n) => !n.startsWith('f1')), `only the family in doubt: ${asked.join(',')}`);
    assert.deepEqual(
      raceAgain(
        policy,
        100,
        'par2',
        clear,
      )(
        'B',
        racePairs(() => 0.6),
      ),
      [],
      'a winner everywhere: beyond doubt, and no family in doubt',
    );
    assert.deepEqual(
      raceAgain(policy, 100, 'par2', { ...clear, families: { ...DEFAULT_FAMILY_RULE, veto: false } })(
        'B',
        racePairs((f) => (f === 'f1' ? 1.3 : 0.6)),
      ),
      [],
      'veto off: no family rounds',
    );
    // At FAMILY_RUNS runs an instance runs no more.
    const pairs: FamilyPair[] = Array.from({ length: 8 }, (_, k) => ({
      family: k < 4 ? 'x' : 'y',
      pair: {
        a: 10,
        b: k < 4 ? 14 : 7,
        solvedA: true,
        solvedB: true,
        again: Array.from({ length: k === 0 ? FAMILY_RUNS - 1 : 1 }, () => ({ a: { t: 10, solved: true }, b: { t: k < 4 ? 14 : 7, solved: true } })),
      },
    }));
    const names = pairs.map((_, k) => `i${k}`);
    assert.deepEqual(familyAgain(pairs, names, { timeoutS: 100, sigma: 0.3 }, DEFAULT_FAMILY_RULE), ['i1', 'i2', 'i3']);
  });

  it('the held-out check vetoes a winner slower beyond the tolerance on a held-out family', () => {
    const pairs: TestPair[] = Array.from({ length: 24 }, (_, i) => ({
      a: 10 + (i % 8),
      b: (10 + (i % 8)) * (i < 8 ? 1.5 : 0.7),
      solvedA: true,
      solvedB: true,
    }));
    const of = pairs.map((_, i) => `g${Math.floor(i / 8)}`);
    const whole = heldOutCall(pairs, 24, 'par2', 100);
    assert.notEqual(whole.slower, true, 'faster on the whole set');
    const call = heldOutCall(pairs, 24, 'par2', 100, { of, rule: DEFAULT_FAMILY_RULE });
    assert.equal(call.slower, true);
    assert.match(call.reason, /but slower on a family: g0 50\.0% slower \(8 instances/);
  });

  it('the held-out duel runs the instances of a family in doubt again while the whole set does not veto, and judges them on all their runs', () => {
    const res = (instance: string, family: string, t: number) => run(instance, family, t);
    // 24 pairs: g0 50% slower under B, the rest 30% faster.
    const pairs = Array.from({ length: 24 }, (_, i) => {
      const [name, family, t] = [`h${i}`, `g${Math.floor(i / 8)}`, 10 + (i % 8)];
      return { instance: name, a: res(name, family, t), b: res(name, family, t * (i < 8 ? 1.5 : 0.7)), capS: 100 };
    });
    const again = heldOutAgain(DEFAULT_FAMILY_RULE, 'par2', 100, 'cpu');
    assert.deepEqual(
      again('B', pairs),
      pairs.slice(0, 8).map((p) => p.instance),
    );
    assert.deepEqual(heldOutAgain({ ...DEFAULT_FAMILY_RULE, veto: false }, 'par2', 100, 'cpu')('B', pairs), [], 'veto off: no rounds');
    // Slower on the whole set: the whole set vetoes already, no family round.
    const slower = pairs.map((p) => ({ ...p, b: res(p.instance, p.a.family!, p.a.time_s * 2) }));
    assert.deepEqual(again('B', slower), []);
    // A kept held-out duel is judged on every run of its pairs.
    const brief = (r: InstanceResult) => ({ status: r.status, time_s: r.time_s, cpu_s: r.cpu_s });
    const doc = DuelDoc.parse({
      ...{ session: 'h', purpose: 'held-out', cycle: 1, a: { dir: 'A', hash: 'a' }, b: { dir: 'B', hash: 'b' }, set: 'ho', runner: 'local' },
      ...{ timeout_s: 100, on: 'cpu', started_at: '', ended_at: '', block: 1, fatal: null },
      pairs: pairs.map((p) => ({
        instance: p.instance,
        family: p.a.family,
        order: 'AB',
        a: brief(p.a),
        b: brief(p.b),
        // The further runs of g0 show B 10% faster there: judged on all runs, g0 is no longer slower.
        ...(p.a.family === 'g0'
          ? { again: Array.from({ length: 8 }, () => ({ order: 'AB', a: brief(p.a), b: brief(res(p.instance, 'g0', p.a.time_s * 0.9)) })) }
          : {}),
      })),
      comparison: { par2A: 1, par2B: 1, diff: 0, ci95: [0, 0], p: 1, n: 24, verdict: 'B faster', band_pct: 0, wall_par2A: 1, wall_par2B: 1 },
    });
    assert.notEqual(heldOutEnd(doc, 'par2', DEFAULT_FAMILY_RULE).slower, true, 'g0 at 1.5x in one run of nine and 0.9x in the rest: not slower');
    const once = DuelDoc.parse({ ...doc, pairs: doc.pairs.map(({ again: _, ...p }) => p) });
    assert.equal(heldOutEnd(once, 'par2', DEFAULT_FAMILY_RULE).slower, true, 'on the first runs alone, g0 is 50% slower');
  });

  it("a kept duel keeps each pair's family, so a decision recomputed from it judges families the same way", () => {
    const { a, b } = measured((f) => (f === 'f1' ? 1.3 : 0.7));
    const brief = (r: InstanceResult) => ({ status: r.status, time_s: r.time_s, cpu_s: r.cpu_s });
    const doc = DuelDoc.parse({
      session: 's',
      purpose: 'decision',
      cycle: 1,
      a: { dir: 'A', hash: 'a' },
      b: { dir: 'B', hash: 'b' },
      set: 'perf',
      runner: 'local',
      timeout_s: 100,
      on: 'cpu',
      started_at: '',
      ended_at: '',
      block: 1,
      pairs: a.map((r, i) => ({ instance: r.instance, family: r.family, order: 'AB', a: brief(r), b: brief(b[i]!) })),
      comparison: { par2A: 1, par2B: 1, diff: 0, ci95: [0, 0], p: 1, n: 32, verdict: 'B faster', band_pct: 0, wall_par2A: 1, wall_par2B: 1 },
      fatal: null,
    });
    const c = duelComparison(doc, 0.01, 'par2');
    assert.deepEqual(c.families!.families.map((f) => [f.family, f.instances]).sort(), [
      ['f1', 8],
      ['f2', 8],
      ['f3', 8],
      ['f4', 8],
    ]);
    const old = DuelDoc.parse({ ...doc, pairs: doc.pairs.map(({ family: _, ...p }) => p) });
    assert.equal(duelComparison(old, 0.01, 'par2').families, undefined, 'a duel kept before families were recorded: one family');
  });

  it("RESULTS.md and compare's text give each family's figures and the rule's judgement; the Steering view reads them at a glance", async () => {
    const { a, b, again } = measured((f) => (f === 'f1' ? 1.3 : 0.7));
    const c = compareRuns(a, b, 100, { on: 'cpu', again, alpha: 0.01 });
    const doc = { verdict: 'pass' as const, gates: [], metrics: null };
    const text = renderResults('SATLUTION_2', 3, doc, c);
    const section = text.slice(text.indexOf('### By family'));
    const f1 = c.families!.families[0]!;
    assert.match(section, /^\*\*By family:\*\* f1 \+30\.0% \(slower beyond 5%\), f\d −?-?\d+\.\d%/m);
    assert.ok(section.includes(`| f1 | 8 | ${f1.par2A.toFixed(2)} s | ${f1.par2B.toFixed(2)} s | +30.0% | 8 / 8 | **slower beyond 5%** |`), section);
    assert.match(
      section,
      /Slower on the family f1, significantly \(each of 4 judged at 0\.050: an error of 0\.2\) and more than the 5% tolerance: no promotion \(the family rule\)\./,
    );
    const dir = tempDir('results-');
    await writeResults(dir, 3, doc, c);
    assert.match((await readVerdict(dir)).families ?? '', /^f1 \+30\.0% \(slower beyond 5%\), /);
    const none = compareRuns(
      a.map((r) => ({ ...r, family: null })),
      b.map((r) => ({ ...r, family: null })),
      100,
      { on: 'cpu' },
    );
    const plain = tempDir('results-');
    await writeResults(plain, 3, doc, none);
    assert.equal((await readVerdict(plain)).families, undefined, 'one family: no family figures');
    // compare's text: aligned columns, no Markdown.
    const lines = familyText(c.families!, 'A', 'B');
    assert.equal(lines.length, 5);
    assert.equal(lines[0]!.indexOf('instances'), lines[1]!.indexOf('8'));
    assert.ok(lines[1]!.endsWith('slower beyond 5%') && !lines[1]!.includes('**'), lines[1]);
  });

  it('the dashboard says a specialist was kept out by the family rule, naming the family', () => {
    const duel: DashDuel = {
      ...{ session: 's', purpose: 'decision', on: 'cpu', n: 32, timeoutS: 100, together: true, par2A: 10, par2B: 8.4, wallPar2A: 10, wallPar2B: 8.4 },
      ...{ gainPct: 16, ci95: [-2, -1], p: 0.001, level: 0.005, bandPct: 0, verdict: 'B faster', fatal: null, at: '' },
      families: [
        { family: 'f1', instances: 8, changePct: 30, judged: true, slower: true },
        { family: 'f2', instances: 8, changePct: -30, judged: true, slower: false },
      ],
    };
    const why = decisionWhy(
      { cycle: 2, candidate: 3, champion: 0, outcome: 'vetoed', duel, heldOut: null, race: null, tier: null },
      { alpha: 0.01, minImprovementPct: 5, failure: null, challenger: undefined, champion: undefined },
    );
    assert.match(
      why,
      /It was not promoted: slower beyond the tolerance on f1 \(\+30\.0%, 8 instances\) \(the family rule: no family pays for a promotion\)\.$/,
    );
  });

  it('reads its settings with sound defaults and refuses nonsense', () => {
    assert.deepEqual(FamiliesSchema.parse({}), { veto: true, tolerance_pct: 5, min_instances: 4, error: 0.2 });
    assert.throws(() => FamiliesSchema.parse({ error: 0 }));
    assert.throws(() => FamiliesSchema.parse({ tolerance: 5 }), 'an unknown key');
  });
});
