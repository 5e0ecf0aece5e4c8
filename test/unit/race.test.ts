import * as assert from 'node:assert/strict';
import { capFor, firstLook, futility, heldOutCall, lowerBound, raceLook, raceOrder, raceSettle, tQuantile } from '../../src/core/eval/race';
import { runSession } from '../../src/core/eval/raceRuns';
import type { InstanceSpec } from '../../src/core/instances/instances';
import { calibrationFile, noiseOf, readCalibration, staleBecause, type CalibrationDoc } from '../../src/core/eval/calibration';
import { duelsDir, readDuels, type DuelDoc, type DuelPair } from '../../src/core/eval/duel';
import { heldOutStop } from '../../src/core/cycle/verdicts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from './helpers';
import { compareRuns, logRatios, ratioTest } from '../../src/core/eval/compare';
import type { InstanceResult } from '../../src/core/run/result';
import { prng } from '../../src/core/instances/generators';

const racing = { enabled: true, detect_gain_pct: 10, cap_factor: 3, cap_floor_s: 1, min_instances: 5 };
const run = (instance: string, status: InstanceResult['status'], time: number, cpu: number | null = null): InstanceResult => ({ instance, family: null, expected: null, expected_from: 'none', answer: status === 'solved' ? 'SAT' : null, status, time_s: time, cpu_s: cpu, mem_mb: null, exit_code: 0, signal: null, check: { kind: 'none', ok: null, time_s: 0, detail: '' }, detail: '' });
const spec = (name: string): InstanceSpec => ({ name, file: name, family: null, expected: null });

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
    const five = new Map([['a', 5], ['b', 4], ['c', 3], ['d', 2], ['e', 1]]);
    assert.deepEqual(raceOrder([...five.keys()].map((name) => ({ name })), five).map((i) => i.name).sort(), ['a', 'b', 'c', 'd', 'e']);
  });

  it('interleaves the families in proportion to their sizes, so a look never judges on one family alone', () => {
    // Sorted by name, the held-out set of the demo began with five multiplier miters: a look after five
    // judged a change that helps random SAT on the one family it does not help.
    const inst = [...Array.from({ length: 8 }, (_, i) => ({ name: `a-planted-${i}`, family: 'planted' })), ...Array.from({ length: 4 }, (_, i) => ({ name: `m-miter-${i}`, family: 'miter' })), ...Array.from({ length: 4 }, (_, i) => ({ name: `p-php-${i}`, family: 'php' }))];
    const order = raceOrder([...inst].reverse(), new Map());
    const count = (k: number, f: string) => order.slice(0, k).filter((i) => i.family === f).length;
    for (const k of [4, 8, 12, 16]) assert.deepEqual([count(k, 'planted'), count(k, 'miter'), count(k, 'php')], [k / 2, k / 4, k / 4], `prefix ${k}`);
    assert.equal(new Set(order.map((i) => i.name)).size, 16);
    // Within a family without times: a cross-section of the names (4, 2, 6, 1, ... of eight).
    assert.deepEqual(order.filter((i) => i.family === 'planted').slice(0, 4).map((i) => i.name), ['a-planted-4', 'a-planted-2', 'a-planted-6', 'a-planted-1']);
    // The first look waits for one instance of each family, and for min_instances.
    assert.equal(firstLook(inst, 2), 3);
    assert.equal(firstLook(inst, 5), 5);
    assert.equal(firstLook([{ family: null }], 0), 2);
  });

  it('caps at a multiple of the champion\'s time, never under the floor, never where the champion failed', () => {
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

  it('drops a challenger once its pairs say it is not the gain the race is for, never before min_instances, and keeps a clear winner', () => {
    const pairs = (ratio: number, n: number, jitter = 0.02) => Array.from({ length: n }, (_, i) => ({ champion: 2 + i, challenger: (2 + i) * ratio * (1 + (i % 2 ? jitter : -jitter)) }));
    assert.equal(futility(pairs(1, 4), 20, racing).drop, false, 'four pairs: too early');
    const same = futility(pairs(1, 8), 20, racing);
    assert.equal(same.drop, true, JSON.stringify(same));
    assert.match(same.reason, /not the 10% gain the race is for: after 8 of 20 instances it is 0\.\d% (faster|slower) than the champion .*its pairs are \d+ times likelier if it is no faster than the champion than if it is 10% faster \(the race drops at 50\)/);
    assert.ok(same.odds! >= 50, String(same.odds));
    assert.equal(futility(pairs(1, 5, 0.1), 20, racing).drop, false, 'five pairs 10% apart are not yet enough evidence');
    assert.equal(futility(pairs(1, 16, 0.1), 20, racing).drop, true, 'sixteen are');
    assert.equal(futility(pairs(1.3, 5), 20, racing).drop, true, '30% slower: dropped at the first look');
    assert.equal(futility(pairs(0.8, 8), 20, racing).drop, false, '20% faster stays');
    assert.equal(futility(pairs(0.9, 20, 0.001), 20, racing).drop, false, 'exactly the gain raced for stays');
    assert.equal(futility(pairs(0.95, 40, 0.001), 44, racing).drop, false, 'half the gain raced for: no evidence either way, it runs on');
    // Wild noise: the spread of few pairs keeps a noisy but real winner in.
    assert.equal(futility(pairs(0.85, 6, 0.3), 20, racing).drop, false);
  });

  it('drops a no-gain challenger after about 15 of 44 pairs at 13% noise per pair, a slower one sooner, and a true 10% gain in about 2% of races', () => {
    // Seeded races of the futility rule alone: log time ratios normal, sd 0.13 (two runs of 9% noise each).
    const rnd = prng(7);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    const race = (gain: number) => {
      const pairs: { champion: number; challenger: number }[] = [];
      for (let n = 1; n <= 44; n++) {
        pairs.push({ champion: 1, challenger: (1 - gain) * Math.exp(0.13 * normal()) });
        if (futility(pairs, 44, racing).drop) return n;
      }
      return undefined;
    };
    const none = Array.from({ length: 1000 }, () => race(0));
    const slower = Array.from({ length: 1000 }, () => race(-0.3));
    assert.ok(slower.every((n) => n !== undefined && n <= 10), 'a challenger 30% slower is dropped within 10 pairs');
    assert.ok(slower.filter((n) => n === 5).length >= 900, `30% slower: dropped at the first look in ${slower.filter((n) => n === 5).length} of 1000`);
    const ten = Array.from({ length: 1000 }, () => race(0.1));
    const dropped = none.filter((n) => n !== undefined) as number[];
    const meanStop = dropped.reduce((t, n) => t + n, 0) / dropped.length;
    assert.ok(dropped.length >= 950, `no gain: dropped in ${dropped.length} of 1000`);
    assert.ok(meanStop > 8 && meanStop < 20, `no gain: dropped after ${meanStop.toFixed(1)} pairs on average`);
    const lost = ten.filter((n) => n !== undefined).length;
    assert.ok(lost <= 30, `a true 10% gain dropped in ${lost} of 1000 races`);
    // Student's t: the expansion is close to the tables.
  });

  it('has Student\'s t quantiles close to the tables', () => {
    assert.ok(Math.abs(tQuantile(0.995, 4) - 4.604) < 0.05, String(tQuantile(0.995, 4)));
    assert.ok(Math.abs(tQuantile(0.995, 20) - 2.845) < 0.01, String(tQuantile(0.995, 20)));
  });

  it('the session runs every side on each instance in rotating order, drops by the look, stops the champion when no one is left, and re-runs a survivor\'s capped runs in full', async () => {
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
      look: (_side, pairs) => {
        const call = futility(pairs.map((p) => ({ champion: p.a.cpu_s!, challenger: lowerBound(p.b, p.capS, 100, 'cpu') })), 10, racing);
        return call.drop ? call.reason : undefined;
      },
    });
    assert.equal(out.b.get('slow')!.dropped?.after, 5, 'dropped at the first look it may be');
    assert.equal(out.b.get('slow')!.results.size, 5);
    assert.equal(out.b.get('fast')!.dropped, undefined);
    assert.equal(out.a.size, 10, 'the champion runs on while a challenger is in');
    assert.deepEqual(calls.slice(0, 3), ['A:i0', 'fast:i0', 'slow:i0']);
    assert.deepEqual(calls.slice(3, 6), ['fast:i1:capped', 'slow:i1:capped', 'A:i1'], 'the order rotates; every challenger is capped alike');
    assert.equal(out.b.get('fast')!.capped, 1);
    assert.equal(calls[calls.length - 1], 'fast:i1', 'the capped run again, uncapped');
    assert.equal(out.b.get('fast')!.results.get('i1')!.status, 'solved');
    // No challenger left: the champion stops too.
    const gone = await runSession({ order, challengers: ['slow'], lanes: 2, block: 1, timeoutS: 100, run: async (side, chunk) => chunk.map((i) => run(i.name, 'solved', side === 'A' ? 1 : 3, side === 'A' ? 1 : 3)), look: (_s, pairs) => (pairs.length >= 5 ? 'slow' : undefined) });
    assert.ok(gone.a.size <= 7, `the champion ran ${gone.a.size} of 10`);
    assert.equal(gone.b.get('slow')!.dropped?.after, 5);
  });

  it('a survivor whose capped pairs already cannot win is dropped at the end instead of running its capped runs again', async () => {
    // 'wild': 3x faster on half the set, capped (over 3x the champion) on the other half: the futility
    // rule cannot tell (the spread is huge), but even with the caps as its times its PAR-2 is higher.
    const order = Array.from({ length: 10 }, (_, i) => spec(`i${i}`));
    const calls: string[] = [];
    const policy = { racing, on: 'cpu' as const, reference: new Map(order.map((i) => [i.name, 2])) };
    const rules = { look: raceLook(policy, 10, 100), settle: raceSettle(policy, 100, 0.0025) };
    const runs = (fastOn: (i: number) => boolean) => async (side: string, chunk: InstanceSpec[], o: { caps: ReadonlyMap<string, number> }) => {
      calls.push(`${side}:${chunk.map((i) => i.name).join(',')}${o.caps.size ? ':capped' : ''}`);
      return chunk.map((i) => (side === 'A' ? run(i.name, 'solved', 2, 2) : fastOn(Number(i.name.slice(1))) ? run(i.name, 'solved', 0.6, 0.6) : o.caps.size ? run(i.name, 'timeout', 6, 6) : run(i.name, 'solved', 9, 9)));
    };
    const wild = await runSession({ order, challengers: ['wild'], lanes: 1, block: 1, timeoutS: 100, run: runs((i) => i % 2 === 0), cap: () => 6, ...rules });
    const s = wild.b.get('wild')!;
    assert.equal(s.dropped?.after, 10);
    assert.match(s.dropped!.reason, /^cannot win: with its 5 capped runs counted at the cap, its PAR-2 is already 65\.0% above the champion's/);
    assert.equal(s.capped, 5);
    assert.ok(!calls.some((c) => c.startsWith('wild:') && !c.endsWith(':capped')), 'no run again in full');
    // Capped on one instance only and fast on the rest: it could win, so its capped run runs again.
    calls.length = 0;
    const good = await runSession({ order, challengers: ['good'], lanes: 1, block: 1, timeoutS: 100, run: runs((i) => i !== 3), cap: () => 6, ...rules });
    assert.equal(good.b.get('good')!.dropped, undefined);
    assert.equal(good.b.get('good')!.results.get('i3')!.status, 'solved');
    assert.deepEqual(calls.filter((c) => !c.endsWith(':capped') && c.startsWith('good')), ['good:i3']);
  });

  it('the held-out check stops as soon as the pairs tell faster or slower there, and runs on while they cannot', () => {
    const pairs = (ratio: number, n: number, jitter = 0.02) => Array.from({ length: n }, (_, i) => ({ champion: 2 + i, challenger: (2 + i) * ratio * (1 + (i % 2 ? jitter : -jitter)) }));
    assert.equal(heldOutCall(pairs(3, 4), 10, 5).stop, false, 'before min_instances');
    const slow = heldOutCall(pairs(3, 5), 10, 5);
    assert.deepEqual([slow.stop, slow.slower], [true, true]);
    assert.match(slow.reason, /^after 5 of 10 instances (19|20)\d\.\d% slower \(geometric mean\), at least \d+\.\d% at 99\.5% confidence$/);
    assert.deepEqual([heldOutCall(pairs(0.7, 5), 10, 5).stop, heldOutCall(pairs(0.7, 5), 10, 5).slower], [true, false]);
    const unsure = heldOutCall(pairs(0.97, 8, 0.1), 10, 5);
    assert.deepEqual([unsure.stop, unsure.slower], [false, undefined], 'a 3% difference in 10% noise: not yet');
  });

  it('a stopped held-out check is judged again on the pairs it stopped at, not on the runs the lanes made past it', () => {
    // Five pairs 3x slower stop the check (a veto); two more the lanes ran meanwhile are 3x faster, and
    // on all seven the interval spans 0: judged on all, the veto would be lost.
    const duelRun = (t: number) => ({ status: 'solved' as const, time_s: t, cpu_s: t });
    const pair = (i: number, a: number, b: number): DuelPair => ({ instance: `i${i}`, order: i % 2 ? 'BA' : 'AB', a: duelRun(a), b: duelRun(b) });
    const pairs = [...Array.from({ length: 5 }, (_, i) => pair(i, 2 + i, 3 * (2 + i) * (i % 2 ? 1.02 : 0.98))), pair(5, 9, 3), pair(6, 9, 3)];
    const reason = heldOutCall(pairs.slice(0, 5).map((p) => ({ champion: p.a.cpu_s!, challenger: p.b.cpu_s! })), 10, 5).reason;
    const d = { pairs, timeout_s: 100, on: 'cpu', stopped: { after: 5, of: 10, reason } } as unknown as DuelDoc;
    assert.equal(heldOutCall(pairs.map((p) => ({ champion: p.a.cpu_s!, challenger: p.b.cpu_s! })), 10, 5).slower, undefined, 'all seven pairs cannot tell');
    const call = heldOutStop(d, 5)!;
    assert.deepEqual([call.stop, call.slower], [true, true]);
    assert.equal(call.reason, reason);
    assert.equal(heldOutStop({ ...d, stopped: undefined } as DuelDoc, 5), undefined, 'a check that ran the whole set has no stop call');
  });

  it('the ratio test: exact up to 16 pairs, sampled beyond, p = 2^-n for n pairs all one way', () => {
    const faster = Array.from({ length: 10 }, (_, i) => Math.log(0.9 - i / 1000));
    const t = ratioTest(faster, 1000, 1);
    assert.equal(t.method, 'exact');
    assert.equal(t.pFaster, 1 / 1024);
    assert.ok(t.speedupPct > 9.9 && t.speedupPct < 10.5, String(t.speedupPct));
    assert.equal(t.pSlower, 1);
    const many = ratioTest(Array.from({ length: 30 }, (_, i) => (i % 2 ? 0.1 : -0.1) + i / 1e4), 5000, 1);
    assert.equal(many.method, 'sampled');
    assert.ok(many.pFaster > 0.2 && many.pSlower > 0.2, JSON.stringify(many));
    // Times under the floor count as the floor: 0.01 s against 0.04 s is no difference.
    assert.deepEqual(logRatios([0.04, 2], [0.01, 1]), [0, Math.log(0.5)]);
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
    const faster = a.map((r) => ({ ...r, time_s: r.time_s * 0.99 }));
    assert.equal(compareRuns(a, faster, 100, { bandPct: 0 }).verdict, 'B faster');
    assert.equal(compareRuns(a, faster, 100, { bandPct: 2 }).verdict, 'no significant difference');
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
