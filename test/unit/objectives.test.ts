// Consensus objectives: the aggregation (ranks, Kendall tau, agreement weights with age decay and
// multipliers, weighted Borda), the sandbox (throwing, looping, memory-hungry and sneaky objectives
// score nothing and harm nothing), and the portfolio on real candidates, including an objective
// written by a model (the real OpenAI client against a local server) that must run before it joins.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { consensusSummary } from '../../src/core/agents/context';
import { tunerAgent } from '../../src/core/agents/tuner';
import { loadConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { DashboardSource } from '../../src/core/dashboard/dashboardData';
import { createClient } from '../../src/core/llm/factory';
import { confine } from '../../src/core/isolation/confinedCommand';
import { scriptConfinement } from '../../src/core/isolation/confinement';
import { DEFAULT_ISOLATION } from '../../src/core/isolation/settings';
import { consensus, kendallTau, rankScores } from '../../src/core/objectives/consensus';
import { readPortfolio } from '../../src/core/objectives/portfolio';
import { proposeObjective } from '../../src/core/objectives/propose';
import { type ObjectiveInput, runObjectives } from '../../src/core/objectives/objectiveRunner';
import { silentLogger } from '../../src/core/ports';
import { LlmTestServer } from '../fixtures/llmServer';
import { CLI, tempDir, write } from './helpers';
import { optsatWorkspace } from './optsatWorkspace';

describe('consensus: aggregation', () => {
  it('ranks with average ties and measures agreement with Kendall tau', () => {
    assert.deepEqual(rankScores([3, 1, 3, NaN]), [2.5, 1, 2.5, 4]);
    assert.equal(kendallTau([1, 2, 3, 4], [1, 2, 3, 4]), 1);
    assert.equal(kendallTau([1, 2, 3, 4], [4, 3, 2, 1]), -1);
    assert.ok(Math.abs(kendallTau([1, 2, 3, 4], [1, 3, 2, 4]) - 2 / 3) < 1e-12);
  });

  it('gives an objective that disagrees with the rest no weight, decays old ones and applies multipliers', () => {
    const scores = [
      [1, 2, 3, 4],
      [10, 20, 30, 40], // the same order as the first
      [1, 2, 4, 3], // mostly the same
      [4, 3, 2, 1], // against all of them
    ];
    const at = (round: number, multiplier = 1) => ({ createdRound: round, multiplier });
    const r3 = (xs: number[]) => xs.map((w) => Math.round(w * 1000) / 1000);
    const now = consensus(scores, [at(5), at(5), at(5), at(5)], 5);
    assert.deepEqual(r3(now.weights), [0.333, 0.333, 0.333, 0]);
    assert.deepEqual(r3(now.scores), r3([0, 1 / 3, 7 / 9, 8 / 9]));
    const aged = consensus(scores, [at(3), at(5), at(5), at(5)], 5);
    assert.ok(Math.abs(aged.weights[0]! - (0.81 * 2) / 3 / ((0.81 * 2) / 3 + 4 / 3)) < 1e-9, 'two rounds old: 0.9^2');
    const boosted = consensus(scores, [at(5, 3), at(5), at(5), at(5, 10)], 5);
    assert.deepEqual(r3(boosted.weights), [0.6, 0.2, 0.2, 0], 'a multiplier cannot revive a zero weight');
    assert.deepEqual(
      consensus(
        [
          [1, 2],
          [2, 1],
        ],
        [
          { createdRound: 0, multiplier: 1 },
          { createdRound: 0, multiplier: 1 },
        ],
        0,
      ).weights,
      [0.5, 0.5],
      'no agreement anywhere: uniform',
    );
  });
});

describe('consensus: the sandbox', function () {
  this.timeout(60000);
  const input = (candidate: string, times: number[]): ObjectiveInput => ({
    candidate,
    timeout_s: 10,
    instances: times.map((t, i) => ({ instance: `i${i}`, family: null, expected: 'SAT', answer: 'SAT', status: 'solved', time_s: t, mem_mb: 10 })),
    baseline: [],
  });
  const inputs = [input('a', [1, 2]), input('b', [3, 4])];

  it('scores pure functions and gives nothing for code that throws, loops, hogs memory, escapes or returns junk', async () => {
    const runs = await runObjectives(
      [
        '(d) => d.instances.reduce((s, r) => s + r.time_s, 0)',
        '(d) => { throw new Error("nope"); }',
        '(d) => { for (;;) {} }',
        '(d) => { const a = []; for (;;) a.push(new Array(1e6).fill(1)); }',
        '(d) => require("fs").readdirSync("/").length',
        '(d) => process.exit(1)',
        '(d) => "fast"',
        '(d) => { d.instances.length = 0; return d.instances.length; }',
        '(d) => eval("1 + 1")',
      ],
      inputs,
      { callMs: 300, totalMs: 10000, memMb: 64 },
    );
    assert.deepEqual(runs[0]!.scores, [3, 7]);
    assert.match(runs[1]!.error!, /nope/);
    assert.match(runs[2]!.error!, /timed out/i);
    assert.deepEqual(runs[3]!.scores, [null, null], 'out of memory: its own process died');
    assert.match(runs[4]!.error!, /require is not defined/);
    assert.match(runs[5]!.error!, /process is not defined/);
    assert.deepEqual(runs[6]!.scores, [null, null], 'not a number');
    assert.deepEqual(runs[7]!.scores, [2, 2], 'the input is frozen: the attempt to empty it changed nothing');
    assert.match(runs[8]!.error!, /Code generation from strings disallowed|EvalError/i);
  });

  it('runs its process in the sandbox: code that got out of the VM would still see no files and no keys', async function () {
    if (spawnSync('bwrap', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('bubblewrap is required');
      this.skip();
    }
    const secret = write(path.join(tempDir(), 'secret.txt'), 'canary-file');
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-canary-objective';
    try {
      // The objectives' own confinement (objectives/objectiveRunner.ts): Node's installation and a scratch directory.
      const c = scriptConfinement({ programDirs: [path.dirname(path.dirname(process.execPath))], scratch: tempDir() });
      const probe = `let f = 'unreadable'; try { f = require('fs').readFileSync(${JSON.stringify(secret)}, 'utf8'); } catch {} console.log(JSON.stringify({ f, key: process.env.OPENAI_API_KEY ?? null }));`;
      const boxed = await confine(DEFAULT_ISOLATION, c, process.execPath, ['-e', probe]);
      const r = spawnSync(boxed.cmd, boxed.args, { cwd: boxed.cwd, env: boxed.env, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { f: 'unreadable', key: null });
      // Unconfined, the same code reads the file: the check above can fail.
      assert.equal(JSON.parse(spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).stdout).f, 'canary-file');
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe('consensus: the portfolio on real candidates', function () {
  this.timeout(300000);
  let server: LlmTestServer;
  before(async () => {
    server = new LlmTestServer();
    await server.start();
  });
  after(() => server.close());

  it('scores the defaults, adds a model-written objective only once it runs, and shows the portfolio', async () => {
    const ws = await optsatWorkspace({ perf: 6, perfSeed: 400 });
    const config = await loadConfig(ws);
    for (let c = 0; c < 3; c++) await runCycle({ ws, config, agent: tunerAgent(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });

    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, 'objectives', ...args, '--dir', ws], { encoding: 'utf8' });
    const empty = cli();
    assert.equal(empty.status, 0, empty.stderr);
    assert.match(empty.stdout, /\(none: `satlution objectives defaults` adds a starting set\)/);
    const d = cli('defaults', '--json');
    assert.equal(d.status, 0, d.stderr);
    const view = JSON.parse(d.stdout) as {
      objectives: { name: string; weight: number; error: string | null }[];
      candidates: { candidate: number; score: number }[];
    };
    assert.deepEqual(
      view.objectives.map((o) => o.name),
      ['par2', 'unsolved', 'par2_unsat', 'geomean_speedup'],
    );
    assert.ok(
      view.objectives.every((o) => o.error === null),
      JSON.stringify(view.objectives),
    );
    assert.ok(Math.abs(view.objectives.reduce((s, o) => s + o.weight, 0) - 1) < 1e-9);
    assert.ok(view.candidates.length >= 2, 'the seed and passing candidates are scored');
    assert.equal(cli('add', 'Bad Name!', path.join(ws, 'satlution.yaml')).status, 2);

    // A model proposes an objective that crashes, is told why, then one that works.
    server.queue(
      {
        kind: 'tool',
        name: 'submit_objective',
        args: JSON.stringify({ name: 'hazard', rationale: 'instances finishing just under the timeout', code: '(d) => d.missing.length' }),
      },
      {
        kind: 'tool',
        name: 'submit_objective',
        args: JSON.stringify({
          name: 'hazard',
          rationale: 'instances finishing just under the timeout',
          code: '(d) => d.instances.filter((r) => r.status === "solved" && r.time_s > 0.5 * d.timeout_s).length',
        }),
      },
    );
    const client = createClient({ provider: 'openai-compatible', model: 'objective-model', base_url: `${server.url}/v1` }, 'test-key');
    const added = await proposeObjective(ws, client);
    assert.equal(added.name, 'hazard');
    assert.equal(added.author, 'model');
    assert.match(
      JSON.stringify(server.requests[1]!.body.messages),
      /rejected: it gave no number for \d+ of \d+ candidates.*Cannot read properties of undefined/,
    );
    assert.deepEqual(
      (await readPortfolio(ws)).map((p) => p.entry.name),
      ['par2', 'unsolved', 'par2_unsat', 'geomean_speedup', 'hazard'],
    );
    // The planner sees the consensus beside the measurements.
    assert.match(
      await consensusSummary(ws),
      /^Consensus of the objective portfolio \(0 = first on every weighted objective\): SATLUTION_\d+ [01]\.\d\d.*Objectives: par2 \(weight [01]\.\d\d\): PAR-2 over the whole set/,
    );
    const dash = (await new DashboardSource(ws).build()).data;
    assert.equal(dash.consensus!.objectives.length, 5);
    assert.ok(dash.consensus!.candidates.length >= 2);
  });
});
