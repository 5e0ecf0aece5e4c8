// The SIFT strategy: the judge (the real OpenAI client against a local server speaking its wire
// protocol) scores every proposal of a cycle, only the best-scored one is evaluated, the others are
// discarded with the judge's score as the reason, and the scores are recorded against the measured
// gains. Also the judge's answer validation, the correlation statistics and the acceptance rule.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tunerAgent } from '../../src/core/agents/tuner';
import { loadConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { DashboardSource } from '../../src/core/dashboard/dashboardData';
import { readCycle } from '../../src/core/store/cycleState';
import type { Comparison } from '../../src/core/decide/comparison';
import { rewardOf, TrajectoryRecord } from '../../src/core/export/trajectories';
import { createClient } from '../../src/core/llm/factory';
import { silentLogger } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { pearson, spearman } from '../../src/core/strategy/correlation';
import { averageRanks } from '../../src/core/stats/ranks';
import { llmJudge } from '../../src/core/strategy/judge';
import { judgeFromConfig } from '../../src/core/strategy/judgeHost';
import { judgeStats } from '../../src/core/strategy/judgeLog';
import { greedyAccept } from '../../src/core/decide/promotionRule';
import { LlmTestServer } from '../fixtures/llmServer';
import { CLI, tempDir } from './helpers';
import { optsatWorkspace, withStrategy } from './optsatWorkspace';

const score = (s: number, why = 'a concrete mechanism, small scope') => ({
  kind: 'tool' as const,
  name: 'submit_score',
  args: JSON.stringify({ score: s, rationale: why }),
});

describe('SIFT: statistics and acceptance', () => {
  it('computes Pearson and Spearman (average ranks for ties), null when undefined', () => {
    assert.deepEqual(averageRanks([10, 20, 20, 5]), { ranks: [2, 3.5, 3.5, 1], ties: [2] });
    assert.deepEqual(averageRanks([1, 1.0000000001, 3], 1e-9), { ranks: [1.5, 1.5, 3], ties: [2] }, 'within eps: tied');
    assert.equal(spearman([1, 2, 3, 4], [1, 4, 9, 16]), 1);
    assert.ok(Math.abs(pearson([1, 2, 3, 4], [2, 4, 6, 8.5])! - 0.9978) < 1e-3);
    assert.equal(spearman([1, 2, 3], [3, 2, 1]), -1);
    assert.equal(pearson([1, 2], [1, 2]), null, 'fewer than 3 pairs');
    assert.equal(pearson([5, 5, 5], [1, 2, 3]), null, 'no variance');
  });

  it('promotes the largest significant side-by-side gain over the margin, raises the margin to the noise band, and says why nothing won', () => {
    const cmp = (a: number, b: number, verdict: Comparison['verdict']) =>
      ({
        on: 'cpu',
        par2A: a,
        par2B: b,
        verdict,
        common: 8,
        wilcoxon: { p: 0.02 },
        ratio: { p: 0.01, speedup_pct: 100 * (1 - b / a), method: 'exact' },
        test: {
          rank_by: 'par2',
          p: 0.01,
          p_worse: 1,
          log_ratio_p: 0.01,
          par2_p: 0.01,
          solved_p: null,
          speedup_pct: 100 * (1 - b / a),
          gain_pct: 100 * (1 - b / a),
          gain_se_pct: 1,
          sigma: 0.1,
          method: 'run-noise',
        },
        solvedOnlyA: 0,
        solvedOnlyB: 0,
        level: 0.005,
        band_pct: 0,
      }) as Comparison;
    const pass = { verdict: 'pass' } as never;
    const d = greedyAccept(
      [
        { candidate: 3, json: pass, cmp: cmp(10, 8, 'B faster') },
        { candidate: 4, json: pass, cmp: cmp(10, 6, 'B faster') },
        { candidate: 5, json: { verdict: 'fail' } as never, cmp: cmp(10, 1, 'B faster') },
      ],
      0,
      5,
    );
    assert.deepEqual(d, {
      winner: 4,
      outcome:
        'SATLUTION_4 is the new champion (side by side on CPU time: PAR-2 10.00 -> 6.00 s, 40.0% faster (at least 39.2% at 80% confidence), p = 0.010, n = 8; over the 5.0% margin)',
    });
    assert.equal(
      greedyAccept([{ candidate: 3, json: pass, cmp: cmp(10, 9.8, 'B faster') }], 0, 5).outcome,
      'SATLUTION_0 stays champion (2.0% faster side by side: significant, but at 80% confidence only 1.2% faster, under the 5.0% margin)',
    );
    // Significant but under the margin on its first runs; its instances run again put it over: it wins, and says so.
    const twice = { ...cmp(10, 9.8, 'B faster'), again: { instances: 3, runs: 4, par2A: 10, par2B: 9.4 } };
    assert.deepEqual(greedyAccept([{ candidate: 3, json: pass, cmp: twice }], 0, 5), {
      winner: 3,
      outcome:
        'SATLUTION_3 is the new champion (side by side on CPU time: PAR-2 10.00 -> 9.40 s, 6.0% faster (at least 5.2% at 80% confidence) with 3 instances run again by both, up to 4 times each (near the limit and the longest; the mean of the runs), p = 0.010, n = 8; over the 5.0% margin)',
    });
    assert.equal(
      greedyAccept([{ candidate: 3, json: pass, cmp: { ...twice, again: { instances: 3, runs: 4, par2A: 10, par2B: 9.7 } } }], 0, 5).outcome,
      'SATLUTION_0 stays champion (3.0% faster side by side with 3 instances run again by both, up to 4 times each (near the limit and the longest; the mean of the runs): significant, but at 80% confidence only 2.2% faster, under the 5.0% margin)',
    );
    // A 12% noise band raises the 5% margin: a 10% gain no longer wins.
    assert.equal(
      greedyAccept([{ candidate: 3, json: pass, cmp: cmp(10, 9, 'B faster') }], 0, 12).outcome,
      'SATLUTION_0 stays champion (10.0% faster side by side: significant, but at 80% confidence only 9.2% faster, under the 12.0% margin)',
    );
    assert.equal(greedyAccept([{ candidate: 3, json: pass, cmp: cmp(10, 9, 'B faster') }], 0, 5).winner, 3);
    assert.equal(
      greedyAccept(
        [
          { candidate: 3, json: pass, cmp: cmp(10, 9, 'no significant difference') },
          { candidate: 4, json: pass, cmp: undefined },
        ],
        0,
        5,
      ).outcome,
      'SATLUTION_0 stays champion (best of 2 evaluated: no significant difference side by side (10.0%, p = 0.010 against 0.0050, n = 8))',
    );
    // A small set is no bar by itself (the run-noise test has no least p): the outcome gives the test's p and level.
    const few = {
      ...cmp(10, 3, 'no significant difference'),
      common: 4,
      wilcoxon: { n: 4, w: 0, z: null, p: 0.125, method: 'exact' },
      ratio: { p: 0.0625, speedup_pct: 70, method: 'exact' },
      test: {
        rank_by: 'par2',
        p: 0.0625,
        p_worse: 1,
        log_ratio_p: 0.0625,
        par2_p: 0.0625,
        solved_p: null,
        speedup_pct: 70,
        gain_pct: 70,
        gain_se_pct: 40,
        sigma: 0.1,
        method: 'run-noise',
      },
    } as Comparison;
    assert.equal(
      greedyAccept([{ candidate: 3, json: pass, cmp: few }], 0, 5).outcome,
      'SATLUTION_0 stays champion (no significant difference side by side (70.0%, p = 0.063 against 0.0050, n = 4))',
    );
    // Racing: a rejected challenger was measured on part of the set only and can never win; a broken duel blocks a win.
    const raced = { verdict: 'pass', race: { outcome: 'rejected early', ran: 4, of: 10, reason: 'not faster where it counts' } } as never;
    assert.match(
      greedyAccept([{ candidate: 3, json: raced, cmp: cmp(10, 1, 'B faster') }], 0, 5).outcome,
      /SATLUTION_3 rejected early by racing after 4 of 10 instances: not faster where it counts/,
    );
    assert.equal(greedyAccept([{ candidate: 3, json: pass, cmp: cmp(10, 1, 'B faster'), fatal: 'it p1.cnf: wrong' }], 0, 5).winner, null);
  });

  it('ranked solved-then-par2: one that solves more wins without the PAR-2 margin, one that solves fewer never wins, and the most solved goes first', () => {
    const pass = { verdict: 'pass' } as never;
    const cmp = (a: number, b: number, onlyA: number, onlyB: number) =>
      ({
        on: 'cpu',
        par2A: a,
        par2B: b,
        verdict: 'B faster',
        common: 40,
        wilcoxon: { n: 40, p: 0.02 },
        ratio: { p: 0.01, speedup_pct: 1, method: 'sampled' },
        test: {
          rank_by: 'solved-then-par2',
          p: 0.0001,
          p_worse: 1,
          log_ratio_p: 0.2,
          par2_p: 0.01,
          solved_p: 0.0001,
          speedup_pct: 1,
          gain_pct: 100 * (1 - b / a),
          gain_se_pct: 1,
          sigma: 0.1,
          method: 'run-noise',
        },
        solvedOnlyA: onlyA,
        solvedOnlyB: onlyB,
        level: 0.005,
        band_pct: 0,
      }) as Comparison;
    const more = greedyAccept([{ candidate: 3, json: pass, cmp: cmp(10, 9.8, 0, 4) }], 0, 5);
    assert.deepEqual(more, {
      winner: 3,
      outcome:
        'SATLUTION_3 is the new champion (side by side on CPU time: PAR-2 10.00 -> 9.80 s, 2.0% faster (at least 1.2% at 80% confidence), p = 0.00010, n = 40; solves 4 more)',
    });
    assert.equal(
      greedyAccept([{ candidate: 3, json: pass, cmp: cmp(10, 5, 2, 1) }], 0, 5).outcome,
      'SATLUTION_0 stays champion (50.0% faster side by side: significant, but it solves 1 fewer)',
    );
    assert.equal(greedyAccept([{ candidate: 3, json: pass, cmp: cmp(10, 9.8, 1, 1) }], 0, 5).winner, null, 'as many solved: the PAR-2 margin decides');
    assert.equal(
      greedyAccept(
        [
          { candidate: 3, json: pass, cmp: cmp(10, 5, 0, 1) },
          { candidate: 4, json: pass, cmp: cmp(10, 9, 0, 3) },
        ],
        0,
        5,
      ).winner,
      4,
    );
  });
});

describe('trajectory rewards', () => {
  it('grades failures like ThetaEvolve and maps a measured gain through a sigmoid', () => {
    const fail = (gate: string) => ({ verdict: 'fail' as const, failedGate: gate, par2: null, timeoutS: 10 });
    assert.equal(rewardOf('failed', 'coding did not finish: iteration cap', undefined, null), -0.4);
    assert.deepEqual(
      ['comply', 'build', 'smoke', 'verify', 'perf'].map((g) => rewardOf('failed', '', fail(g), null)),
      [-0.3, -0.2, -0.2, -0.1, -0.1],
    );
    const pass = { verdict: 'pass' as const, failedGate: null, par2: 1, timeoutS: 10 };
    assert.equal(rewardOf('evaluated', '', pass, 0), 0.5);
    assert.ok(rewardOf('evaluated', '', pass, 20)! > 0.98 && rewardOf('evaluated', '', pass, -20)! < 0.02);
    assert.equal(rewardOf('discarded', 'plan rejected', undefined, null), null);
  });
});

describe('SIFT: the judge', function () {
  let server: LlmTestServer;
  beforeEach(async () => {
    server = new LlmTestServer();
    await server.start();
  });
  afterEach(() => server.close());
  const client = () => createClient({ provider: 'openai-compatible', model: 'judge-model', base_url: `${server.url}/v1` }, 'test-key');
  const input = { cycle: 1, candidate: 'SATLUTION_1', hypothesis: '# tune restarts', diff: '--- a/x.c\n+++ b/x.c\n', rules: '', rubric: 'score it' };

  it('asks again after a malformed score, telling the model what was wrong', async () => {
    server.queue(
      { kind: 'tool', name: 'submit_score', args: '{"score": 11, "rationale": "excellent idea overall"}' },
      { kind: 'text', text: 'I think 7.' },
      score(7),
    );
    const s = await llmJudge(() => client()).score(input);
    assert.deepEqual(s, { score: 7, rationale: 'a concrete mechanism, small scope' });
    const second = JSON.stringify(server.requests[1]!.body.messages);
    assert.match(second, /invalid: score: Too big/);
    assert.match(JSON.stringify(server.requests[2]!.body.messages), /Call submit_score with your score/);
  });

  it('never makes up a score', async () => {
    server.queue(
      { kind: 'tool', name: 'submit_score', args: 'not json' },
      { kind: 'text', text: 'no' },
      { kind: 'tool', name: 'submit_score', args: '{"score": 0}' },
    );
    await assert.rejects(llmJudge(() => client()).score(input), /the judge gave no valid score for SATLUTION_1 after 3 attempts/);
  });
});

describe('SIFT: a cycle', function () {
  this.timeout(300000);
  let server: LlmTestServer;
  before(async () => {
    server = new LlmTestServer();
    await server.start();
  });
  after(() => server.close());

  it('makes 3 proposals, evaluates only the best-scored one and records the scores against the gain', async () => {
    const ws = await optsatWorkspace({
      perf: 6,
      perfSeed: 90,
      delay: 200000000,
      // Racing off: the judge's pick is measured in full (and side by side) whichever way its mutation goes.
      edit: (y) =>
        withStrategy('{ name: sift, proposals: 3, evaluate_top: 1 }')(y)
          .replace(/^evaluation:\n/m, 'evaluation:\n  racing: { enabled: false }\n')
          .replace(
            /^models: \{\}$/m,
            `models:\n  judge: { provider: openai-compatible, model: judge-model, base_url: "${server.url}/v1", api_key_env: SIFT_TEST_KEY }`,
          ),
    });
    const cfg = path.join(ws, 'satlution.yaml');
    const yaml = fs.readFileSync(cfg, 'utf8');
    const config = await loadConfig(ws);
    assert.equal(config.strategy.name, 'sift', yaml);
    server.queue(score(3, 'risky and unmotivated'), score(8), score(5, 'plausible but small'));
    const logs: string[] = [];
    const judge = judgeFromConfig({ ws, config, apiKey: () => 'test-key', runId: 'r1' });
    assert.ok(judge);
    const s = await runCycle({
      ws,
      config,
      agent: tunerAgent(),
      judge,
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      onEvent: (e) => e.type === 'log' && logs.push(e.message),
    });

    assert.equal(s.step, 'done');
    assert.deepEqual(
      s.proposals.map((p) => [p.candidate, p.coded]),
      [
        [1, true],
        [2, true],
        [3, true],
      ],
    );
    assert.deepEqual(s.selected, [2]);
    // Three different proposals: the tuner draws a new mutation for each.
    const titles = new Set(s.proposals.map((p) => p.title));
    assert.equal(titles.size, 3, [...titles].join(' | '));
    // The judge saw each proposal's plan and its diff, through the submit_score tool.
    assert.equal(server.requests.length, 3);
    for (const r of server.requests) {
      assert.match(JSON.stringify(r.body.messages), /src\/options\.h.*OPTION \(delay/);
      assert.match(JSON.stringify(r.body.tools), /submit_score/);
    }
    assert.ok(
      logs.some((l) => /^judge: SATLUTION_2 scored 8\/10/.test(l)),
      logs.join('\n'),
    );
    const { index } = await new CandidateStore(ws).load();
    const byId = new Map(index.candidates.map((c) => [c.id, c]));
    assert.equal(byId.get(1)!.status, 'discarded');
    assert.match(byId.get(1)!.detail ?? '', /the judge scored it 3\/10, below the top 1 \(8\)/);
    assert.match(byId.get(3)!.detail ?? '', /scored it 5\/10/);
    // Only the selected proposal was benchmarked.
    const evals = fs.readdirSync(path.join(ws, '.satlution', 'evals')).sort();
    assert.deepEqual(evals, ['SATLUTION_0.json', 'SATLUTION_2.json']);
    const stats = await judgeStats(ws);
    assert.deepEqual(
      stats.points.map((p) => [p.candidate, p.score, p.selected, p.gainPct !== null]),
      [
        [1, 3, false, false],
        [2, 8, true, true],
        [3, 5, false, false],
      ],
    );
    assert.equal(stats.n, 1);
    assert.match(s.outcome ?? '', /SATLUTION_2 is the new champion|SATLUTION_0 stays champion/);
    // The dashboard's Strategy tab gets the scores (the strategy inferred from the judge's record).
    const dash = (await new DashboardSource(ws).build()).data;
    assert.equal(dash.strategy, 'sift');
    assert.deepEqual(
      dash.judge?.points.map((p) => p.score),
      [3, 8, 5],
    );
    // satlution status says what the judge did.
    const st = spawnSync(process.execPath, [CLI, 'status', '--dir', ws], { encoding: 'utf8' });
    assert.match(st.stdout, /judge: 3 proposals scored, 1 evaluated \(too few to correlate\)/, st.stdout);
    // Trajectory export: the judge's three sessions, each tied to its proposal and what came of it.
    const out = path.join(tempDir(), 'traj.jsonl');
    const ex = spawnSync(process.execPath, [CLI, 'export', '--dir', ws, '--out', out], { encoding: 'utf8' });
    assert.equal(ex.status, 0, ex.stderr);
    assert.match(ex.stderr, /exported 3 sessions \(\d with a reward\)/);
    const traj = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => TrajectoryRecord.parse(JSON.parse(l)));
    assert.deepEqual(
      traj.map((t) => [t.metadata.role, t.metadata.candidate, t.metadata.status]),
      [
        ['judge', 'SATLUTION_1', 'discarded'],
        ['judge', 'SATLUTION_2', byId.get(2)!.status],
        ['judge', 'SATLUTION_3', 'discarded'],
      ],
    );
    assert.deepEqual(
      traj.map((t) => t.messages.map((m) => m.role)),
      [0, 1, 2].map(() => ['system', 'user', 'assistant']),
    );
    assert.match(JSON.stringify(traj[1]!.messages[2]), /"name":"submit_score","arguments":"\{\\"score\\":8/);
    assert.equal(traj[0]!.metadata.reward, null, 'screened out: nothing measured');
    const r2 = traj[1]!.metadata;
    assert.equal(r2.verdict, 'pass');
    assert.ok(r2.gain_pct !== null && r2.reward !== null && Math.abs(r2.reward - 1 / (1 + Math.exp(-r2.gain_pct / 5))) < 1e-9, JSON.stringify(r2));
    assert.equal((await readCycle(ws))!.step, 'done');
  });
});
