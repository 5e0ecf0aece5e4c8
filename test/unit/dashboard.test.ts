// The Dashboard's data from disk (evaluations, cycles, champion changes, usage), its tolerance of
// damaged files, the webview protocol, and the per-run logs the evaluator keeps for "open log".
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import { saveCycle, type CycleState } from '../../src/core/store/cycleState';
import { buildDashboard, DashboardSource } from '../../src/core/dashboard/dashboardData';
import { instanceLog } from '../../src/core/dashboard/instanceLog';
import { ANSWERS, EXPECTED, PROOF_STATES, RUN_STATUSES } from '../../src/core/dashboard/dashboardSchema';
import type { GateReport, StagePlan } from '../../src/core/eval/gates';
import { runGates } from '../../src/core/eval/gates';
import { computeMetrics } from '../../src/core/eval/metrics';
import { EvalStore } from '../../src/core/eval/evalStore';
import { evalDoc, gateContext } from '../../src/core/eval/plan';
import type { InstanceResult, RunStatus } from '../../src/core/run/result';
import { formatRunLog, runLogPath } from '../../src/core/run/runLog';
import { UsageLedger } from '../../src/core/llm/usage';
import { CandidateStore } from '../../src/core/store/candidates';
import { DashboardHostMessage, DashboardViewMessage } from '../../src/shared/dashboardProtocol';
import type { CalibrationDoc } from '../../src/core/decide/calibration';
import type { DuelDoc, DuelPair } from '../../src/core/decide/duels';
import { decisionWhy } from '../../src/core/dashboard/verdictsView';
import type { EvalDoc } from '../../src/core/eval/evalDoc';
import type { RaceDoc } from '../../src/core/eval/evalDoc';
import { tempDir, write } from './helpers';

const T = 100;
const HASH = (n: number) => n.toString(16).padStart(64, 'c');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Run = [instance: string, family: string | null, expected: 'SAT' | 'UNSAT' | null, status: RunStatus, time: number, answer: 'SAT' | 'UNSAT' | null];

function result([instance, family, expected, status, time_s, answer]: Run): InstanceResult {
  return {
    instance,
    family,
    expected,
    expected_from: expected ? 'meta' : 'none',
    answer,
    status,
    time_s,
    cpu_s: null,
    mem_mb: 12.5,
    exit_code: answer === 'SAT' ? 10 : answer === 'UNSAT' ? 20 : null,
    signal: null,
    check: { kind: answer === 'SAT' ? 'model' : 'none', ok: answer === 'SAT' ? true : null, time_s: 0.001, detail: '' },
    detail: status === 'solved' ? '' : `${status} on ${instance}`,
  };
}

/** PAR-2 by its definition (ARCHITECTURE.md, glossary), independent of the code under test. */
function par2(runs: Run[], truth?: 'SAT' | 'UNSAT'): number | null {
  const rs = truth ? runs.filter((r) => (r[2] ?? (r[3] === 'solved' ? r[5] : null)) === truth) : runs;
  return rs.length ? rs.reduce((s, r) => s + (r[3] === 'solved' ? r[4] : 2 * T), 0) / rs.length : null;
}

const perfPlan = (dir: string): StagePlan => ({ gate: 'perf', dir, timeoutS: T, memMb: 1024, checkProofs: false });
const ok = (gate: GateReport['gate']): GateReport => ({ gate, ok: true, detail: `${gate} ok`, failures: [] });

/** Writes an evaluation the way the evaluator does (evalDoc + EvalStore). */
async function saveEval(ws: string, dir: string, gates: GateReport[], verdict: 'pass' | 'fail'): Promise<void> {
  await new EvalStore(ws).write(dir, evalDoc({ solverDir: path.join(ws, dir), runner: 'local', verdict, gates, stages: [perfPlan('perf')] }));
}

async function savePerf(ws: string, dir: string, runs: Run[], hash: string, fatal?: string): Promise<void> {
  const results = runs.map(result);
  const perf: GateReport = {
    gate: 'perf',
    ok: !fatal,
    detail: fatal ?? 'measured',
    failures: [],
    results,
    metrics: computeMetrics(results, T),
    plan: perfPlan('perf'),
    solverHash: hash,
    reused: 0,
  };
  await saveEval(ws, dir, [ok('comply'), ok('build'), ok('smoke'), ok('verify'), perf], fatal ? 'fail' : 'pass');
}

const KISSAT: Run[] = [
  ['a.cnf', 'f1', 'SAT', 'solved', 1, 'SAT'],
  ['b.cnf', 'f1', 'UNSAT', 'solved', 2, 'UNSAT'],
  ['sub/c.cnf', 'f2', null, 'timeout', T, null],
  ['d.cnf', null, 'SAT', 'solved', 4, 'SAT'],
];
// Another order, and one instance the first baseline never ran.
const CADICAL: Run[] = [
  ['d.cnf', null, 'SAT', 'solved', 1, 'SAT'],
  ['sub/c.cnf', 'f2', null, 'solved', 3, 'UNSAT'],
  ['e.cnf', 'f2', 'UNSAT', 'memout', 7, null],
  ['a.cnf', 'f1', 'SAT', 'solved', 2, 'SAT'],
  ['b.cnf', 'f1', 'UNSAT', 'timeout', T, null],
];
const FAST: Run[] = [
  ['a.cnf', 'f1', 'SAT', 'solved', 0.5, 'SAT'],
  ['b.cnf', 'f1', 'UNSAT', 'solved', 1.5, 'UNSAT'],
  ['sub/c.cnf', 'f2', null, 'solved', 50, 'UNSAT'],
  ['d.cnf', null, 'SAT', 'solved', 0.5, 'SAT'],
];
const SLOW: Run[] = [
  ['a.cnf', 'f1', 'SAT', 'solved', 1.25, 'SAT'],
  ['b.cnf', 'f1', 'UNSAT', 'timeout', T, null],
  ['sub/c.cnf', 'f2', null, 'timeout', T, null],
  ['d.cnf', null, 'SAT', 'solved', 1, 'SAT'],
];

const cycle = (n: number, step: CycleState['step'], parent: number, candidate: number | null, changed = false): CycleState => ({
  cycle: n,
  step,
  parent,
  candidate,
  title: `idea ${n}`,
  started_at: new Date().toISOString(),
  updated_at: '',
  outcome: step === 'done' ? 'ended' : null,
  champion_changed: changed,
  proposals: [],
  hint: null,
  island: null,
  selected: null,
});

/**
 * Two baselines, then: cycle 1's candidate fails to build; cycle 2's becomes champion; cycle 3's is
 * measured but slower; cycle 4's fails verification and is still being recorded; SATLUTION_7 was never
 * evaluated. Spending in cycles 1 and 2 and outside any cycle.
 */
async function workspace(): Promise<string> {
  const ws = tempDir();
  const store = new CandidateStore(ws);
  await store.create({ parent: null, seed: 'kissat', status: 'seed' });
  await store.create({ parent: null, seed: 'cadical', status: 'seed' });
  await store.setChampion(0);
  await savePerf(ws, 'SATLUTION_0', KISSAT, HASH(0));
  await savePerf(ws, 'SATLUTION_1', CADICAL, HASH(1));
  await sleep(5);
  // Cycle 1: a build failure.
  await saveCycle(ws, cycle(1, 'plan', 0, null));
  await store.create({ parent: 0, status: 'failed', detail: 'failed the build gate: x.c:1: error' });
  await saveEval(ws, 'SATLUTION_2', [ok('comply'), { gate: 'build', ok: false, detail: 'x.c:1: error: expected ;', failures: [] }], 'fail');
  await saveCycle(ws, cycle(1, 'done', 0, 2));
  await sleep(5);
  // Cycle 2: a new champion.
  await store.create({ parent: 0, status: 'evaluated' });
  await savePerf(ws, 'SATLUTION_3', FAST, HASH(3));
  await store.setChampion(3);
  await saveCycle(ws, cycle(2, 'done', 0, 3, true));
  await sleep(5);
  // Cycle 3: measured, slower.
  await store.create({ parent: 3, status: 'evaluated' });
  await savePerf(ws, 'SATLUTION_4', SLOW, HASH(4));
  await saveCycle(ws, cycle(3, 'done', 3, 4));
  await sleep(5);
  // Cycle 4: a wrong answer at verify (its file holds verify results, not perf ones); still recording.
  await store.create({ parent: 3, status: 'failed' });
  const verify: GateReport = {
    gate: 'verify',
    ok: false,
    detail: '1 of 2 instances failed: wrong',
    failures: [],
    results: [result(['v1.cnf', null, 'UNSAT', 'wrong', 0.2, 'SAT']), result(['v2.cnf', null, 'SAT', 'solved', 0.1, 'SAT'])],
    metrics: computeMetrics([], T),
    solverHash: HASH(5),
  };
  await saveEval(ws, 'SATLUTION_5', [ok('comply'), ok('build'), ok('smoke'), verify], 'fail');
  await saveCycle(ws, cycle(4, 'evaluate', 3, 5));
  await store.create({ parent: 3, status: 'planning' });
  const ledger = UsageLedger.forWorkspace(ws);
  const use = (cycleNo: number | null, input: number, output: number, usd: number) =>
    ledger.add({
      at: new Date().toISOString(),
      run: 'r',
      cycle: cycleNo,
      role: 'planner',
      model: 'm',
      usage: { input, output, cacheRead: 10, cacheWrite: 1 },
      usd,
    });
  await use(1, 1000, 200, 0.5);
  await use(1, 500, 100, 0.25);
  await use(2, 2000, 400, 1);
  await use(null, 50, 5, 0.01);
  return ws;
}

describe('dashboard data', function () {
  this.timeout(30000);

  it('reads PAR-2, cycles, champions, failures and cost from a workspace', async () => {
    const ws = await workspace();
    const b = await buildDashboard(ws);
    const d = b.data;
    assert.deepEqual(d.notes, []);
    const by = new Map(d.candidates.map((c) => [c.dir, c]));
    assert.deepEqual(
      d.candidates.map((c) => c.dir),
      ['SATLUTION_0', 'SATLUTION_1', 'SATLUTION_2', 'SATLUTION_3', 'SATLUTION_4', 'SATLUTION_5', 'SATLUTION_6'],
    );
    assert.deepEqual(
      d.candidates.filter((c) => c.seed).map((c) => c.seed),
      ['kissat', 'cadical'],
    );
    assert.equal(d.champion, 3);
    for (const [dir, runs] of [
      ['SATLUTION_0', KISSAT],
      ['SATLUTION_1', CADICAL],
      ['SATLUTION_3', FAST],
      ['SATLUTION_4', SLOW],
    ] as const) {
      const p = by.get(dir)!.perf!;
      assert.ok(Math.abs(p.par2 - par2(runs)!) < 1e-9, `${dir} PAR-2`);
      assert.ok(Math.abs((p.par2Sat ?? NaN) - par2(runs, 'SAT')!) < 1e-9, `${dir} SAT PAR-2`);
      assert.ok(Math.abs((p.par2Unsat ?? NaN) - par2(runs, 'UNSAT')!) < 1e-9, `${dir} UNSAT PAR-2`);
      assert.equal(p.solved, runs.filter((r) => r[3] === 'solved').length);
      assert.equal(by.get(dir)!.timeoutS, T);
      assert.equal(by.get(dir)!.hasDetail, true);
    }
    // A failure at build or verify measured no PAR-2, whatever the file's top-level metrics say.
    assert.deepEqual([by.get('SATLUTION_2')!.perf, by.get('SATLUTION_2')!.failedGate, by.get('SATLUTION_2')!.verdict], [null, 'build', 'fail']);
    assert.deepEqual([by.get('SATLUTION_5')!.perf, by.get('SATLUTION_5')!.failedGate, by.get('SATLUTION_5')!.hasDetail], [null, 'verify', false]);
    assert.deepEqual([by.get('SATLUTION_6')!.verdict, by.get('SATLUTION_6')!.perf, by.get('SATLUTION_6')!.failedGate], [null, null, null]);
    assert.deepEqual(
      d.candidates.map((c) => c.cycle),
      [null, null, 1, 2, 3, 4, null],
    );

    // Paper Fig. 8: the champion after each cycle, and each cycle's measured candidate.
    assert.deepEqual(
      d.cycles.map((c) => [c.cycle, c.candidate, c.champion, c.step]),
      [
        [1, 2, 0, 'done'],
        [2, 3, 3, 'done'],
        [3, 4, 3, 'done'],
        [4, 5, 3, 'evaluate'],
      ],
    );
    assert.deepEqual(
      d.cycles.map((c) => c.championPar2),
      [par2(KISSAT), par2(FAST), par2(FAST), par2(FAST)],
    );
    assert.deepEqual(
      d.cycles.map((c) => c.candidatePar2),
      [null, par2(FAST), par2(SLOW), null],
    );
    assert.deepEqual(
      d.cycles.map((c) => c.championChanged),
      [false, true, false, false],
    );

    assert.deepEqual(d.failures, [
      { gate: 'comply', count: 0 },
      { gate: 'build', count: 1 },
      { gate: 'smoke', count: 0 },
      { gate: 'verify', count: 1 },
      { gate: 'perf', count: 0 },
    ]);
    assert.deepEqual(
      d.cost.map((r) => [r.cycle, r.calls, r.input, r.output, r.cacheRead]),
      [
        [1, 2, 1500, 300, 20],
        [2, 1, 2000, 400, 10],
        [null, 1, 50, 5, 10],
      ],
    );
    assert.ok(Math.abs(d.cost[0]!.usd - 0.75) < 1e-12);

    // The instance universe: every perf instance of any candidate, once; families and known answers.
    assert.deepEqual([...d.instances.name].sort(), ['a.cnf', 'b.cnf', 'd.cnf', 'e.cnf', 'sub/c.cnf']);
    assert.deepEqual(d.families, ['f1', 'f2']);
    const at = (name: string) => d.instances.name.indexOf(name);
    assert.equal(d.families[d.instances.family[at('e.cnf')]!], 'f2');
    assert.equal(d.instances.family[at('d.cnf')], -1);
    assert.equal(EXPECTED[d.instances.expected[at('b.cnf')]!], 'UNSAT');
    assert.equal(EXPECTED[d.instances.expected[at('sub/c.cnf')]!], null);

    // Columns: only for known candidates with perf results, aligned with the names.
    const cols = b.columns([3, 1, 99, 2, 3]);
    assert.deepEqual(
      cols.map((c) => c.id),
      [3, 1],
    );
    const cad = cols[1]!;
    for (const r of CADICAL) {
      const i = at(r[0]);
      assert.equal(RUN_STATUSES[cad.status[i]!], r[3], r[0]);
      assert.equal(cad.time[i], r[4]);
      assert.equal(ANSWERS[cad.answer[i]!], r[5]);
    }
    assert.equal(cols[0]!.status[at('e.cnf')], -1, 'not run: -1');
    assert.ok(DashboardHostMessage.safeParse({ type: 'data', data: d }).success, 'the data satisfies the protocol');
    assert.ok(DashboardHostMessage.safeParse({ type: 'detail', version: d.version, columns: cols }).success, 'the columns satisfy the protocol');
  });

  it("shows what each UNSAT answer's proof showed: proved, not checked, not proved (unsolved) or rejected, from the perf audit and the promotion audit", async () => {
    const ws = tempDir();
    const store = new CandidateStore(ws);
    await store.create({ parent: null, seed: 'cadical', status: 'seed' });
    await store.setChampion(0);
    const drat = (ok: boolean | null, detail: string) => ({ kind: 'drat' as const, ok, time_s: 0.2, detail });
    const results: InstanceResult[] = [
      { ...result(['sat.cnf', null, 'SAT', 'solved', 1, 'SAT']) },
      // The perf audit verified this one's proof: its result carries the check.
      { ...result(['audited.cnf', null, null, 'solved', 2, 'UNSAT']), check: drat(true, 's VERIFIED') },
      // Kept, never drawn by any audit.
      { ...result(['kept.cnf', null, null, 'solved', 3, 'UNSAT']) },
      // Its check ran out of CPU time: unsolved.
      {
        ...result(['slow.cnf', null, null, 'unknown', 4, 'UNSAT']),
        check: drat(null, 'its proof was not verified: drat-trim did not finish within its 10 s of CPU time'),
      },
      // Checked by the promotion audit only (the record below).
      { ...result(['promoted.cnf', null, null, 'solved', 5, 'UNSAT']) },
      // A lie the perf audit caught.
      { ...result(['lie.cnf', null, null, 'invalid_proof', 0.1, 'UNSAT']), check: drat(false, 'proof rejected by drat-trim') },
    ];
    const perf: GateReport = {
      gate: 'perf',
      ok: true,
      detail: 'measured',
      failures: [],
      results,
      metrics: computeMetrics(results, T),
      plan: perfPlan('perf'),
      solverHash: HASH(0),
      reused: 0,
    };
    const doc = evalDoc({ solverDir: path.join(ws, 'SATLUTION_0'), runner: 'local', verdict: 'pass', gates: [ok('comply'), perf], stages: [perfPlan('perf')] });
    const row = (instance: string, verdict: 'ok' | 'unsolved', from: 'duel' | 'held-out') => ({
      instance,
      verdict,
      status: verdict === 'ok' ? 'solved' : 'unknown',
      answer: 'UNSAT',
      time_s: 1,
      check: drat(verdict === 'ok' ? true : null, ''),
      detail: '',
      from,
      champion_s: 9,
      challenger_s: 1,
      champion_status: 'solved',
    });
    const record = {
      at: '2026-01-01T00:00:00Z',
      champion: { solver: 'SATLUTION_9', hash: HASH(9) },
      solver_hash: HASH(0),
      duel: 's-1',
      on: 'cpu',
      rule: 'largest saving first',
      from: 'kept',
      already_checked: [],
      checked: 2,
      caught: 0,
      instances: [row('promoted.cnf', 'ok', 'duel'), row('kept.cnf', 'ok', 'held-out')],
      unchecked: [],
      passed: true,
    };
    await new EvalStore(ws).write('SATLUTION_0', {
      ...doc,
      gates: doc.gates.map((g) => (g.gate === 'perf' ? { ...g, promotion_audit: record } : g)),
    } as EvalDoc);
    const b = await buildDashboard(ws);
    const [col] = b.columns([0]);
    const at = (name: string) => PROOF_STATES[col!.proof[b.data.instances.name.indexOf(name)]!];
    // A held-out row is about another run of kept.cnf: it proves nothing about this one.
    assert.deepEqual(['sat.cnf', 'audited.cnf', 'kept.cnf', 'slow.cnf', 'promoted.cnf', 'lie.cnf'].map(at), [
      null,
      'proved',
      'unchecked',
      'unproved',
      'proved',
      'rejected',
    ]);
    assert.ok(DashboardHostMessage.safeParse({ type: 'detail', version: b.data.version, columns: [col] }).success, 'the columns satisfy the protocol');
  });

  it('takes the champion from the store log, or replays the cycles without it', async () => {
    const ws = await workspace();
    // A person promotes SATLUTION_4 by hand after cycle 3 ended; cycle 4 ends after that.
    await sleep(5);
    await new CandidateStore(ws).setChampion(4);
    await sleep(5);
    await saveCycle(ws, cycle(4, 'done', 4, 5));
    const withLog = (await buildDashboard(ws)).data.cycles.map((c) => c.champion);
    assert.deepEqual(withLog, [0, 3, 3, 4]);
    // Without the log (the index alone), the cycles' own record of champion changes is what is known.
    fs.rmSync(path.join(ws, '.satlution', 'candidates.jsonl'));
    const replayed = (await buildDashboard(ws)).data.cycles.map((c) => c.champion);
    assert.deepEqual(replayed, [0, 3, 3, 3]);
  });

  it("keeps the figures of a candidate that failed at perf, but never plots them as its cycle's result", async () => {
    const ws = await workspace();
    await new CandidateStore(ws).create({ parent: 3, status: 'failed' });
    const lying: Run[] = FAST.map((r) => (r[0] === 'b.cnf' ? [r[0], r[1], r[2], 'wrong', 0.1, 'SAT'] : r));
    await savePerf(ws, 'SATLUTION_7', lying, HASH(7), '1 of 4 instances failed: wrong');
    await saveCycle(ws, cycle(5, 'done', 3, 7));
    const d = (await buildDashboard(ws)).data;
    const c = d.candidates.find((x) => x.id === 7)!;
    assert.deepEqual([c.verdict, c.failedGate, c.hasDetail], ['fail', 'perf', true]);
    assert.ok(Math.abs(c.perf!.par2 - par2(lying)!) < 1e-9, 'a wrong answer counts as unsolved');
    assert.deepEqual(d.cycles.at(-1)!.candidatePar2, null);
    assert.equal(d.failures.find((f) => f.gate === 'perf')!.count, 1);
  });

  it('skips damaged files with a note and never throws', async () => {
    const ws = tempDir();
    const store = new CandidateStore(ws);
    await store.create({ parent: null, seed: 'kissat', status: 'seed' });
    for (let i = 0; i < 4; i++) await store.create({ parent: 0, status: 'evaluated' });
    await savePerf(ws, 'SATLUTION_0', KISSAT, HASH(0));
    const evals = path.join(ws, '.satlution', 'evals');
    // One malformed instance result among good ones.
    const e0 = JSON.parse(fs.readFileSync(path.join(evals, 'SATLUTION_0.json'), 'utf8')) as { instances: unknown[] };
    e0.instances.push({ instance: 'broken.cnf', status: 'exploded' });
    // Valid by the result schema, impossible in fact: it must not make the data invalid for the webview.
    e0.instances.push(result(['neg.cnf', null, null, 'solved', -5, 'SAT']));
    write(path.join(evals, 'SATLUTION_0.json'), JSON.stringify(e0));
    write(path.join(evals, 'SATLUTION_1.json'), '{ "verdict": "pass", "gates": [');
    write(path.join(evals, 'SATLUTION_2.json'), JSON.stringify({ hello: 'world' }));
    // A perf stage whose metrics were lost: PAR-2 comes from the instances.
    await savePerf(ws, 'SATLUTION_3', SLOW, HASH(3));
    const e3 = JSON.parse(fs.readFileSync(path.join(evals, 'SATLUTION_3.json'), 'utf8')) as { metrics: unknown; gates: { metrics?: unknown }[] };
    e3.metrics = null;
    for (const g of e3.gates) delete g.metrics;
    write(path.join(evals, 'SATLUTION_3.json'), JSON.stringify(e3));
    write(path.join(evals, 'SATLUTION_4.json'), '');
    write(path.join(evals, 'SATLUTION_9.json'), JSON.stringify(e3));
    const good = { ...cycle(1, 'done', 0, 3), updated_at: new Date().toISOString() };
    write(path.join(ws, '.satlution', 'cycles.jsonl'), `${JSON.stringify(good)}\n{"cycle": 2, "st\n${JSON.stringify({ foo: 1 })}\n`);
    const usage = { at: 'x', run: 'r', cycle: 1, role: 'coder', model: 'm', usage: { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 }, usd: 0.5 };
    write(path.join(ws, '.satlution', 'usage.jsonl'), `${JSON.stringify(usage)}\nnot json at all\n${JSON.stringify({ ...usage, usd: -3 })}\n`);
    write(path.join(ws, '.satlution', 'calibration.json'), '{"at": "2026-');

    const built = await buildDashboard(ws);
    const d = built.data;
    assert.ok(DashboardHostMessage.safeParse({ type: 'data', data: d }).success, 'damaged files still give valid data');
    const cols = built.columns([0]);
    assert.ok(DashboardHostMessage.safeParse({ type: 'detail', version: d.version, columns: cols }).success);
    assert.equal(cols[0]!.time[d.instances.name.indexOf('neg.cnf')], 0);
    const note = (re: RegExp) =>
      assert.ok(
        d.notes.some((n) => re.test(n)),
        `a note matching ${re} in ${JSON.stringify(d.notes)}`,
      );
    note(/SATLUTION_0\.json: 1 malformed instance result left out/);
    note(/SATLUTION_1\.json: not valid JSON; skipped/);
    note(/SATLUTION_2\.json: not an evaluation/);
    note(/SATLUTION_4\.json: not valid JSON/);
    note(/SATLUTION_9\.json: no such candidate/);
    note(/cycles\.jsonl: 1 torn line/);
    note(/cycles\.jsonl: 1 line that are not cycle states/);
    note(/usage\.jsonl: 2 lines skipped/);
    note(/calibration\.json is not a calibration/);
    assert.deepEqual([d.verdicts.noise, d.verdicts.calibration], [[], null]);
    const by = new Map(d.candidates.map((c) => [c.dir, c]));
    assert.ok(Math.abs(by.get('SATLUTION_0')!.perf!.par2 - par2(KISSAT)!) < 1e-9, 'the good instances still count');
    assert.ok(Math.abs(by.get('SATLUTION_3')!.perf!.par2 - par2(SLOW)!) < 1e-9, 'PAR-2 computed from the instances');
    assert.deepEqual(
      ['SATLUTION_1', 'SATLUTION_2', 'SATLUTION_4'].map((x) => by.get(x)!.perf),
      [null, null, null],
    );
    assert.deepEqual(
      d.cycles.map((c) => c.cycle),
      [1],
    );
    assert.deepEqual(
      d.cost.map((c) => [c.cycle, c.calls, c.usd]),
      [[1, 1, 0.5]],
    );
    assert.equal(d.instances.name.includes('broken.cnf'), false);

    // Nothing at all: an empty dashboard, not an error.
    const empty = (await buildDashboard(tempDir())).data;
    assert.deepEqual([empty.candidates, empty.cycles, empty.cost, empty.instances.name, empty.champion], [[], [], [], [], null]);
  });

  it('re-reads an evaluation that changed, and numbers each build', async () => {
    const ws = await workspace();
    const src = new DashboardSource(ws);
    const first = await src.build();
    await savePerf(ws, 'SATLUTION_4', FAST, HASH(4));
    const second = await src.build();
    assert.equal(second.data.version, first.data.version + 1);
    assert.ok(Math.abs(second.data.candidates.find((c) => c.id === 4)!.perf!.par2 - par2(FAST)!) < 1e-9, 'the rewritten evaluation was read again');
    assert.ok(Math.abs(first.data.candidates.find((c) => c.id === 4)!.perf!.par2 - par2(SLOW)!) < 1e-9);
  });
});

/** A kept duel as decide/measureTogether.ts writes it: A the champion, B the challenger, each pair's times. */
function duelDoc(
  ws: string,
  o: {
    session: string;
    purpose: DuelDoc['purpose'];
    cycle: number | null;
    a: string;
    b: string;
    pairs: DuelPair[];
    comparison: DuelDoc['comparison'];
    at: string;
  },
): DuelDoc {
  return {
    session: o.session,
    purpose: o.purpose,
    cycle: o.cycle,
    a: { dir: path.join(ws, o.a), hash: HASH(1) },
    b: { dir: path.join(ws, o.b), hash: HASH(2) },
    set: path.join(ws, 'benchmarks', 'perf'),
    runner: 'local',
    timeout_s: T,
    on: 'cpu',
    started_at: o.at,
    ended_at: o.at,
    block: 1,
    together: true,
    pairs: o.pairs,
    comparison: o.comparison,
    fatal: null,
  };
}

const pair = (instance: string, order: 'AB' | 'BA', a: [string, number, number | null], b: [string, number, number | null]): DuelPair => ({
  instance,
  order,
  a: { status: a[0], time_s: a[1], cpu_s: a[2] },
  b: { status: b[0], time_s: b[1], cpu_s: b[2] },
});

describe('dashboard verdicts', function () {
  this.timeout(30000);

  it('shows the rule in force, every decision with its duel, the pairs on request, and where racing stopped a challenger', async () => {
    const ws = await workspace();
    const state = path.join(ws, '.satlution');
    write(
      path.join(ws, 'satlution.yaml'),
      'version: 1\nseeds:\n  - { name: kissat, source: ./kissat }\nstrategy:\n  min_improvement_pct: 2\nevaluation:\n  decide_on: cpu\n',
    );
    const cal: CalibrationDoc = {
      at: '2026-11-02T10:00:00.000Z',
      scope: { machine: 'box / Some CPU x8', runner: 'local', set: 'abcdef0123456789', timeout_s: T },
      session: '20261102T100000-aaaa0000',
      solver: 'SATLUTION_0',
      n: 40,
      wall: { band_pct: 4.2, diff_pct: -1.5, p: 0.4, spread_median_pct: 2.5, spread_p90_pct: 7.75, aa_significant: false },
      cpu: { band_pct: 3.1, diff_pct: 0.5, p: 0.7, spread_median_pct: 1.25, spread_p90_pct: 4.5, aa_significant: false },
      alpha: 0.05,
    };
    write(path.join(state, 'calibration.json'), JSON.stringify(cal));
    // Cycle 2: SATLUTION_3 against SATLUTION_0, faster beyond the margin, promoted (and a held-out check).
    const promoted = duelDoc(ws, {
      session: '20261102T110000-bbbb0000',
      purpose: 'decision',
      cycle: 2,
      a: 'SATLUTION_0',
      b: 'SATLUTION_3',
      at: '2026-11-02T11:00:00.000Z',
      pairs: [
        pair('a.cnf', 'AB', ['solved', 1.1, 1.0], ['solved', 0.6, 0.5]),
        pair('b.cnf', 'AB', ['solved', 2.2, 2.0], ['solved', 1.6, 1.5]),
        pair('d.cnf', 'BA', ['solved', 4.1, null], ['solved', 0.5, 0.45]),
        pair('sub/c.cnf', 'BA', ['timeout', T, T], ['solved', 51, 50]),
      ],
      comparison: {
        par2A: 51.75,
        par2B: 13.125,
        diff: -38.625,
        ci95: [-74, -0.5],
        p: 0.03,
        n: 4,
        verdict: 'B faster',
        band_pct: 3.1,
        wall_par2A: 51.85,
        wall_par2B: 13.425,
        families: [
          { family: 'crypto', instances: 2, par2A: 1.65, par2B: 1.8, change_pct: 9.0909, judged: false, slower: false },
          { family: 'random', instances: 2, par2A: 52.05, par2B: 25.225, change_pct: -51.5369, judged: false, slower: false },
        ],
      },
    });
    const heldOut = duelDoc(ws, {
      ...promoted,
      session: '20261102T120000-cccc0000',
      purpose: 'held-out',
      cycle: 2,
      a: 'SATLUTION_0',
      b: 'SATLUTION_3',
      at: '2026-11-02T12:00:00.000Z',
      pairs: promoted.pairs.slice(0, 2),
      comparison: { ...promoted.comparison, n: 2, par2A: 1.5, par2B: 1.0, verdict: 'no significant difference', families: undefined },
    });
    // Cycle 3: SATLUTION_4 against SATLUTION_3, slower side by side.
    const slower = duelDoc(ws, {
      session: '20261102T130000-dddd0000',
      purpose: 'decision',
      cycle: 3,
      a: 'SATLUTION_3',
      b: 'SATLUTION_4',
      at: '2026-11-02T13:00:00.000Z',
      pairs: [pair('a.cnf', 'AB', ['solved', 0.5, 0.5], ['solved', 1.3, 1.25]), pair('b.cnf', 'BA', ['solved', 1.5, 1.5], ['timeout', T, T])],
      comparison: {
        par2A: 1,
        par2B: 100.625,
        diff: 99.625,
        ci95: [0.75, 198.5],
        p: 0.04,
        n: 2,
        verdict: 'A faster',
        band_pct: 3.1,
        wall_par2A: 1,
        wall_par2B: 100.65,
      },
    });
    // Neither a calibration's A/A duel nor `satlution compare --measure` is a decision.
    const aa = duelDoc(ws, {
      ...slower,
      session: cal.session,
      purpose: 'calibration',
      cycle: null,
      a: 'SATLUTION_0',
      b: 'SATLUTION_0',
      at: '2026-11-02T10:00:00.000Z',
    });
    const compare = duelDoc(ws, {
      ...slower,
      session: '20261102T140000-eeee0000',
      purpose: 'compare',
      cycle: null,
      a: 'SATLUTION_0',
      b: 'SATLUTION_4',
      at: '2026-11-02T14:00:00.000Z',
    });
    for (const d of [promoted, heldOut, slower, aa, compare]) write(path.join(state, 'duels', `${d.session}.json`), JSON.stringify(d));
    write(path.join(state, 'duels', 'torn.json'), '{"session": "x", "pairs": [');
    // Cycle 5: SATLUTION_7 raced against the champion and rejected after 2 of 4 instances.
    await new CandidateStore(ws).create({ parent: 3, status: 'evaluated' });
    await savePerf(ws, 'SATLUTION_7', SLOW.slice(1, 3), HASH(7));
    const race: RaceDoc = {
      outcome: 'rejected early',
      on: 'cpu',
      ran: 2,
      of: 4,
      capped: 1,
      champion_reruns: 2,
      challenger_s: 103.5,
      champion_s: 51.5,
      champion_total_s: 52.5,
      threshold_s: 52.02,
      margin_pct: 3.1,
      band_pct: 3.1,
      estimated_par2: 26.4,
      spent_s: 104.25,
      reason: 'cannot win: its first 2 runs already take 103.50 s',
    };
    const file = new EvalStore(ws).file('SATLUTION_7');
    const raced: EvalDoc = { ...(JSON.parse(fs.readFileSync(file, 'utf8')) as EvalDoc), race };
    write(file, JSON.stringify(raced));
    await saveCycle(ws, {
      ...cycle(5, 'done', 3, 7),
      outcome: 'SATLUTION_3 stays champion (SATLUTION_7 rejected early by racing after 2 of 4 instances: cannot win)',
    });

    const built = await buildDashboard(ws);
    const d = built.data;
    assert.ok(DashboardHostMessage.safeParse({ type: 'data', data: d }).success, 'the data satisfies the protocol');
    assert.deepEqual(d.notes, ['duels: 1 file that is not a duel skipped']);

    // The rule in force: CPU time, the calibrated CPU band over the configured 2% margin, alpha / 2.
    const rule = d.verdicts.rule!;
    assert.deepEqual([rule.on, rule.basis, rule.bandPct, rule.marginPct, rule.falsePromotionPct], ['cpu', 'cpu', 3.1, 2, 0.5]);
    assert.deepEqual(rule.calibrated, { at: cal.at, n: 40, machine: 'box / Some CPU x8' });
    assert.equal(rule.short, 'Decisions: CPU time, raced side by side · PAR-2 test against run noise · margin 2% · ≤0.5% false promotions');
    assert.match(rule.line, /noise band 3\.1% \(calibrated 2026-11-02, 40 instances; for information\)/);
    assert.deepEqual(
      d.verdicts.noise.map((n) => [n.basis, n.bandPct, n.diffPct, n.spreadMedianPct, n.spreadP90Pct, n.aaSignificant]),
      [
        ['cpu', 3.1, 0.5, 1.25, 4.5, false],
        ['wall', 4.2, -1.5, 2.5, 7.75, false],
      ],
    );
    assert.deepEqual(d.verdicts.calibration, { at: cal.at, n: 40, machine: 'box / Some CPU x8', solver: 'SATLUTION_0', runner: 'local', timeoutS: T });

    // One decision per cycle's challenger, each with how it ended.
    const ds = d.verdicts.decisions;
    assert.deepEqual(
      ds.map((x) => [x.cycle, x.candidate, x.outcome]),
      [
        [1, 2, 'failed'],
        [2, 3, 'promoted'],
        [3, 4, 'slower'],
        [4, 5, 'failed'],
        [5, 7, 'rejected early'],
      ],
    );
    const won = ds[1]!;
    assert.equal(won.champion, 0);
    assert.deepEqual(
      [won.duel!.session, won.duel!.on, won.duel!.n, won.duel!.par2A, won.duel!.par2B, won.duel!.p, won.duel!.bandPct, won.duel!.together],
      [promoted.session, 'cpu', 4, 51.75, 13.125, 0.03, 3.1, true],
    );
    assert.ok(Math.abs(won.duel!.gainPct - (100 * (51.75 - 13.125)) / 51.75) < 1e-3, 'the gain, to a thousandth of a percent');
    assert.deepEqual([won.heldOut!.session, won.heldOut!.verdict], [heldOut.session, 'no significant difference']);
    // Each family's change travels with the duel, slowest first as kept; a duel of one family has none.
    assert.deepEqual(won.duel!.families, [
      { family: 'crypto', instances: 2, changePct: 9.091, judged: false, slower: false },
      { family: 'random', instances: 2, changePct: -51.537, judged: false, slower: false },
    ]);
    assert.equal(won.heldOut!.families, undefined);
    assert.deepEqual([ds[2]!.champion, ds[2]!.duel!.verdict, ds[2]!.heldOut], [3, 'A faster', null]);
    assert.equal(ds[0]!.duel, null);

    // The pairs travel only when asked for, columnar, on the duel's basis (CPU where measured, 2T when unsolved) and wall.
    const pairs = (await built.pairs(promoted.session))!;
    assert.deepEqual(pairs.instance, ['a.cnf', 'b.cnf', 'd.cnf', 'sub/c.cnf']);
    assert.deepEqual(pairs.order, ['AB', 'AB', 'BA', 'BA']);
    assert.deepEqual(pairs.a.par2, [1.0, 2.0, 4.1, 2 * T], 'CPU time; wall where the run had no CPU accounting; 2T unsolved');
    assert.deepEqual(pairs.b.par2, [0.5, 1.5, 0.45, 50]);
    assert.deepEqual(pairs.a.wall, [1.1, 2.2, 4.1, T]);
    assert.deepEqual(pairs.a.cpu, [1.0, 2.0, null, T]);
    assert.deepEqual(
      pairs.a.status.map((c) => RUN_STATUSES[c]),
      ['solved', 'solved', 'solved', 'timeout'],
    );
    assert.ok(DashboardHostMessage.safeParse({ type: 'pairs', session: promoted.session, pairs }).success, 'the pairs satisfy the protocol');
    assert.equal(await built.pairs(aa.session), undefined, 'a calibration duel is no decision');
    assert.equal(await built.pairs('nope'), undefined);

    // Rejected early by racing: the evidence, and its PAR-2 of 2 instances is no point of the progress line.
    const r = ds[4]!;
    assert.equal(r.duel, null);
    assert.deepEqual(r.race, {
      on: 'cpu',
      ran: 2,
      of: 4,
      capped: 1,
      challengerS: 103.5,
      championS: 51.5,
      championTotalS: 52.5,
      thresholdS: 52.02,
      marginPct: 3.1,
      bandPct: 3.1,
      estimatedPar2: 26.4,
      spentS: 104.25,
      reason: race.reason,
    });
    const c7 = d.candidates.find((c) => c.id === 7)!;
    assert.deepEqual([c7.verdict, c7.partial, c7.perf?.n], ['pass', 'rejected early', 2]);
    assert.deepEqual(
      d.candidates.filter((c) => c.partial).map((c) => c.id),
      [7],
    );
    const c5 = d.cycles.find((c) => c.cycle === 5)!;
    assert.deepEqual([c5.candidate, c5.candidatePar2, c5.candidatePartial, c5.candidateEstimate], [7, null, 'rejected early', 26.4]);
    assert.deepEqual(
      d.cycles.filter((c) => c.candidatePar2 !== null).map((c) => c.cycle),
      [2, 3],
      'only candidates measured on the whole set are points',
    );

    // Without a readable config the rule is not shown; the noise and the decisions still are.
    fs.rmSync(path.join(ws, 'satlution.yaml'));
    const bare = (await buildDashboard(ws)).data.verdicts;
    assert.equal(bare.rule, null);
    assert.equal(bare.noise.length, 2);
    assert.deepEqual(
      bare.decisions.map((x) => x.outcome),
      ['failed', 'promoted', 'slower', 'failed', 'rejected early'],
    );
  });

  it('says how a decision ended: not significant, under the margin, faster but not promoted, still pending', async () => {
    const ws = await workspace();
    const state = path.join(ws, '.satlution');
    const base = { pairs: [pair('a.cnf', 'AB', ['solved', 1, 1], ['solved', 0.9, 0.9])], a: 'SATLUTION_3', at: '2026-11-03T00:00:00.000Z' };
    const cmp = (par2B: number, verdict: DuelDoc['comparison']['verdict']): DuelDoc['comparison'] => ({
      par2A: 10,
      par2B,
      diff: par2B - 10,
      ci95: [-1, 1],
      p: verdict === 'no significant difference' ? 0.5 : 0.01,
      n: 1,
      verdict,
      band_pct: 3,
      wall_par2A: 10,
      wall_par2B: par2B,
    });
    const store = new CandidateStore(ws);
    const rows: [cycle: number, verdict: DuelDoc['comparison']['verdict'], par2B: number, step: CycleState['step']][] = [
      [5, 'no significant difference', 9.9, 'done'],
      [6, 'B faster', 9.8, 'done'],
      [7, 'B faster', 8, 'done'],
      [8, 'B faster', 8, 'decide'],
    ];
    for (const [n, verdict, par2B, step] of rows) {
      const id = (await store.create({ parent: 3, status: 'evaluated' })).id;
      await savePerf(ws, `SATLUTION_${id}`, FAST, HASH(id));
      const doc = duelDoc(ws, {
        ...base,
        session: `2026110${n}T000000-ffff0000`,
        purpose: 'decision',
        cycle: n,
        b: `SATLUTION_${id}`,
        comparison: cmp(par2B, verdict),
      });
      write(path.join(state, 'duels', `${doc.session}.json`), JSON.stringify(doc));
      await saveCycle(ws, cycle(n, step, 3, id));
    }
    const d = (await buildDashboard(ws)).data;
    // No config: the margin is the band the duel was judged with (3%): 2% under it, 20% over it.
    assert.deepEqual(
      d.verdicts.decisions.filter((x) => x.cycle >= 5).map((x) => [x.cycle, x.outcome]),
      [
        [5, 'not significant'],
        [6, 'under the margin'],
        [7, 'vetoed'],
        [8, 'pending'],
      ],
    );
    // Each says why in a sentence: one pair can never be significant; a faster one was vetoed; one is undecided.
    const why = new Map(d.verdicts.decisions.map((x) => [x.cycle, x.why]));
    assert.match(why.get(5)!, /^1\.0% faster \(PAR-2 10\.00 -> 9\.90 s.*n = 1\), but with 1 instance that differ no result can be significant at alpha 0\.05/);
    assert.match(why.get(7)!, /20\.0% faster.*It was not promoted: a person or another proposal of the cycle decided otherwise\./);
    assert.match(why.get(8)!, /^The decision is not made yet/);
  });

  it("shows each family against the challenger's parent where that is another candidate (islands, SMC), through the duels that measured them", async () => {
    const ws = await workspace();
    const state = path.join(ws, '.satlution');
    const store = new CandidateStore(ws);
    // SATLUTION_7 from the champion; SATLUTION_8 from SATLUTION_7 (a parent out of the database); SATLUTION_9 from the champion.
    for (const parent of [3, 7, 3]) {
      const id = (await store.create({ parent, status: 'evaluated' })).id;
      await savePerf(ws, `SATLUTION_${id}`, FAST, HASH(id));
    }
    const fam = (family: string, par2A: number, par2B: number) => ({
      family,
      instances: 4,
      par2A,
      par2B,
      change_pct: (100 * (par2B - par2A)) / par2A,
      judged: true,
      slower: false,
    });
    const duel = (n: number, b: string, families: DuelDoc['comparison']['families']) =>
      duelDoc(ws, {
        session: `2026110${n}T000000-ffff0000`,
        purpose: 'decision',
        cycle: n,
        a: 'SATLUTION_3',
        b,
        at: `2026-11-0${n}T00:00:00.000Z`,
        pairs: [pair('a.cnf', 'AB', ['solved', 1, 1], ['solved', 0.9, 0.9])],
        comparison: {
          par2A: 20,
          par2B: 18,
          diff: -2,
          ci95: [-3, -1],
          p: 0.2,
          n: 8,
          verdict: 'no significant difference',
          band_pct: 3,
          wall_par2A: 20,
          wall_par2B: 18,
          families,
        },
      });
    // Each against the champion, in its own session: the parent 20% faster on f1 and 20% slower on f2;
    // its child 40% faster on f1 and as slow on f2: against its parent, 25% faster on f1 and no change on f2.
    // f3 is measured with 4 instances in one duel and 5 in the other: not the same family, no figure.
    const docs = [
      duel(5, 'SATLUTION_7', [fam('f2', 10, 12), fam('f1', 10, 8), fam('f3', 10, 10)]),
      duel(6, 'SATLUTION_8', [fam('f2', 10, 12), fam('f1', 10, 6), { ...fam('f3', 10, 9), instances: 5 }]),
      duel(7, 'SATLUTION_9', [fam('f1', 10, 9), fam('f2', 10, 9)]),
    ];
    for (const doc of docs) write(path.join(state, 'duels', `${doc.session}.json`), JSON.stringify(doc));
    await saveCycle(ws, cycle(5, 'done', 3, 7));
    await saveCycle(ws, cycle(6, 'done', 7, 8));
    await saveCycle(ws, cycle(7, 'done', 3, 9));
    const d = (await buildDashboard(ws)).data;
    assert.ok(DashboardHostMessage.safeParse({ type: 'data', data: d }).success, 'the data satisfies the protocol');
    const of = (id: number) => d.verdicts.decisions.find((x) => x.candidate === id)!;
    assert.deepEqual(of(8).parent, {
      id: 7,
      via: [7, 3, 8],
      families: [
        { family: 'f2', instances: 4, changePct: 0 },
        { family: 'f1', instances: 4, changePct: -25 },
      ],
    });
    // A challenger whose parent is the champion it met has its duel's figures only.
    assert.equal(of(9).parent, undefined);
    assert.equal(of(7).parent, undefined);
  });
});

describe('dashboard verdicts explained', () => {
  const base = { cycle: 2, candidate: 2, champion: 0, duel: null, heldOut: null, race: null, tier: null } as const;
  const o = { alpha: 0.05, minImprovementPct: 5, failure: null, challenger: undefined, champion: undefined };
  it('says why for outcomes without a duel, and when the noise band leaves nothing provable', () => {
    assert.equal(
      decisionWhy({ ...base, outcome: 'failed' }, { ...o, failure: 'failed the verify gate: UNSAT claimed on php.cnf, proof rejected' }),
      'It failed a gate: failed the verify gate: UNSAT claimed on php.cnf, proof rejected. A candidate that fails a gate is never compared.',
    );
    assert.match(decisionWhy({ ...base, outcome: 'stopped at a tier', tier: { reached: 1, of: 3 } }, o), /^It stopped at perf tier 1 of 3/);
    const race = {
      on: 'cpu' as const,
      ran: 1,
      of: 7,
      capped: 0,
      challengerS: 0.39,
      championS: 0.1,
      championTotalS: 2.74,
      thresholdS: 0,
      marginPct: 105.4,
      bandPct: 105.4,
      estimatedPar2: null,
      spentS: 0.4,
      reason: 'cannot win: its first 1 runs already take 0.39 s',
    };
    const why = decisionWhy({ ...base, outcome: 'rejected early', race }, o);
    assert.match(
      why,
      /^Racing stopped it after 1 of 7 instances: cannot win: its first 1 runs already take 0\.39 s\. The calibrated noise band is 105%: on instances this short/,
    );
    assert.doesNotMatch(decisionWhy({ ...base, outcome: 'rejected early', race: { ...race, bandPct: 4 } }, o), /noise band/);
  });

  it("names a SAT/UNSAT split from the two candidates' own evaluations", () => {
    const duel = {
      session: 's',
      purpose: 'decision' as const,
      on: 'cpu' as const,
      n: 20,
      timeoutS: 60,
      together: true,
      par2A: 2,
      par2B: 1.9,
      wallPar2A: 2,
      wallPar2B: 1.9,
      gainPct: 5,
      ci95: [-0.3, 0.1] as [number, number],
      p: 0.4,
      bandPct: 3,
      verdict: 'no significant difference' as const,
      fatal: null,
      at: '',
    };
    const perf = (sat: number, unsat: number) => ({
      n: 20,
      solved: 20,
      solvedSat: 10,
      solvedUnsat: 10,
      par2: (sat + unsat) / 2,
      par2Sat: sat,
      par2Unsat: unsat,
    });
    const cand = (id: number, p: ReturnType<typeof perf>) => ({ id, perf: p }) as unknown as Parameters<typeof decisionWhy>[1]['challenger'];
    const why = decisionWhy({ ...base, outcome: 'not significant', duel }, { ...o, champion: cand(0, perf(1, 3)), challenger: cand(2, perf(1.5, 2.1)) });
    assert.match(
      why,
      /^5\.0% faster \(PAR-2 2\.00 -> 1\.90 s.*but not significant.* Faster on UNSAT \(3\.00 -> 2\.10 s\) but slower on SAT \(1\.00 -> 1\.50 s\), by each one's own evaluation\.$/,
    );
  });
});

describe('dashboard protocol', () => {
  it('accepts the messages of the contract', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'refresh' },
      { type: 'select', ids: [0, 3, 12] },
      { type: 'openLog', candidate: 'SATLUTION_3', instance: 'sub/dir/x.cnf.xz' },
      { type: 'openResults', candidate: 'SATLUTION_0' },
      { type: 'compare', candidate: 'SATLUTION_12' },
      { type: 'pairs', session: '20261102T110000-bbbb0000' },
    ])
      assert.ok(DashboardViewMessage.safeParse(m).success, JSON.stringify(m));
  });

  it('rejects malformed webview messages', () => {
    for (const bad of [
      { type: 'select', ids: [1.5] },
      { type: 'select', ids: [-1] },
      { type: 'select', ids: Array.from({ length: 41 }, (_, i) => i) },
      { type: 'select' },
      { type: 'openLog', candidate: 'SATLUTION_3', instance: '../../etc/passwd' },
      { type: 'openLog', candidate: 'SATLUTION_3', instance: '/etc/passwd' },
      { type: 'openLog', candidate: 'SATLUTION_3', instance: 'a\\..\\b.cnf' },
      { type: 'openLog', candidate: 'SATLUTION_3', instance: '' },
      { type: 'openLog', candidate: '../SATLUTION_3', instance: 'a.cnf' },
      { type: 'openResults', candidate: 'SATLUTION_x' },
      { type: 'compare', candidate: 'satlution_1' },
      { type: 'runCommand', command: 'rm' },
      { type: 'pairs', session: '../etc/passwd' },
      { type: 'pairs' },
      'ready',
      null,
    ])
      assert.equal(DashboardViewMessage.safeParse(bad).success, false, JSON.stringify(bad));
  });

  it('rejects malformed host messages', () => {
    const cols = { id: 1, status: [0, -1], time: [1, 0], answer: [1, 0] };
    assert.ok(DashboardHostMessage.safeParse({ type: 'detail', version: 1, columns: [cols] }).success);
    for (const bad of [
      { type: 'detail', version: 1, columns: [{ ...cols, status: [RUN_STATUSES.length] }] },
      { type: 'detail', version: 1, columns: [{ ...cols, time: [-1] }] },
      { type: 'detail', version: 1, columns: [{ ...cols, answer: [9] }] },
      { type: 'data', data: { version: 1, workspace: 'w' } },
      { type: 'detail', columns: [cols] },
    ])
      assert.equal(DashboardHostMessage.safeParse(bad).success, false, JSON.stringify(bad));
  });
});

describe('per-run logs', function () {
  this.timeout(60000);

  it('names a log after the solver and the instance, and refuses names that leave the log directory', () => {
    const dir = path.join('ws', '.satlution', 'logs');
    assert.equal(runLogPath(dir, HASH(1), 'sub/x.cnf.xz'), path.join(dir, HASH(1), 'sub', 'x.cnf.xz.log'));
    for (const bad of ['../x.cnf', 'a/../../x.cnf', '/etc/passwd', 'a//b.cnf', '', 'a\\b.cnf', 'a/./b.cnf'])
      assert.equal(runLogPath(dir, HASH(1), bad), undefined, bad);
    assert.equal(runLogPath(dir, '../../etc', 'x.cnf'), undefined);
  });

  it('says when the output was not kept', () => {
    const r = result(['x.cnf', null, 'SAT', 'timeout', T, null]);
    const kept = formatRunLog({
      result: r,
      command: ['run', 'x.cnf'],
      timeoutS: T,
      memMb: 512,
      memoryMethod: 'rlimit',
      output: { stdout: 'c hello\n', stderr: '', bytes: 8 },
      at: 'now',
    });
    assert.match(kept, /^status: +timeout - timeout on x\.cnf$/m);
    assert.match(kept, /^---- stdout -+\nc hello\n/m);
    assert.match(kept, /^---- stderr -+\n\(empty\)/m);
    assert.doesNotMatch(kept, /not kept/);
    assert.match(formatRunLog({ result: r, timeoutS: T, memMb: null, at: 'now' }), /output of this run was not kept/);
  });

  it("keeps each run's output in a workspace evaluation; a reused run has none, and open log says so", async () => {
    const ws = tempDir();
    const solver = path.join(ws, 'SATLUTION_1');
    write(
      path.join(solver, 'bin', 'starexec_run_default'),
      [
        '#!/usr/bin/env bash',
        'echo "c tiny test solver"',
        'if grep -q "^p cnf 1 1" "$1"; then echo "s SATISFIABLE"; echo "v 1 0"; exit 10; fi',
        'echo "assertion failed: trail not empty" >&2',
        'exit 3',
        '',
      ].join('\n'),
    );
    fs.chmodSync(path.join(solver, 'bin', 'starexec_run_default'), 0o755);
    const set = path.join(ws, 'benchmarks', 'perf');
    write(path.join(set, 'sat.cnf'), 'p cnf 1 1\n1 0\n');
    write(path.join(set, 'deep', 'crash.cnf'), 'p cnf 2 1\n1 2 0\n');
    const parsed = parseConfig('version: 1\nseeds:\n  - { name: tiny, source: ./tiny }\n');
    assert.ok(parsed.ok);
    assert.equal(gateContext(parsed.config, undefined).logDir, undefined, 'outside a workspace no logs are kept');
    const ctx = gateContext(parsed.config, ws);
    assert.equal(ctx.logDir, path.join(ws, '.satlution', 'logs'));
    const run = () =>
      runGates({ ...ctx, solverDir: solver, build: false, stages: [{ gate: 'perf', dir: set, timeoutS: 10, memMb: 1024, checkProofs: false }], jobs: 2 });
    const first = await run();
    const perf = first.gates[0]!;
    assert.deepEqual(
      perf.results!.map((r) => [r.instance, r.status]),
      [
        ['deep/crash.cnf', 'crash'],
        ['sat.cnf', 'solved'],
      ],
    );
    const logFile = (name: string) => runLogPath(ctx.logDir!, perf.solverHash!, name)!;
    const crash = fs.readFileSync(logFile('deep/crash.cnf'), 'utf8');
    assert.match(crash, /^# deep\/crash\.cnf$/m);
    assert.match(crash, /^command: +\S+starexec_run_default \S+instance\.cnf \S+proof$/m);
    assert.match(crash, /^limits: +10 s wall clock, 1024 MB/m);
    assert.match(crash, /^status: +crash - exited with code 3/m);
    assert.match(crash, /---- stderr -+\nassertion failed: trail not empty/);
    assert.match(crash, /---- stdout -+\nc tiny test solver/);
    const sat = fs.readFileSync(logFile('sat.cnf'), 'utf8');
    assert.match(sat, /^status: +solved$/m);
    assert.match(sat, /^check: +model: ok/m);
    assert.match(sat, /s SATISFIABLE\nv 1 0/);

    await new EvalStore(ws).write(
      path.basename(solver),
      evalDoc({ solverDir: solver, runner: 'local', verdict: first.verdict, gates: first.gates, stages: [] }),
    );
    assert.deepEqual(await instanceLog(ws, 'SATLUTION_1', 'deep/crash.cnf'), { kind: 'file', file: logFile('deep/crash.cnf') });

    // The same binary again: every run comes from the results store, no solver runs, no log is written.
    fs.rmSync(ctx.logDir!, { recursive: true });
    const again = await runGates({
      ...gateContext(parsed.config, ws),
      solverDir: solver,
      build: false,
      stages: [{ gate: 'perf', dir: set, timeoutS: 10, memMb: 1024, checkProofs: false }],
      jobs: 2,
    });
    assert.equal(again.gates[0]!.reused, 2);
    assert.equal(fs.existsSync(ctx.logDir!), false);
    const shown = await instanceLog(ws, 'SATLUTION_1', 'deep/crash.cnf');
    assert.equal(shown.kind, 'text');
    assert.ok(shown.kind === 'text');
    assert.match(shown.text, /^status: +crash - exited with code 3/m);
    assert.match(shown.text, /not kept/);
    const missing = await instanceLog(ws, 'SATLUTION_1', 'nope.cnf');
    assert.ok(missing.kind === 'text' && /has no result on nope\.cnf/.test(missing.text));
    const none = await instanceLog(ws, 'SATLUTION_7', 'sat.cnf');
    assert.ok(none.kind === 'text' && /no readable evaluation \(missing\)/.test(none.text));
  });
});
