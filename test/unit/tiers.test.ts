// Multi-fidelity evaluation: fixed nested subsets, promotion by rank within a tier, the champion
// measured on every tier, no promotion from a cheap tier, and a held-out set that can veto a winner.
import * as assert from 'node:assert/strict';
import { readDuels } from '../../src/core/decide/duels';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cpuSpin } from '../fixtures/optsat';
import { metricsHistory } from '../../src/core/agents/context';
import { tunerAgent } from '../../src/core/agents/tuner';
import { planted3Sat } from '../../src/core/instances/generators';
import { loadConfig, parseConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { DashboardSource } from '../../src/core/dashboard/dashboardData';
import { inSubset } from '../../src/core/eval/subset';
import { promotes, rankAmong, readTiers } from '../../src/core/eval/tiers';
import { silentLogger } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { write } from './helpers';
import { optsatWorkspace } from './optsatWorkspace';

const optsat = (edit: (y: string) => string, perf: number) => optsatWorkspace({ perf, perfSeed: 900, edit });

describe('tiers: pieces', () => {
  it('draws fixed, nested subsets of about the asked share', () => {
    const names = Array.from({ length: 2000 }, (_, i) => `family/instance-${i}.cnf`);
    const quarter = names.filter((n) => inSubset(n, 0.25));
    const half = new Set(names.filter((n) => inSubset(n, 0.5)));
    assert.ok(quarter.length > 420 && quarter.length < 580, String(quarter.length));
    assert.ok(
      quarter.every((n) => half.has(n)),
      'a smaller tier lies inside a larger one',
    );
    assert.deepEqual(
      names.filter((n) => inSubset(n, 0.25)),
      quarter,
      'the same draw every time',
    );
    assert.ok(names.every((n) => inSubset(n, 1)));
  });

  it('ranks within a tier and promotes the top share (the best always)', () => {
    assert.deepEqual(rankAmong(5, [1, 7, 9]), { rank: 2, of: 4 });
    assert.equal(promotes(2, 4, 0.5), true);
    assert.equal(promotes(3, 4, 0.5), false);
    assert.equal(promotes(1, 10, 0.01), true);
  });

  it('checks the tier settings', () => {
    const base = 'seeds: [{name: s, source: .}]\nbenchmarks: {smoke: a, verify: b, perf: c, held: d}\n';
    const bad = parseConfig(
      base +
        'stages:\n  perf: {timeout_s: 100, holdout: nope, tiers: [{fraction: 0.5, timeout_s: 50, promote_top: 0.5}, {fraction: 0.25, timeout_s: 200, promote_top: 0.5}]}\n',
    );
    assert.ok(!bad.ok);
    const msgs = bad.ok ? '' : bad.issues.map((i) => `${i.key}: ${i.message}`).join('\n');
    assert.match(msgs, /stages\.perf\.holdout: names no benchmark set/);
    assert.match(msgs, /stages\.perf\.tiers\.1\.fraction: tiers grow: 0\.25 is not above the previous tier's 0\.5/);
    assert.match(msgs, /stages\.perf\.tiers\.1\.timeout_s: a tier's timeout cannot exceed the perf stage's 100 s/);
    assert.ok(parseConfig(base + 'stages:\n  perf: {holdout: held, tiers: [{fraction: 0.25, timeout_s: 10, promote_top: 0.5}]}\n').ok);
  });
});

describe('tiers: cycles', function () {
  this.timeout(300000);

  it('measures the champion on every tier, candidates tier by tier, and never promotes from a cheap tier', async () => {
    const ws = await optsat((y) => y.replace(/^( {2}perf: *\{[^}]*)\}/m, '$1, tiers: [{ fraction: 0.5, timeout_s: 10, promote_top: 0.5 }] }'), 12);
    const config = await loadConfig(ws);
    assert.deepEqual(config.stages.perf.tiers, [{ fraction: 0.5, timeout_s: 10, promote_top: 0.5 }]);
    const logs: string[] = [];
    const outcomes: string[] = [];
    for (let c = 0; c < 3; c++)
      outcomes.push(
        (
          await runCycle({
            ws,
            config,
            agent: tunerAgent(),
            approver: { confirm: async () => true },
            log: silentLogger,
            jobs: 2,
            onEvent: (e) => e.type === 'log' && logs.push(e.message),
          })
        ).outcome ?? '',
      );
    const recs = await readTiers(ws);
    assert.deepEqual(
      recs.filter((r) => r.candidate === 0).map((r) => [r.tier, r.promoted]),
      [
        [1, true],
        [2, true],
      ],
      'the champion goes the whole way',
    );
    assert.ok(
      logs.some((l) => /^SATLUTION_1: tier 1 of 2 \(50% of perf, 10 s\) PAR-2 [\d.]+ s, rank \d of 2: (on to tier 2|stops here)$/.test(l)),
      logs.join('\n'),
    );
    for (const id of [1, 2, 3]) {
      const json = JSON.parse(fs.readFileSync(path.join(ws, '.satlution', 'evals', `SATLUTION_${id}.json`), 'utf8')) as {
        tier?: { reached: number; of: number };
        timeout_s: number;
        instances: unknown[];
      };
      assert.ok(json.tier, `SATLUTION_${id} has its tier`);
      const r1 = recs.find((r) => r.candidate === id && r.tier === 1)!;
      assert.equal(json.tier!.reached, r1.promoted ? 2 : 1);
      // A stopped candidate's measurement is the tier's: half the set, the tier's timeout.
      if (!r1.promoted) {
        assert.equal(json.timeout_s, 10);
        assert.ok(json.instances.length < 12);
        assert.match(outcomes[id - 1]!, /stopped at perf tier 1 of 2|stays champion/);
        assert.match(
          await metricsHistory(ws, 99, 0),
          new RegExp(`SATLUTION_${id}: pass; .*\\[perf tier 1 of 2: a subset at a shorter timeout\\]`),
          'the planner is told the figure is from a cheaper tier',
        );
      }
    }
    const dash = (await new DashboardSource(ws).build({ ...(await new CandidateStore(ws).load()).index, tiers: config.stages.perf.tiers! })).data;
    assert.equal(dash.tiers!.tiers.length, 2);
    assert.equal(dash.tiers!.tiers[0]!.promoteTop, 0.5);
    assert.ok(dash.tiers!.tiers[0]!.measured >= 4);
  });

  it('lets a held-out set veto a winner that is slower there', async () => {
    const ws = await optsat(
      (y) => y.replace(/^benchmarks:\n/m, 'benchmarks:\n  held: benchmarks/held\n').replace(/^( {2}perf: *\{[^}]*)\}/m, '$1, holdout: held }'),
      10,
    );
    for (let i = 0; i < 14; i++) write(path.join(ws, 'benchmarks', 'held', `h${i}.cnf`), planted3Sat(40, 4.0, 950 + i));
    // Slowing down on larger formulas is the point here; the rules are tested elsewhere.
    fs.rmSync(path.join(ws, '.rules'), { recursive: true });
    const config = await loadConfig(ws);
    assert.equal(config.stages.perf.holdout, 'held');
    // A candidate much faster on the perf set (shorter busy loop) but slow on 40-variable formulas.
    const tuner = tunerAgent();
    const agent = {
      ...tuner,
      async code({ candidateDir }: { candidateDir: string }) {
        const opt = path.join(candidateDir, 'src', 'options.h');
        fs.writeFileSync(opt, fs.readFileSync(opt, 'utf8').replace(/OPTION \(delay, \d+,/, 'OPTION (delay, 1000,'));
        const src = path.join(candidateDir, 'src', 'optsat.c');
        fs.writeFileSync(
          src,
          `#include <time.h>\n${fs.readFileSync(src, 'utf8').replace('  assign = calloc(nvars + 1, sizeof(int));', `  if (nvars >= 40)${cpuSpin('600000000')}  assign = calloc(nvars + 1, sizeof(int));`)}`,
        );
        return { finished: true, detail: 'fast on perf, slow on 40-variable formulas' };
      },
    };
    const logs: string[] = [];
    const s = await runCycle({
      ws,
      config,
      agent,
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      onEvent: (e) => e.type === 'log' && logs.push(e.message),
    });
    // Judged once, on the whole held-out set: a prefix of a set with no champion times to order it by is no sample of it.
    assert.match(
      s.outcome ?? '',
      /^SATLUTION_0 stays champion \(SATLUTION_1 won on the perf set, but it is worse on the held-out set held \(side by side: PAR-2 \d+\.\d+ -> \d+\.\d+ s; on all 14 instances, worse than the champion there: PAR-2 \d+\.\d% higher \(the test of worse in expected PAR-2 gives p (< 1e-6|= [\d.e-]+), under the 0\.01 a veto needs\)\)\)$/,
      `${s.outcome}\n${logs.join('\n')}`,
    );
    const held = (await readDuels(ws)).filter((d) => d.purpose === 'held-out');
    assert.deepEqual(
      held.map((d) => [d.stopped, d.pairs.length]),
      [[undefined, 14]],
    );
    assert.equal((await new CandidateStore(ws).load()).index.champion, 0);
  });
});
