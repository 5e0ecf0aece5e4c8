import * as assert from 'node:assert/strict';
import {
  capFor,
  DROP_BELOW,
  firstLook,
  futility,
  lookPoints,
  lowerBound,
  raceAgain,
  raceLook,
  raceOrder,
  raceSettle,
  tQuantile,
  type SeenPair,
} from '../../src/core/decide/race';
import { heldOutCall, HELD_OUT_VETO } from '../../src/core/decide/heldOut';
import { runSession, sidePairs, type RunBlock } from '../../src/core/decide/scheduler';
import type { InstanceSpec } from '../../src/core/instances/instances';
import { calibrationFile, noiseOf, readCalibration, staleBecause, type CalibrationDoc } from '../../src/core/decide/calibration';
import { DuelPair, duelsDir, readDuels, type DuelDoc } from '../../src/core/decide/duels';
import { heldOutStop } from '../../src/core/decide/heldOut';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from './helpers';
import { compareRuns } from '../../src/core/decide/comparison';
import {
  AGAIN_RUNS,
  logRatios,
  objectiveTest,
  runModel,
  runNoise,
  SESSION_DRIFT,
  sessionVariance,
  unseenVariance,
  varianceRelief,
  type RankBy,
  type TestPair,
} from '../../src/core/decide/objectiveTest';

/** The promotion test at a 100 s limit and the prior run noise (10%). */
const ot = (pairs: readonly TestPair[], rankBy: RankBy, timeoutS = 100) => objectiveTest(pairs, rankBy, { timeoutS, sigma: 0.1 });
import type { InstanceResult } from '../../src/core/run/result';
import { prng } from '../../src/core/stats/prng';

const racing = { enabled: true, detect_gain_pct: 10, cap_factor: 3, cap_floor_s: 1, min_instances: 5 };
const run = (instance: string, status: InstanceResult['status'], time: number, cpu: number | null = null): InstanceResult => ({
  instance,
  family: null,
  expected: null,
  expected_from: 'none',
  answer: status === 'solved' ? 'SAT' : null,
  status,
  time_s: time,
  cpu_s: cpu,
  mem_mb: null,
  exit_code: 0,
  signal: null,
  check: { kind: 'none', ok: null, time_s: 0, detail: '' },
  detail: '',
});
const spec = (name: string): InstanceSpec => ({ name, file: name, family: null, expected: null });
/** A session of one challenger 'B' in one lane, timeout 100 s, with no look. */
const oneChallenger = (order: InstanceSpec[], runBlock: RunBlock, cap: (instance: string) => number | undefined) =>
  runSession({ order, challengers: ['B'], lanes: 1, block: 1, timeoutS: 100, run: runBlock, cap });

describe('the race (the rules)', () => {
  it('runs instances the champion has no time for first, then a cross-section of the set: every prefix spreads over easy and hard', () => {
    const ref = new Map(Array.from({ length: 16 }, (_, i) => [`i${String(i).padStart(2, '0')}`, 16 - i] as const)); // i00 longest
    const order = raceOrder([...[...ref.keys()].map((name) => ({ name })), { name: 'new' }], ref).map((i) => i.name);
    assert.equal(order[0], 'new');
    assert.deepEqual(order.slice(1, 5), ['i08', 'i04', 'i12', 'i02'], 'the median, the quartiles, then the octiles of the ranks');
    assert.equal(order[16], 'i00', 'the longest comes last: a race that stops early has not paid for it');
    assert.equal(new Set(order).size, 17, 'every instance once');
    // Any prefix of 4 known instances has two from each half of the difficulty range.
    const rank = (n: string) => Number(n.slice(1));
    for (const k of [2, 4, 8]) assert.equal(order.slice(1, 1 + k).filter((n) => rank(n) < 8).length, k / 2, `prefix ${k}`);
    // An odd-sized set is covered too.
    const five = new Map([
      ['a', 5],
      ['b', 4],
      ['c', 3],
      ['d', 2],
      ['e', 1],
    ]);
    assert.deepEqual(
      raceOrder(
        [...five.keys()].map((name) => ({ name })),
        five,
      )
        .map((i) => i.name)
        .sort(),
      ['a', 'b', 'c', 'd', 'e'],
    );
  });

  it('interleaves the families in proportion to their sizes, so a look never judges on one family alone', () => {
    // Sorted by name, the held-out set of the demo began with five multiplier miters: a look after five
    // judged a change that helps random SAT on the one family it does not help.
    const inst = [
      ...Array.from({ length: 8 }, (_, i) => ({ name: `a-planted-${i}`, family: 'planted' })),
      ...Array.from({ length: 4 }, (_, i) => ({ name: `m-miter-${i}`, family: 'miter' })),
      ...Array.from({ length: 4 }, (_, i) => ({ name: `p-php-${i}`, family: 'php' })),
    ];
    const order = raceOrder([...inst].reverse(), new Map());
    const count = (k: number, f: string) => order.slice(0, k).filter((i) => i.family === f).length;
    for (const k of [4, 8, 12, 16]) assert.deepEqual([count(k, 'planted'), count(k, 'miter'), count(k, 'php')], [k / 2, k / 4, k / 4], `prefix ${k}`);
    assert.equal(new Set(order.map((i) => i.name)).size, 16);
    // Within a family without times: a cross-section of the names (4, 2, 6, 1, ... of eight).
    assert.deepEqual(
      order
        .filter((i) => i.family === 'planted')
        .slice(0, 4)
        .map((i) => i.name),
      ['a-planted-4', 'a-planted-2', 'a-planted-6', 'a-planted-1'],
    );
    // The first look waits for one instance of each family, and for min_instances.
    assert.equal(firstLook(inst, 2), 3);
    assert.equal(firstLook(inst, 5), 5);
    assert.equal(firstLook([{ family: null }], 0), 2);
  });

  it("caps at a multiple of the champion's time, never under the floor, never where the champion failed", () => {
    assert.equal(capFor(2, 100, racing), 6);
    assert.equal(capFor(0.05, 100, racing), 1, 'floor');
    assert.equal(capFor(40, 100, racing), 100, 'over the timeout: no cap');
    assert.equal(capFor(200, 100, racing), 100, 'the champion timed out (2T): the challenger gets the whole timeout');
    assert.equal(capFor(undefined, 100, racing), 100);
  });

  it('counts a capped run at its cap, an unsolved one at 2T, a solved one at its time on the chosen basis', () => {
    assert.equal(lowerBound(run('x', 'timeout', 6.01), 6, 100, 'wall'), 6);
    assert.equal(lowerBound(run('x', 'timeout', 100.2), 100, 100, 'wall'), 200);
    assert.equal(lowerBound(run('x', 'memout', 3), 6, 100, 'wall'), 200);
    assert.equal(lowerBound(run('x', 'solved', 3, 2.5), 6, 100, 'cpu'), 2.5);
    assert.equal(lowerBound(run('x', 'solved', 3, null), 6, 100, 'cpu'), 3, 'no CPU time measured: wall');
  });

  const test = { level: 0.005 / 3, rankBy: 'par2' as const, marginPct: 5 };
  /** A level ten instances can reach (2^-10 < 0.025 < 2^-5), for the session's own tests. */
  const loose = { level: 0.025, rankBy: 'par2' as const, marginPct: 5 };
  /** `n` pairs of a challenger `ratio` times the champion's time (alternating jitter), of a set of `of` whose champion times are 2, 3, ... s. */
  const seen = (ratio: number, n: number, jitter = 0.02): SeenPair[] =>
    Array.from({ length: n }, (_, i) => ({ a: 2 + i, b: (2 + i) * ratio * (1 + (i % 2 ? jitter : -jitter)), solvedA: true, solvedB: true, timeout: false }));
  const restOf = (n: number, of: number) => Array.from({ length: of - n }, (_, i) => 2 + n + i);
  const look = (pairs: SeenPair[], of: number, rest = restOf(pairs.length, of)) => futility(pairs, rest, { of, timeoutS: 100, test, minInstances: 5 });

  it('drops a challenger once its chance to pass the promotion test at the end is under DROP_BELOW, only at its looks, and keeps a clear winner', () => {
    assert.deepEqual(lookPoints(5, 20), [5, 7, 9, 12, 15, 19, 20], 'looks grow by a quarter: few of them, so a winner is not dropped by the many');
    assert.deepEqual([look(seen(1, 8), 20).chance, look(seen(1, 9), 20).chance === null], [null, false], 'no call between looks');
    assert.deepEqual([look(seen(1, 4), 20).drop, look(seen(1, 4), 20).chance], [false, null], 'four pairs: too early');
    // No faster: still in after 8 of 20 (the harder rest might go another way), dropped after 12.
    assert.equal(look(seen(1, 8), 20).drop, false);
    const same = look(seen(1, 12), 20);
    assert.equal(same.drop, true, JSON.stringify(same));
    assert.match(
      same.reason,
      /^it cannot pass the promotion test: after 12 of 20 instances it is 0\.\d% (faster|slower) than the champion \(geometric mean of the time ratios, same session\) and its chance to pass at the end of the set is (under 0\.1%|\d\.\d%) \(the race drops under \d+(\.\d)?% at this look\)$/,
    );
    assert.ok(same.chance! < DROP_BELOW);
    assert.equal(look(seen(1, 5, 0.15), 20).drop, false, 'five pairs 15% apart are not yet enough evidence');
    assert.equal(look(seen(1, 15, 0.15), 20).drop, true, 'fifteen are');
    assert.equal(look(seen(1.3, 5), 20).drop, true, '30% slower: dropped at the first look');
    assert.equal(look(seen(0.8, 9), 20).drop, false, '20% faster stays');
    assert.ok(look(seen(0.8, 9), 20).chance! > 0.5);
    assert.equal(look(seen(0.9, 20, 0.001), 44).drop, false, 'a steady 10% gain stays');
    // Wild noise: the spread of few pairs keeps a noisy but real winner in.
    assert.equal(look(seen(0.85, 6, 0.3), 20).drop, false);
  });

  it('does not drop a winner the test passes: no call once every instance ran, and a high chance at the last look before', () => {
    // A demo race (kissat, walkeffort 50 -> 200, CPU s): ten planted formulas up to 35x faster, the rest about even. Exact p = 0.0017 against 0.005; the normal approximation's z of the log ratios is -2.572 against -2.576.
    const times =
      '0.52/0.08 1.12/0.74 0.12/0.12 0.25/0.26 1.52/0.54 0.48/0.07 1.25/1.27 0.12/0.13 1.55/0.08 2.46/2.56 0.53/0.07 0.81/0.61 1.56/1.57 0.11/0.12 0.07/0.08 1.82/1.77 0.21/0.22 3.26/0.09 0.16/0.17 0.52/0.07 0.59/0.53 0.07/0.07';
    const all: SeenPair[] = times
      .split(' ')
      .map((x) => x.split('/').map(Number))
      .map(([a, b]) => ({ a: a!, b: b!, solvedA: true, solvedB: true, timeout: false }));
    const demo = { level: 0.005, rankBy: 'par2' as const, marginPct: 5 };
    // Its second runs measured the run noise at 3%; the first runs' spread alone (the gain varies from 1x to 35x) would not let it pass.
    assert.ok(objectiveTest(all, 'par2', { timeoutS: 20, sigma: 0.03 }).p < 0.005, 'the test passes it');
    assert.ok(objectiveTest(all, 'par2', { timeoutS: 20, sigma: runNoise(all) }).p > 0.005, 'on the spread of its first runs it does not');
    const end = futility(all, [], { of: 22, timeoutS: 20, test: demo, minInstances: 5 });
    assert.deepEqual([end.drop, end.chance], [false, null]);
    const near = futility(
      all.slice(0, 19),
      all.slice(19).map((p) => p.a),
      { of: 22, timeoutS: 20, test: demo, minInstances: 5 },
    );
    assert.ok(!near.drop && near.chance! > 0.5, JSON.stringify(near));
  });

  it('predicts the rest by difficulty: one faster on the easy instances and slower on the hard ones that carry PAR-2 is dropped though faster as a geometric mean; a uniformly faster one stays', () => {
    // 44 instances 0.1 s to 0.1 * 1.2^43 s; the pairs seen are every second one from the easiest up.
    const t = (i: number) => 0.1 * 1.2 ** i;
    const pairs = (f: (i: number) => number, n: number): SeenPair[] =>
      Array.from({ length: n }, (_, k) => ({ a: t(2 * k), b: t(2 * k) * f(2 * k) * (k % 2 ? 1.02 : 0.98), solvedA: true, solvedB: true, timeout: false }));
    const rest = (n: number) => Array.from({ length: 44 - n }, (_, k) => t(2 * k + 1));
    const at = (f: (i: number) => number, n: number) => futility(pairs(f, n), rest(n), { of: 44, timeoutS: 1000, test, minInstances: 5 });
    const easyFast = (i: number) => (i < 22 ? 0.8 : 1.08);
    assert.equal(at(easyFast, 9).drop, false, 'only easy instances seen: 20% faster there');
    const late = at(easyFast, 19);
    assert.ok(late.drop && late.speedupPct > 5, `${late.speedupPct.toFixed(1)}% faster as a geometric mean, chance ${late.chance}`);
    // A few long instances carry this set's PAR-2 (each 1.2 times the one before), so at the prior 10% run noise a 10% gain cannot be shown on it; 30% can.
    for (const n of [9, 19, 24]) assert.equal(at(() => 0.7, n).drop, false, `30% faster everywhere, after ${n}`);
  });

  it("waits for the champion's timeouts before dropping a challenger no faster where the champion solved: that is where a solved-more gain shows", () => {
    const T = 100;
    // 400 instances, 120 of them the champion's timeouts (2T), interleaved as the race's order makes them.
    const timeoutAt = (i: number) => i % 10 < 3;
    const pairs = (n: number, solved: (i: number) => boolean): SeenPair[] =>
      Array.from({ length: n }, (_, i) =>
        timeoutAt(i)
          ? { a: 2 * T, b: solved(i) ? 0.5 * T : 2 * T, solvedA: false, solvedB: solved(i), timeout: true }
          : { a: 5 + (i % 7), b: (5 + (i % 7)) * (i % 2 ? 1.03 : 0.97), solvedA: true, solvedB: true, timeout: false },
      );
    const rest = (n: number) => Array.from({ length: 400 - n }, (_, k) => (timeoutAt(n + k) ? 2 * T : 5 + ((n + k) % 7)));
    const at = (n: number, solved: (i: number) => boolean) => futility(pairs(n, solved), rest(n), { of: 400, timeoutS: T, test, minInstances: 5 });
    const never = () => false;
    assert.equal(at(19, never).drop, false, 'six timeouts run, none solved: too few to tell a challenger that solves a tenth of them');
    assert.equal(at(94, never).drop, true, 'thirty run, none solved: it solves (almost) none of them');
    assert.match(at(94, never).reason, /it solved 0 of the 30 it ran that the champion's measurement did not solve/);
    // One that solves one in seven of them stays, though it is no faster elsewhere.
    const some = (i: number) => timeoutAt(i) && i % 20 === 0;
    assert.equal(at(94, some).drop, false, `solved ${pairs(94, some).filter((p) => p.timeout && p.solvedB).length} of 30: ${at(94, some).chance}`);
    // Two of the champion's stored timeouts that its run beside the challenger solved (near the limit), the challenger slower there: no timeout solved, and no loss on each one to come.
    const beside = pairs(19, never).map((p, i) => (i === 0 || i === 10 ? { ...p, a: 0.9 * T, b: 0.99 * T, solvedA: true, solvedB: true } : p));
    const withBeside = futility(beside, rest(19), { of: 400, timeoutS: T, test, minInstances: 5 });
    assert.ok(!withBeside.drop && withBeside.chance! > 0.8 * at(19, never).chance!, `${withBeside.chance} against ${at(19, never).chance}`);
  });

  it('drops a no-gain challenger after about 5-25 of 44 pairs at 13% noise per pair, a slower one sooner, and a true 15% gain in a few races at most', () => {
    // Seeded races of the futility rule alone: log time ratios normal, sd 0.13 (two runs of 9% noise each).
    const rnd = prng(7);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    const race = (gain: number) => {
      const pairs: SeenPair[] = [];
      for (let n = 1; n <= 44; n++) {
        pairs.push({ a: 1, b: (1 - gain) * Math.exp(0.13 * normal()), solvedA: true, solvedB: true, timeout: false });
        if (futility(pairs, Array(44 - n).fill(1), { of: 44, timeoutS: 100, test, minInstances: 5 }).drop) return n;
      }
      return undefined;
    };
    const none = Array.from({ length: 400 }, () => race(0));
    const slower = Array.from({ length: 400 }, () => race(-0.3));
    assert.ok(
      slower.every((n) => n !== undefined && n <= 10),
      'a challenger 30% slower is dropped within 10 pairs',
    );
    const gain = Array.from({ length: 400 }, () => race(0.15));
    const dropped = none.filter((n) => n !== undefined) as number[];
    const meanStop = dropped.reduce((t, n) => t + n, 0) / dropped.length;
    assert.ok(dropped.length >= 360, `no gain: dropped in ${dropped.length} of 400`);
    // Never before the first look (5); a quarter of the set run, the look judges by its whole threshold.
    assert.ok(meanStop > 5 && meanStop < 26, `no gain: dropped after ${meanStop.toFixed(1)} pairs on average`);
    const lost = gain.filter((n) => n !== undefined).length;
    assert.ok(lost <= 16, `a true 15% gain dropped in ${lost} of 400 races`);
  });

  it("has Student's t quantiles close to the tables", () => {
    assert.ok(Math.abs(tQuantile(0.995, 4) - 4.604) < 0.05, String(tQuantile(0.995, 4)));
    assert.ok(Math.abs(tQuantile(0.995, 20) - 2.845) < 0.01, String(tQuantile(0.995, 20)));
  });

  it("the session runs every side on each instance in rotating order, drops by the look, stops the champion when no one is left, and runs a survivor's capped instances again in full, the champion beside it", async () => {
    const order = Array.from({ length: 10 }, (_, i) => spec(`i${i}`));
    const calls: string[] = [];
    const out = await runSession({
      order,
      challengers: ['fast', 'slow'],
      lanes: 1,
      block: 1,
      timeoutS: 100,
      run: async (side, chunk, o) => {
        calls.push(`${side}:${chunk.map((i) => i.name).join(',')}${o.caps.size ? ':capped' : ''}`);
        // fast: 30% faster, but over its cap (3 s) on i1; slow: 2x slower.
        return chunk.map((i) => {
          const t = side === 'A' ? 2 : side === 'fast' ? (i.name === 'i1' && o.caps.size ? 3 : 1.4) : 4;
          return run(i.name, side === 'fast' && i.name === 'i1' && o.caps.size ? 'timeout' : 'solved', t, t);
        });
      },
      cap: (name) => (name === 'i1' ? 3 : undefined),
      look: raceLook(
        { racing, on: 'cpu', reference: new Map(order.map((i) => [i.name, 2])) },
        order.map((i) => i.name),
        { of: 10, timeoutS: 100, test: loose, minInstances: 5 },
      ),
    });
    assert.equal(out.b.get('slow')!.dropped?.after, 5, 'dropped at the first look it may be');
    assert.equal(out.b.get('slow')!.results.size, 5);
    assert.equal(out.b.get('fast')!.dropped, undefined);
    assert.equal(out.a.size, 10, 'the champion runs on while a challenger is in');
    assert.deepEqual(calls.slice(0, 3), ['A:i0', 'fast:i0', 'slow:i0']);
    assert.deepEqual(calls.slice(3, 6), ['fast:i1:capped', 'slow:i1:capped', 'A:i1'], 'the order rotates; every challenger is capped alike');
    assert.equal(out.b.get('fast')!.capped, 1);
    assert.deepEqual(calls.slice(-2), ['A:i1', 'fast:i1'], 'the capped instance again, uncapped, for both');
    assert.equal(out.b.get('fast')!.rerun, 1);
    assert.equal(out.b.get('fast')!.results.get('i1')!.status, 'solved');
    const i1 = sidePairs(out, 'fast', order).find((p) => p.a.instance === 'i1')!;
    assert.equal(i1.a, out.b.get('fast')!.fresh.get('i1')!.a, "its pair on i1 holds the champion's fresh run, not the session's");
    assert.notEqual(i1.a, out.a.get('i1'));
    // No challenger left: the champion stops too.
    const gone = await runSession({
      order,
      challengers: ['slow'],
      lanes: 2,
      block: 1,
      timeoutS: 100,
      run: async (side, chunk) => chunk.map((i) => run(i.name, 'solved', side === 'A' ? 1 : 3, side === 'A' ? 1 : 3)),
      look: (_s, pairs) => (pairs.length >= 5 ? 'slow' : undefined),
    });
    assert.ok(gone.a.size <= 7, `the champion ran ${gone.a.size} of 10`);
    assert.equal(gone.b.get('slow')!.dropped?.after, 5);
  });

  it('a survivor whose capped pairs already cannot win is dropped at the end instead of running its capped runs again', async () => {
    // 'wild': 3x faster on half the set, capped (over 3x the champion) on the other half; with no look
    // (racing judges only at the end here), even with the caps as its times it cannot pass.
    const order = Array.from({ length: 10 }, (_, i) => spec(`i${i}`));
    const calls: string[] = [];
    const policy = { racing, on: 'cpu' as const, reference: new Map(order.map((i) => [i.name, 2])) };
    const rules = { settle: raceSettle(policy, 100, loose.level, 'par2') };
    const runs = (fastOn: (i: number) => boolean) => async (side: string, chunk: InstanceSpec[], o: { caps: ReadonlyMap<string, number> }) => {
      calls.push(`${side}:${chunk.map((i) => i.name).join(',')}${o.caps.size ? ':capped' : ''}`);
      return chunk.map((i) =>
        side === 'A'
          ? run(i.name, 'solved', 2, 2)
          : fastOn(Number(i.name.slice(1)))
            ? run(i.name, 'solved', 0.6, 0.6)
            : o.caps.size
              ? run(i.name, 'timeout', 6, 6)
              : run(i.name, 'solved', 9, 9),
      );
    };
    const wild = await runSession({ order, challengers: ['wild'], lanes: 1, block: 1, timeoutS: 100, run: runs((i) => i % 2 === 0), cap: () => 6, ...rules });
    const s = wild.b.get('wild')!;
    assert.equal(s.dropped?.after, 10);
    assert.match(
      s.dropped!.reason,
      /^cannot win: with its 5 capped runs counted at the cap and as solved \(the best they could have done\), the promotion test gives p = [01]\.\d+ against the 0\.025 a promotion needs$/,
    );
    assert.equal(s.capped, 5);
    assert.ok(!calls.some((c) => c.startsWith('wild:') && !c.endsWith(':capped')), 'no run again in full');
    // Capped on one instance only and fast on the rest: it could win, so its capped run runs again.
    calls.length = 0;
    const good = await runSession({ order, challengers: ['good'], lanes: 1, block: 1, timeoutS: 100, run: runs((i) => i !== 3), cap: () => 6, ...rules });
    assert.equal(good.b.get('good')!.dropped, undefined);
    assert.equal(good.b.get('good')!.results.get('i3')!.status, 'solved');
    assert.deepEqual(
      calls.filter((c) => !c.endsWith(':capped') && c.startsWith('good')),
      ['good:i3'],
    );
    assert.ok(calls.filter((c) => c === 'A:i3').length === 2, 'the champion ran i3 again beside it');
  });

  it('runs an instance again for both where the champion went past the cap, though the challenger was not capped: the same rule for both sides', async () => {
    const order = Array.from({ length: 6 }, (_, i) => spec(`i${i}`));
    const calls: string[] = [];
    const out = await oneChallenger(
      order,
      async (side, chunk, o) => {
        calls.push(`${side}:${chunk.map((i) => i.name).join(',')}${o.caps.size ? ':capped' : ''}`);
        // The champion's session run of i2 took 9 s, past the challenger's 6 s cap there.
        return chunk.map((i) => run(i.name, 'solved', side === 'A' && i.name === 'i2' && calls.filter((c) => c.startsWith('A:i2')).length === 1 ? 9 : 2, 2));
      },
      () => 6,
    );
    assert.equal(out.b.get('B')!.capped, 0);
    assert.equal(out.b.get('B')!.rerun, 1);
    assert.deepEqual(calls.slice(-2), ['A:i2', 'B:i2']);
    assert.equal(sidePairs(out, 'B', order).find((p) => p.a.instance === 'i2')!.a.time_s, 2, "the fresh pair's champion run");
  });

  it('runs the instances `again` names once more for both sides of a survivor, round after round until it names none, keeps them beside its pairs (not in them), and asks nothing of a dropped one', async () => {
    const order = Array.from({ length: 6 }, (_, i) => spec(`i${i}`));
    const calls: string[] = [];
    const asked: string[] = [];
    const repeats: string[] = [];
    const out = await runSession({
      order,
      challengers: ['keep', 'drop'],
      lanes: 1,
      block: 1,
      timeoutS: 100,
      run: async (side, chunk, o) => {
        calls.push(...chunk.map((i) => `${side}:${i.name}`));
        repeats.push(...chunk.map((i) => `${side}:${i.name}:${o.repeat ?? 0}`));
        return chunk.map((i) => run(i.name, 'solved', side === 'A' ? 10 : 9 + calls.length / 100));
      },
      // i1 capped for 'keep' at 5 s: it runs in full again for both before the second runs.
      cap: (name) => (name === 'i1' ? 5 : undefined),
      look: (side, pairs) => (side === 'drop' && pairs.length >= 2 ? 'dropped' : undefined),
      // Round one: i4 and i1; round two (it sees the runs of round one): i4 alone; then none.
      again: (side, pairs) => {
        const runs = pairs.map((p) => p.again?.length ?? 0).join('');
        asked.push(`${side}:${pairs.length}:${runs}`);
        return runs === '000000' ? ['i4', 'i1'] : runs === '010010' ? ['i4'] : [];
      },
    });
    assert.deepEqual(
      asked,
      ['keep:6:000000', 'keep:6:010010', 'keep:6:010020'],
      'asked for the survivor alone, with its final pairs and their further runs, until it names none',
    );
    const keep = out.b.get('keep')!;
    assert.deepEqual([...keep.again].map(([k, v]) => [k, v.length]).sort(), [
      ['i1', 1],
      ['i4', 2],
    ]);
    assert.deepEqual(
      calls.slice(-6).map((c) => c.split(':')[1]),
      ['i1', 'i1', 'i4', 'i4', 'i4', 'i4'],
      'each round in the order of the set, both sides each',
    );
    assert.deepEqual(new Set(calls.slice(-6).map((c) => c.split(':')[0])), new Set(['A', 'keep']));
    const sp = sidePairs(out, 'keep', order);
    const i4 = sp.find((p) => p.a.instance === 'i4')!;
    assert.ok(i4.again?.length === 2 && i4.again.every((x) => x.a !== i4.a && x.b !== i4.b), 'the further runs are beside the first, which stay in the pair');
    assert.notEqual(i4.again[0]!.b, i4.again[1]!.b);
    assert.equal(i4.b, keep.results.get('i4'));
    assert.equal(out.b.get('drop')!.again.size, 0);
    // Each run again says so, counted per side and instance: a store must not hand back an earlier run.
    assert.deepEqual(repeats.filter((r) => !r.endsWith(':0')).sort(), [
      'A:i1:1',
      'A:i1:2',
      'A:i4:1',
      'A:i4:2',
      'keep:i1:1',
      'keep:i1:2',
      'keep:i4:1',
      'keep:i4:2',
    ]);
  });

  it('asks a survivor near a promotion for second runs of its instances near the limit and of those carrying half of the PAR-2, heaviest first; none of one far from it', () => {
    const policy = { racing, on: 'cpu' as const, reference: new Map<string, number>() };
    const pairsAt = (gain: number, extra: (k: number) => Partial<{ a: InstanceResult; b: InstanceResult }> = () => ({})) =>
      Array.from({ length: 20 }, (_, k) => {
        const t = 1 + k; // i19 heaviest
        return { a: run(`i${k}`, 'solved', t, t), b: run(`i${k}`, 'solved', t * (1 - gain), t * (1 - gain)), capS: 100, ...extra(k) };
      });
    const again = raceAgain(policy, 100, 'par2');
    // 20 pairs all 6% faster: at the prior noise the test's z is over AGAIN_FROM_Z; 3% is under it.
    const names = again('B', pairsAt(0.06));
    const weight = (k: number) => (1 + k) * (2 - 0.06);
    const total = Array.from({ length: 20 }, (_, k) => weight(k)).reduce((x, y) => x + y, 0);
    assert.deepEqual(names.slice(0, 3), ['i19', 'i18', 'i17'], 'heaviest first');
    const share = names.reduce((t, n) => t + weight(Number(n.slice(1))), 0) / total;
    assert.ok(
      share >= 0.5 - 1e-9 && share - weight(Number(names[names.length - 1]!.slice(1))) / total <= 0.5 + 1e-9,
      `${names.join(',')} carry ${share} of the PAR-2`,
    );
    assert.deepEqual(again('B', pairsAt(0.1)).slice(0, 6), names.slice(0, 6), 'well over the margin too: the test is judged on all runs');
    assert.deepEqual(again('B', pairsAt(-0.03)), [], 'slower: far from a promotion');
    assert.deepEqual(again('B', pairsAt(0.03)), [], '3% faster: far from a promotion at 10% noise');
    // A heavy pair both left unsolved says nothing new when run again; a light one near the limit runs again.
    // (20% faster: the flips that pair and the unsolved one may carry keep a 10% gain out of reach.)
    const open = again(
      'B',
      pairsAt(0.2, (k) =>
        k === 19
          ? { a: run('i19', 'timeout', 100, 100), b: run('i19', 'timeout', 100, 100) }
          : k === 0
            ? { a: run('i0', 'solved', 80, 80), b: run('i0', 'solved', 60, 60) }
            : {},
      ),
    );
    assert.ok(!open.includes('i19') && open.includes('i18') && open.includes('i0'), open.join(','));
    // Unless the champion's stored run of it solved it: then it is near the limit too.
    const seenSolved = raceAgain(
      { ...policy, reference: new Map([['i19', 95]]) },
      100,
      'par2',
    )(
      'B',
      pairsAt(0.06, (k) => (k === 19 ? { a: run('i19', 'timeout', 100, 100), b: run('i19', 'timeout', 100, 100) } : {})),
    );
    assert.ok(seenSolved.includes('i19'), seenSolved.join(','));
    // Ranked solved first, one that solves more runs its instance solved by one side only again: its count is judged on all runs.
    const more = pairsAt(0.06, (k) => (k === 0 ? { a: run('i0', 'timeout', 100, 100), b: run('i0', 'solved', 60, 60) } : {}));
    assert.ok(raceAgain(policy, 100, 'solved-then-par2')('B', more).includes('i0'));
  });

  it('after the first round, runs again where one run more takes the most variance off per CPU second, while the test is within reach, up to AGAIN_RUNS runs', () => {
    const policy = { racing, on: 'cpu' as const, reference: new Map<string, number>() };
    // 20 solved pairs, 15% faster, each with a second run; i7 near the 100 s limit (one of its runs timed out).
    const further = (k: number, t: number, gain: number) => [
      { a: run(`i${k}`, 'solved', t * 1.05, t * 1.05), b: run(`i${k}`, 'solved', t * (1 - gain) * 0.95, t * (1 - gain) * 0.95) },
    ];
    const pairsAt = (gain: number, nearRuns = 1) =>
      Array.from({ length: 20 }, (_, k) => {
        const t = 2 + k;
        if (k === 7) {
          // The challenger's runs of it as much faster as the rest (at 15%: 94 s and 95 s).
          const b7 = (t: number) => (t <= 100 ? run('i7', 'solved', t, t) : run('i7', 'timeout', 100, 100));
          const flip = { a: run('i7', 'timeout', 100, 100), b: b7(112 * (1 - gain)) };
          return { a: run('i7', 'solved', 96, 96), b: b7(110.5 * (1 - gain)), capS: 100, again: Array.from({ length: nearRuns }, () => flip) };
        }
        return { a: run(`i${k}`, 'solved', t, t), b: run(`i${k}`, 'solved', t * (1 - gain), t * (1 - gain)), capS: 100, again: further(k, t, gain) };
      });
    const again = raceAgain(policy, 100, 'par2');
    const names = again('B', pairsAt(0.15));
    assert.equal(names[0], 'i7', `the instance near the limit first: ${names.join(',')}`);
    assert.ok(names.length < 20, 'not every instance');
    assert.deepEqual(again('B', pairsAt(-0.1)), [], 'slower on all its runs: no further round');
    const capped = again('B', pairsAt(0.15, AGAIN_RUNS - 1));
    assert.ok(!capped.includes('i7'), `i7 has run ${AGAIN_RUNS} times: ${capped.join(',')}`);
    // Told the level and the margin, a winner beyond doubt (p under a hundredth of the level, the margin at 99%) runs no more; one in doubt does.
    const clear = raceAgain(policy, 100, 'par2', { level: 0.005, marginPct: 5 });
    assert.deepEqual(clear('B', pairsAt(0.6)), [], '60% faster on every run');
    assert.ok(again('B', pairsAt(0.6)).length > 0, 'without the level it would run on');
    assert.deepEqual(clear('B', pairsAt(0.15)), names, 'in doubt: the same round');
  });

  it('measures the noise from every run of an instance, and judges each instance on the mean of all its runs', () => {
    const base = (k: number) => 10 + k;
    // Each side's runs of an instance: x1.1, /1.1 and x1 its time (the first two alone have the same geometric mean).
    const pairs: TestPair[] = Array.from({ length: 8 }, (_, k) => ({
      a: base(k) * 1.1,
      b: base(k) * 1.1,
      solvedA: true,
      solvedB: true,
      again: [
        { a: { t: base(k) / 1.1, solved: true }, b: { t: base(k) / 1.1, solved: true } },
        { a: { t: base(k), solved: true }, b: { t: base(k), solved: true } },
      ],
    }));
    // Each side and instance: ln 1.1, -ln 1.1 and 0 about their mean 0, two degrees of freedom (32 in all), shrunk towards the prior.
    const ss = 16 * 2 * Math.log(1.1) ** 2;
    assert.ok(Math.abs(runNoise(pairs) - Math.sqrt((ss + 4 * 0.01) / (32 + 4))) < 1e-12, String(runNoise(pairs)));
    const noise = { timeoutS: 100, sigma: runNoise(pairs) };
    const three = objectiveTest(pairs, 'par2', noise);
    const two = objectiveTest(
      pairs.map((p) => ({ ...p, again: p.again!.slice(0, 1) })),
      'par2',
      noise,
    );
    assert.ok(Math.abs(three.gain_pct) < 1e-9 && Math.abs(two.gain_pct) < 1e-9, 'both sides alike');
    assert.ok(
      Math.abs(three.gain_se_pct / two.gain_se_pct - Math.sqrt(2 / 3)) < 0.01,
      `three runs each: about the standard error of two times sqrt(2/3): ${three.gain_se_pct} vs ${two.gain_se_pct}`,
    );
  });

  it('reads a duel kept when an instance ran at most twice: its one further run is a list of one', () => {
    const r = { status: 'solved', time_s: 1, cpu_s: 1 };
    const pair = DuelPair.parse({ instance: 'x', order: 'AB', a: r, b: r, again: { order: 'BA', a: r, b: { ...r, time_s: 2 } } });
    assert.deepEqual(
      pair.again?.map((x) => [x.order, x.b.time_s]),
      [['BA', 2]],
    );
  });

  it('judges the test and the margin on the mean of both runs where instances ran twice; the first runs stay as they were', () => {
    const a = Array.from({ length: 20 }, (_, k) => run(`i${k}`, 'solved', 10, 10));
    const b = a.map((r) => run(r.instance, 'solved', 9.8, 9.8)); // 2% faster: under a 5% margin
    const twice = new Map([
      ['i0', [{ a: run('i0', 'solved', 10, 10), b: run('i0', 'solved', 6, 6) }]],
      ['i1', [{ a: run('i1', 'solved', 10, 10), b: run('i1', 'solved', 6, 6) }]],
    ]);
    const plain = compareRuns(a, b, 100, { alpha: 0.01, on: 'cpu' });
    const withAgain = compareRuns(a, b, 100, { alpha: 0.01, on: 'cpu', again: twice });
    assert.equal(plain.again, undefined);
    assert.deepEqual([withAgain.again?.instances, withAgain.again?.par2A], [2, 10]);
    assert.ok(Math.abs(withAgain.again!.par2B - (18 * 9.8 + 2 * 7.9) / 20) < 1e-9, String(withAgain.again!.par2B));
    assert.ok(Math.abs(withAgain.test.gain_pct - (100 * (10 - withAgain.again!.par2B)) / 10) < 1e-9, String(withAgain.test.gain_pct));
    // The second runs disagree with the first (6 s against 9.8 s): they measure more noise than the first runs' spread showed.
    assert.ok(withAgain.test.sigma > plain.test.sigma, `${withAgain.test.sigma} vs ${plain.test.sigma}`);
    assert.deepEqual([withAgain.par2B, withAgain.diff], [plain.par2B, plain.diff], 'the first runs are as they were');
  });

  it('keeps the level at a cap factor of 1.1: an identical challenger is not called faster more often than the test says', async () => {
    // 20 instances with stored champion times, identical solvers with 10% noise, caps at 1.1x the stored
    // time: about a third of the challenger's runs are capped. Running its capped ones again alone would
    // swap its slow draws for fresh ones; running them again for both keeps every pair exchangeable.
    const rnd = prng(3);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    const order = Array.from({ length: 20 }, (_, i) => spec(`i${i}`));
    const stored = new Map(order.map((i, k) => [i.name, 1 + k / 4]));
    let called = 0;
    const trials = 300;
    for (let t = 0; t < trials; t++) {
      const out = await oneChallenger(
        order,
        async (_side, chunk, o) =>
          chunk.map((i) => {
            const x = stored.get(i.name)! * Math.exp(0.1 * normal());
            const cap = o.caps.get(i.name);
            return cap !== undefined && x > cap ? run(i.name, 'timeout', cap, cap) : run(i.name, 'solved', x, x);
          }),
        (name) => 1.1 * stored.get(name)!,
      );
      const sp = sidePairs(out, 'B', order);
      const c = compareRuns(
        sp.map((p) => p.a),
        sp.map((p) => p.b),
        100,
        { alpha: 0.1, on: 'cpu', resamples: 2000 },
      );
      if (c.test.p < 0.05) called++;
    }
    // 5% expected (15 of 300); 26 or more happens by chance in under 0.5% of seeds.
    assert.ok(called <= 25, `${called} of ${trials} identical challengers called faster at a one-sided 5%`);
  });

  const testPairs = (ratio: number, n: number, jitter = 0.02): TestPair[] =>
    Array.from({ length: n }, (_, i) => ({ a: 2 + i, b: (2 + i) * ratio * (1 + (i % 2 ? jitter : -jitter)), solvedA: true, solvedB: true }));

  it('the held-out check judges the whole set once: a veto where the test finds the winner worse at its stated error, "faster" where it finds it better, else a pass', () => {
    const early = heldOutCall(testPairs(3, 12), 20, 'par2', 100);
    assert.deepEqual([early.stop, early.slower], [false, undefined], 'twelve of twenty pairs 3x slower: the rest may go the other way');
    const fast = heldOutCall(testPairs(0.7, 20), 20, 'par2', 100);
    assert.deepEqual([fast.stop, fast.slower], [true, false], fast.reason);
    assert.match(fast.reason, /^on all 20 instances, PAR-2 (29\.9|30\.\d)% lower: better in expected PAR-2 \(p [=<] .+\)$/);
    const slow = heldOutCall(testPairs(3, 20), 20, 'par2', 100);
    assert.deepEqual([slow.stop, slow.slower], [true, true]);
    assert.match(
      slow.reason,
      /^on all 20 instances, worse than the champion there: PAR-2 \d+\.\d% higher \(the test of worse in expected PAR-2 gives p [=<] .+, under the 0\.01 a veto needs\)$/,
    );
    assert.equal(HELD_OUT_VETO, 0.01);
    const unsure = heldOutCall(testPairs(0.97, 20, 0.1), 20, 'par2', 100);
    assert.deepEqual([unsure.stop, unsure.slower], [true, undefined], 'a 3% difference in 10% noise: not shown worse, so it passes');
    // Solved counts first: a winner that solves fewer there is worse there.
    const fewer = Array.from({ length: 15 }, (_, i): TestPair => ({ a: 60, b: i < 12 ? 200 : 60, solvedA: true, solvedB: i >= 12 }));
    assert.equal(heldOutCall(fewer, 15, 'solved-then-par2', 100).slower, true);
    // Slower on the easy instances it meets first, faster near the limit where the PAR-2 is: judged on the whole set, not vetoed.
    const par2win = Array.from({ length: 20 }, (_, i): TestPair =>
      i < 14 ? { a: 1 + i, b: 1.3 * (1 + i), solvedA: true, solvedB: true } : { a: 200, b: 60, solvedA: false, solvedB: true },
    );
    assert.equal(heldOutCall(par2win.slice(0, 14), 20, 'par2', 100).slower, undefined, 'no call on the first fourteen');
    assert.equal(heldOutCall(par2win, 20, 'par2', 100).slower, false);
  });

  it('a held-out check the rule before stopped early keeps its call: a veto where it found the winner worse', () => {
    const duelRun = (t: number) => ({ status: 'solved' as const, time_s: t, cpu_s: t });
    const pair = (i: number, a: number, b: number): DuelPair => ({ instance: `i${i}`, order: i % 2 ? 'BA' : 'AB', a: duelRun(a), b: duelRun(b) });
    const pairs = testPairs(3, 12).map((p, i) => pair(i, p.a, p.b));
    const reason =
      'after 12 of 20 instances worse than the champion there (200.0% slower as a geometric mean; the test of worse in PAR-2 or instance by instance gives p = 0.00024, under the 0.00063 each look may veto at)';
    const d = { pairs, timeout_s: 100, on: 'cpu', stopped: { after: 12, of: 20, reason } } as unknown as DuelDoc;
    const call = heldOutStop(d)!;
    assert.deepEqual([call.stop, call.slower, call.reason], [true, true, reason]);
    const passed = heldOutStop({
      ...d,
      stopped: { after: 8, of: 20, reason: 'after 8 of 20 instances 30.0% faster (geometric mean), at least 12.0% at 99.5% confidence' },
    } as DuelDoc)!;
    assert.equal(passed.slower, undefined);
    assert.equal(heldOutStop({ ...d, stopped: undefined } as DuelDoc), undefined, 'a check that ran the whole set has no stop call');
  });

  it('the promotion test: expected PAR-2 against the run noise, the geometric mean for the report only, solved instances where they count first', () => {
    const ten = testPairs(0.9, 10, 0.001);
    const t = objectiveTest(ten, 'par2', { timeoutS: 100, sigma: runNoise(ten) });
    assert.equal(t.method, 'run-noise');
    assert.ok(t.p < 0.001 && t.p_worse > 0.999 && t.sigma < 0.1, JSON.stringify(t));
    assert.ok(ot(ten, 'par2').p > 0.005, 'at 10% run noise ten instances 10% faster are not enough');
    assert.equal(t.log_ratio_p, 1 / 1024, 'the exact sign flips of the log ratios, for the report');
    assert.ok(Math.abs(t.gain_pct - 10) < 0.1 && t.speedup_pct > 9.9 && t.speedup_pct < 10.1, JSON.stringify(t));
    const many = ot(testPairs(1, 30, 0.1), 'par2');
    assert.ok(many.p > 0.2 && many.p_worse > 0.2, JSON.stringify(many));
    // Times under the floor count as the floor: 0.01 s against 0.04 s is no difference.
    assert.deepEqual(logRatios([0.04, 2], [0.01, 1]), [0, Math.log(0.5)]);
    // Solving more: 12 of 40 instances solved where the champion timed out (2T), 5% slower on the other 28.
    const solvesMore = Array.from({ length: 40 }, (_, i): TestPair =>
      i < 12 ? { a: 200, b: 50, solvedA: false, solvedB: true } : { a: 2 + i, b: (2 + i) * 1.05 * (i % 2 ? 1.02 : 0.98), solvedA: true, solvedB: true },
    );
    const ranked = ot(solvesMore, 'solved-then-par2');
    assert.ok(ranked.p < 0.001 && ranked.solved_p! < 0.001, JSON.stringify(ranked));
    assert.ok(ot(solvesMore, 'par2').p < 0.001, 'its PAR-2 is far lower too: seen by the PAR-2 part');
    // Faster on every easy instance, a little slower on those near the limit: faster as a geometric
    // mean, and in PAR-2 on the runs seen, but not significantly, because each instance near the limit
    // may flip between solved and 2T.
    const skew = Array.from({ length: 20 }, (_, i): TestPair =>
      i < 16 ? { a: 1 + i, b: (1 + i) / 2, solvedA: true, solvedB: true } : { a: 80, b: 90, solvedA: true, solvedB: true },
    );
    const k = ot(skew, 'par2');
    assert.ok(k.log_ratio_p < 0.001 && k.gain_pct > 0 && k.p > 0.01, JSON.stringify(k));
  });

  it('carries the flips of instances near the limit that no run solved, from the density of the times just under it', () => {
    const noise = { timeoutS: 100, sigma: 0.1 };
    assert.deepEqual(unseenVariance(5, 0, noise), { par2: 0, unsolved: 0 }, 'no instance left unsolved: nothing unseen');
    const one = unseenVariance(1, 10, noise);
    const five = unseenVariance(5, 10, noise);
    assert.ok(one.par2 > 0 && Math.abs(five.par2 - 5 * one.par2) < 1e-9, 'in proportion to the density');
    assert.ok(unseenVariance(1000, 2, noise).par2 <= 2 * 2 * 0.3 * 100 ** 2, 'never more than the unsolved instances could carry');
    assert.ok(unseenVariance(5, 10, { timeoutS: 100, sigma: 0.03 }).par2 < five.par2, 'a quieter session flips in a narrower band');
    // Run three times by each side and never solved: fewer hide (all six runs unsolved), and each carries a third.
    const thrice = unseenVariance(5, 10, noise, 3);
    assert.ok(thrice.par2 > 0 && thrice.par2 < five.par2 / 3, `${thrice.par2} vs ${five.par2}`);
    // Running the never-solved pairs again takes some of it off: varianceRelief gives them an equal share of that.
    const set: TestPair[] = [
      ...Array.from({ length: 5 }, (_, k): TestPair => ({ a: 50 + k, b: 50 + k, solvedA: true, solvedB: true })),
      { a: 200, b: 200, solvedA: false, solvedB: false },
      { a: 200, b: 200, solvedA: false, solvedB: false },
    ];
    const relief = varianceRelief(set, noise);
    const share = (unseenVariance(5, 2, noise, 1).par2 - unseenVariance(5, 2, noise, 2).par2) / 2;
    assert.ok(share > 0 && Math.abs(relief[5]! - share) < 1e-9 && relief[6] === relief[5], JSON.stringify(relief));
    // Each never-solved pair carries its share at its own runs: running one of the two again takes what
    // varianceRelief said off the test's variance, though the other ran once.
    const rerun = set.map((p, k): TestPair => (k === 5 ? { ...p, again: [{ a: { t: 200, solved: false }, b: { t: 200, solved: false } }] } : p));
    const variance = (pairs: readonly TestPair[]) => ((objectiveTest(pairs, 'par2', noise).gain_se_pct * 660) / 100) ** 2;
    const taken = variance(set) - variance(rerun);
    assert.ok(taken > 0 && Math.abs(taken - relief[5]!) < 1e-6 * variance(set), `${taken} vs ${relief[5]}`);
  });

  it('the promotion test holds its level for identical solvers at the noise it measures, heavy tails and timeouts included', () => {
    // Identical solvers on sets with heavy tails and timeouts, 30% run noise (three times the prior): the share of p under 5% is at most about 5%.
    const rnd = prng(13);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    const under = { par2: 0, 'solved-then-par2': 0 };
    const trials = 400;
    for (let k = 0; k < trials; k++) {
      const pairs = Array.from({ length: 14 }, (): TestPair => {
        const t = Math.exp(Math.log(0.05) + Math.log(4000) * rnd());
        const [x, y] = [t * Math.exp(0.3 * normal()), t * Math.exp(0.3 * normal())];
        return { a: x > 100 ? 200 : x, b: y > 100 ? 200 : y, solvedA: x <= 100, solvedB: y <= 100 };
      });
      for (const rank of ['par2', 'solved-then-par2'] as const)
        if (objectiveTest(pairs, rank, { timeoutS: 100, sigma: runNoise(pairs) }).p < 0.05) under[rank]++;
    }
    // 20 expected at an exact 5%; 32 or more happens by chance in under 0.5% of seeds.
    assert.ok(under.par2 <= 31 && under['solved-then-par2'] <= 31, JSON.stringify(under));
    assert.ok(under.par2 >= 4, `${under.par2}: a test that never says yes is no test`);
  });

  it("carries the session's speed where the two sides differ in shape near the limit, not where one is faster everywhere", () => {
    const noise = { timeoutS: 100, sigma: 0.1 };
    const pair = (a: number, b: number): TestPair => ({ a, b, solvedA: true, solvedB: true });
    // A winner 10% faster everywhere, far from the limit: in a fast session it is still 10% faster, so
    // the session's speed moves its relative difference by nothing.
    const uniform = Array.from({ length: 20 }, (_, i) => pair(1 + i, 0.9 * (1 + i)));
    assert.ok(sessionVariance(uniform, noise) < 1e-9, `${sessionVariance(uniform, noise)}`);
    // x0.7 on half of the instances near the limit and x1.3 on the other half: in a fast session its
    // slow half comes back under the limit and it wins; in a slow one the champion's instances time out
    // and it loses less than it gains. D moves with the speed, though it may be about 0 in this one.
    const bimodal = Array.from({ length: 20 }, (_, i) => (i % 2 ? pair(70, 49) : { a: 70, b: 200, solvedA: true, solvedB: false }));
    const v = sessionVariance(bimodal, noise);
    // The slope of D in the log of the speed is some hundreds of seconds: the term is its square times the drift's.
    assert.ok(v > (SESSION_DRIFT * 100) ** 2, `${v}`);
    // It is part of the test's variance, beside the run noise (twice what one run more would take off
    // each pair ran once: varianceRelief).
    const total = ((ot(bimodal, 'par2').gain_se_pct * 1400) / 100) ** 2;
    const runs = varianceRelief(bimodal, noise).reduce((t, x) => t + 2 * x, 0);
    assert.ok(Math.abs(total - runs - v) < 1e-6 * total, `${total} = ${runs} + ${v}?`);
  });

  it('takes an instance whose runs all solved it near the limit one noise deviation of their mean nearer the limit, and one far from it at their mean', () => {
    const noise = { timeoutS: 100, sigma: 0.1 };
    // Identical sides: D is 0 and the session's speed moves nothing, so the test's variance is the runs' alone.
    const variance = (t: number, runs: number) => {
      const pair: TestPair = {
        a: t,
        b: t,
        solvedA: true,
        solvedB: true,
        again: Array.from({ length: runs - 1 }, () => ({ a: { t, solved: true }, b: { t, solved: true } })),
      };
      return ((ot([pair], 'par2').gain_se_pct * t) / 100) ** 2;
    };
    const close = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(x, y);
    // Far from the limit: each side's run variance at its runs' mean, divided by its runs.
    assert.ok(close(variance(10, 1), 2 * runModel(10, noise).variance), `${variance(10, 1)}`);
    // Near it: at one noise deviation of the mean nearer it (s / sqrt(k)), where the flips weigh more.
    assert.ok(close(variance(90, 1), 2 * runModel(90 * Math.exp(0.1), noise).variance), `${variance(90, 1)}`);
    assert.ok(close(variance(90, 4), (2 * runModel(90 * Math.exp(0.05), noise).variance) / 4), `${variance(90, 4)}`);
    assert.ok(variance(90, 1) > 2 * runModel(90, noise).variance, 'lucky runs near the limit do not carry the small variance of their luck');
    // Never past the limit: the runs solved it.
    assert.ok(close(variance(99, 1), 2 * runModel(100, noise).variance), `${variance(99, 1)}`);
  });

  it('over A/A sets, a promotion-level test almost never calls a difference; over 20% gains it almost always does', () => {
    const rnd = prng(11);
    const noise = () => Math.exp(0.1 * Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd()));
    let falseCalls = 0;
    let found = 0;
    const trials = 300;
    for (let k = 0; k < trials; k++) {
      const base = Array.from({ length: 22 }, () => Math.exp(Math.log(0.1) + Math.log(300) * rnd()));
      const a = base.map((t, i) => run(`i${i}`, 'solved', t * noise(), t * noise()));
      const same = base.map((t, i) => run(`i${i}`, 'solved', t * noise(), t * noise()));
      const gain = base.map((t, i) => run(`i${i}`, 'solved', 0.8 * t * noise(), 0.8 * t * noise()));
      if (compareRuns(a, same, 100, { alpha: 0.01, on: 'cpu' }).verdict !== 'no significant difference') falseCalls++;
      const c = compareRuns(a, gain, 100, { alpha: 0.01, on: 'cpu' });
      if (c.verdict === 'B faster') found++;
      assert.ok(c.ratio.speedup_pct > 0 || c.verdict !== 'B faster');
    }
    // 1% expected (3 of 300); 9 or more happens by chance in 0.4% of seeds, and a test twice as loose would reach it.
    assert.ok(falseCalls <= 8, `${falseCalls} of ${trials} A/A comparisons called a difference at alpha 0.01`);
    assert.ok(found >= 0.9 * trials, `a 20% gain found in ${found} of ${trials}`);
  });
});

describe('noise calibration (the numbers)', () => {
  it('sizes the band from an A/A pair and says when it no longer holds', () => {
    const rnd = prng(5);
    const a = Array.from({ length: 30 }, (_, i) => run(`i${i}`, 'solved', 1 + i / 10, 1 + i / 10));
    const b = a.map((r) => ({ ...r, time_s: r.time_s * (0.95 + 0.1 * rnd()), cpu_s: r.cpu_s! * (0.99 + 0.02 * rnd()) }));
    const wall = noiseOf(a, b, 100, 'wall', 0.05);
    const cpu = noiseOf(a, b, 100, 'cpu', 0.05);
    assert.ok(wall.band_pct > cpu.band_pct, `wall ${wall.band_pct}% vs cpu ${cpu.band_pct}%`);
    assert.ok(wall.band_pct > 0.5 && wall.band_pct < 5, String(wall.band_pct));
    assert.ok(wall.spread_p90_pct! >= wall.spread_median_pct!);
    // A difference inside the band is never significant.
    const faster = a.map((r) => ({ ...r, time_s: r.time_s * 0.9 }));
    assert.equal(compareRuns(a, faster, 100, { bandPct: 0 }).verdict, 'B faster');
    assert.equal(compareRuns(a, faster, 100, { bandPct: 11 }).verdict, 'no significant difference');
    const scope = { machine: 'm', runner: 'local', set: 'abc', timeout_s: 100 };
    const cal = { at: new Date(Date.now() - 2 * 86400e3).toISOString(), scope } as CalibrationDoc;
    assert.equal(staleBecause(cal, scope, 30), undefined);
    assert.match(staleBecause(cal, { ...scope, set: 'def' }, 30)!, /perf set changed/);
    assert.match(staleBecause(cal, { ...scope, machine: 'n' }, 30)!, /machine changed/);
    assert.match(staleBecause(cal, { ...scope, runner: 'hpc' }, 30)!, /runner changed/);
    assert.match(staleBecause(cal, scope, 1)!, /2 days old/);
    assert.match(staleBecause(undefined, scope, 30)!, /not been measured/);
  });

  it('a torn calibration or duel file (a crash while writing) reads as missing, never as a crash', async () => {
    const ws = tempDir();
    fs.mkdirSync(duelsDir(ws), { recursive: true });
    fs.writeFileSync(calibrationFile(ws), '{"at": "2026-');
    fs.writeFileSync(path.join(duelsDir(ws), 'x.json'), '{"session":');
    assert.equal(await readCalibration(ws), undefined);
    assert.deepEqual(await readDuels(ws), []);
  });
});
