import * as assert from 'node:assert/strict';
import { capFor, lowerBound, raceCall, raceOrder } from '../../src/core/eval/race';
import { calibrationFile, noiseOf, readCalibration, staleBecause, type CalibrationDoc } from '../../src/core/eval/calibration';
import { duelsDir, readDuels } from '../../src/core/eval/duel';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from './helpers';
import { compareRuns } from '../../src/core/eval/compare';
import type { InstanceResult } from '../../src/core/run/result';
import { prng } from '../../src/core/instances/generators';

const racing = { enabled: true, cap_factor: 3, cap_floor_s: 1, min_share: 0.4, min_instances: 5 }; // min_share as set by a user
const run = (instance: string, status: InstanceResult['status'], time: number, cpu: number | null = null): InstanceResult => ({ instance, family: null, expected: null, expected_from: 'none', answer: status === 'solved' ? 'SAT' : null, status, time_s: time, cpu_s: cpu, mem_mb: null, exit_code: 0, signal: null, check: { kind: 'none', ok: null, time_s: 0, detail: '' }, detail: '' });

describe('racing with adaptive capping (the rule)', () => {
  it('runs the champion\'s longest instances first, instances it has no time for before them', () => {
    const ref = new Map([['a', 1], ['b', 50], ['c', 7]]);
    assert.deepEqual(raceOrder([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'new' }], ref).map((i) => i.name), ['new', 'b', 'c', 'a']);
  });

  it('with a decision window, runs a cross-section of the set first (every 1/min_share-th by the champion\'s times), then the rest longest first', () => {
    const ref = new Map(Array.from({ length: 10 }, (_, i) => [`i${i}`, 10 - i] as const)); // i0 longest
    const all = [...ref.keys(), 'new'].map((name) => ({ name }));
    assert.deepEqual(raceOrder(all, ref, 0.2).map((i) => i.name), ['new', 'i0', 'i5', 'i1', 'i2', 'i3', 'i4', 'i6', 'i7', 'i8', 'i9']);
    assert.deepEqual(raceOrder(all, ref, 0.25).slice(1, 4).map((i) => i.name), ['i0', 'i4', 'i8']);
    assert.deepEqual(raceOrder(all, ref).map((i) => i.name), ['new', ...[...ref.keys()]], 'no window: longest first');
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

  it('stops a hopeless challenger at once and one no faster where it counts after min_share, never a real winner', () => {
    const policy = { racing, marginPct: 5, bandPct: 2 };
    // Hopeless: two instances already exceed what the whole set allows (champion total 100).
    assert.equal(raceCall({ runs: [{ lb: 60, ref: 10 }, { lb: 50, ref: 10 }], of: 10, championTotal: 100 }, policy).stop, true);
    // No faster, but too early to say (2 instances, 20% of the champion's time).
    const early = raceCall({ runs: [{ lb: 11, ref: 10 }, { lb: 11, ref: 10 }], of: 10, championTotal: 100 }, policy);
    assert.equal(early.stop, false);
    // No faster on 5 of 10 instances carrying 50% of the champion's time: the band widened for half the
    // set is 2% * sqrt(2) = 2.83%, and 52 > (1 - 0.05 + 0.0283) * 50 = 48.91.
    const slow = raceCall({ runs: Array.from({ length: 5 }, () => ({ lb: 10.4, ref: 10 })), of: 10, championTotal: 100 }, policy);
    assert.equal(slow.stop, true);
    assert.match(slow.reason, /not faster where it counts: on the 5 instances carrying 50% of the champion's time.*less the 2\.8% band for 5 of 10 instances/);
    assert.equal(slow.thresholdS.toFixed(2), '48.91');
    // The widening keeps a small window from rejecting on noise: 8% slower on 5 of 20 instances (54 s) with a
    // 10% band and margin stays, under (1 - 0.1 + 0.1 * sqrt(4)) * 50 = 55; the unwidened threshold, 50, would stop it.
    const small = { racing, marginPct: 10, bandPct: 10 };
    const within = raceCall({ runs: Array.from({ length: 5 }, () => ({ lb: 10.8, ref: 10 })), of: 20, championTotal: 100 }, small);
    assert.equal(within.stop, false, 'an 8% loss on a quarter of the set is inside the widened band (20%)');
    assert.equal(within.thresholdS.toFixed(2), '55.00');
    assert.equal(raceCall({ runs: Array.from({ length: 5 }, () => ({ lb: 11.2, ref: 10 })), of: 20, championTotal: 100 }, small).stop, true, 'a 12% loss is not');
    // A noise band over 100% (a tiny noisy set): thresholds stay at 0, never negative (the document's schema says so).
    const wild = raceCall({ runs: [{ lb: 1, ref: 10 }], of: 10, championTotal: 100 }, { racing, marginPct: 150, bandPct: 150 });
    assert.ok(wild.stop && wild.thresholdS === 0, JSON.stringify(wild));
    // 20% faster on the same instances: goes on.
    assert.equal(raceCall({ runs: Array.from({ length: 5 }, () => ({ lb: 8, ref: 10 })), of: 10, championTotal: 100 }, policy).stop, false);
  });

  it('over random sets, never rejects a challenger that wins under full evaluation (the rule only rejects)', () => {
    // Simulated sets: a challenger with a true speed-up s and per-instance noise; whenever the full set shows a
    // win by the margin, no block of the race may have rejected it.
    const rnd = prng(11);
    let wins = 0;
    let rejectedWinners = 0;
    let savedOnLosers = 0;
    let losers = 0;
    for (let trial = 0; trial < 400; trial++) {
      const n = 24;
      const champ = Array.from({ length: n }, () => 0.5 + 30 * rnd() ** 3);
      const speed = [0.7, 0.8, 1, 1, 1.1, 1.5][trial % 6]!;
      const chal = champ.map((t) => t * speed * (0.9 + 0.2 * rnd()));
      const order = champ.map((_, i) => i).sort((a, b) => champ[b]! - champ[a]!);
      const total = champ.reduce((s, t) => s + t, 0);
      const fullWin = chal.reduce((s, t) => s + t, 0) <= 0.8 * total; // a clear (20%) winner
      let stoppedAt: number | null = null;
      for (let k = 2; k <= n && stoppedAt === null; k += 2) {
        const runs = order.slice(0, k).map((i) => ({ lb: chal[i]!, ref: champ[i]! }));
        if (raceCall({ runs, of: n, championTotal: total }, { racing, marginPct: 5, bandPct: 2 }).stop && k < n) stoppedAt = k;
      }
      if (fullWin) {
        wins++;
        if (stoppedAt !== null) rejectedWinners++;
      } else if (speed >= 1) {
        losers++;
        if (stoppedAt !== null) savedOnLosers += 1 - stoppedAt / n;
      }
    }
    assert.ok(wins > 50, `${wins} clear winners simulated`);
    assert.equal(rejectedWinners, 0, `${rejectedWinners} of ${wins} clear winners were rejected early`);
    assert.ok(savedOnLosers / losers > 0.3, `racing saved only ${(100 * savedOnLosers / losers).toFixed(0)}% of the runs of no-better challengers`);
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
