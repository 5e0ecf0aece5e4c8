// The islands strategy: parents from a MAP-Elites database on several islands, migration, duplicate
// rejection before evaluation (normalized sources, binaries) with graded penalties, all derived from
// an append-only log; real cycles with the offline tuner on a small option-tunable solver.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tunerAgent } from '../../src/core/agents/tuner';
import { loadConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { DashboardSource } from '../../src/core/dashboard/dashboardData';
import { silentLogger } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { DEFAULT_ISLANDS } from '../../src/core/config/schema';
import { cellOf, duplicateOf, islandsFile, readIslandDb } from '../../src/core/strategy/islandDb';
import { normalizeSource } from '../../src/core/strategy/sourceHash';
import { optsatWorkspace, withStrategy } from './optsatWorkspace';
import { DEFAULT_ISOLATION } from '../../src/core/isolation/settings';

const optsat = (strategy: string) => optsatWorkspace({ perf: 6, perfSeed: 300, edit: withStrategy(strategy) });

describe('islands: database pieces', () => {
  it('normalizes sources: comments and whitespace go, string literals stay', () => {
    assert.equal(normalizeSource('int a = 1; // one\n/* block\n comment */ int b;'), normalizeSource('int a=1;\n\nint   b;'));
    assert.notEqual(normalizeSource('puts("// not a comment");'), normalizeSource('puts("");'));
  });

  it('places candidates by SAT share and code size relative to the seed', () => {
    assert.deepEqual(cellOf({ sat_share: 0.5, lines: 1000 }, 1000, 5), [2, 2]);
    assert.deepEqual(cellOf({ sat_share: 0.05, lines: 1300 }, 1000, 5), [0, 4]);
    assert.deepEqual(cellOf({ sat_share: null, lines: 700 }, 1000, 5), [2, 0]);
  });
});

describe('islands: cycles', function () {
  this.timeout(300000);

  it('visits the islands in turn, migrates the best, and records every candidate in a grid cell', async () => {
    const ws = await optsat('{ name: islands, islands: { count: 2, population: 10, archive: 3, bins: 3, migration_interval: 2, exploitation: 1 } }');
    const config = await loadConfig(ws);
    const logs: string[] = [];
    const states = [];
    for (let c = 0; c < 3; c++)
      states.push(
        await runCycle({
          ws,
          config,
          agent: tunerAgent(),
          approver: { confirm: async () => true },
          log: silentLogger,
          jobs: 2,
          onEvent: (e) => e.type === 'log' && logs.push(e.message),
        }),
      );
    assert.deepEqual(
      states.map((s) => s.island),
      [0, 1, 0],
    );
    assert.match(logs[0]!, /^cycle 1 starts from SATLUTION_0: island 0 is empty: starting from the champion/);
    // Cycle 2 migrates island 0's best to island 1 first, and starts from it there.
    const db = await readIslandDb(ws, { ...DEFAULT_ISLANDS, count: 2, population: 10, archive: 3, bins: 3, migration_interval: 2, exploitation: 1 });
    assert.equal(db.migrations, 1);
    assert.match(
      logs.find((l) => l.startsWith('cycle 2 starts'))!,
      /island 1's best/,
    );
    // Every candidate and the seed are recorded once, with a cell if they passed.
    assert.deepEqual([...db.byCandidate.keys()].sort(), [0, 1, 2, 3]);
    for (const m of db.byCandidate.values()) assert.ok(m.penalty !== null || m.par2 !== null, JSON.stringify(m));
    assert.ok(db.islands[0]!.cells.size >= 1 && db.islands[1]!.members >= 1);
    assert.equal(db.archive[0]!.par2, Math.min(...[...db.byCandidate.values()].filter((m) => m.par2 !== null).map((m) => m.par2!)));
    // The dashboard's Strategy tab gets the grids.
    const dash = (await new DashboardSource(ws).build()).data;
    assert.equal(dash.strategy, 'islands');
    assert.equal(dash.islands!.islands.length, 5, 'without the config the dashboard uses the default count');
    const withCfg = (
      await new DashboardSource(ws).build({ ...(await new CandidateStore(ws).load()).index, islands: { ...DEFAULT_ISLANDS, count: 2, bins: 3 } })
    ).data;
    assert.equal(withCfg.islands!.islands.length, 2);
    assert.equal(withCfg.islands!.migrations, 1);
  });

  it('rejects a duplicate of an earlier candidate before evaluation, with the "no change" penalty', async () => {
    const ws = await optsat('{ name: islands }');
    const config = await loadConfig(ws);
    const first = await runCycle({ ws, config, agent: tunerAgent(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    assert.equal(first.step, 'done');
    // A "new" proposal that only reformats SATLUTION_1 and adds a comment: the same program.
    const copy = tunerAgent();
    const agent = {
      ...copy,
      async code({ candidateDir }: { candidateDir: string }) {
        const src = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'src', 'options.h'), 'utf8');
        fs.writeFileSync(path.join(candidateDir, 'src', 'options.h'), `/* reformatted */\n${src.replace(/ \\/g, '   \\')}`);
        return { finished: true, detail: 'copied' };
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
    assert.match(s.outcome ?? '', /SATLUTION_2 not evaluated: a duplicate of SATLUTION_1 \(the same sources up to comments and whitespace\)/);
    assert.ok(!fs.existsSync(path.join(ws, '.satlution', 'evals', 'SATLUTION_2.json')), 'never evaluated');
    const { index } = await new CandidateStore(ws).load();
    assert.equal(index.candidates.find((c) => c.id === 2)!.status, 'discarded');
    const db = await readIslandDb(ws, DEFAULT_ISLANDS);
    assert.equal(db.byCandidate.get(2)!.penalty, 'no change');
    assert.equal(db.penalties['no change'], 1);
    assert.equal(await duplicateOf(ws, db, 1), undefined, 'a candidate is not its own duplicate');
    // Same binaries from other sources (an option spelled differently): caught after a fresh build.
    fs.cpSync(path.join(ws, 'SATLUTION_1'), path.join(ws, 'SATLUTION_9'), { recursive: true });
    const opt = path.join(ws, 'SATLUTION_9', 'src', 'options.h');
    fs.writeFileSync(
      opt,
      fs.readFileSync(opt, 'utf8').replace(/OPTION \(delay, (\d+),/, (_m, v: string) => `OPTION (delay, (${v} + 0),`),
    );
    assert.deepEqual(await duplicateOf(ws, db, 9, { timeoutS: 120, isolation: DEFAULT_ISOLATION }), { of: 1, how: 'identical binaries' });
    assert.ok(fs.readFileSync(islandsFile(ws), 'utf8').trim().split('\n').length >= 3);
  });
});
