// The promotion audit (decide/promotionAudit.ts): before a promotion, every UNSAT answer the challenger
// gave much faster than the champion is checked from the proof its own race run kept. Attacked for
// real: a challenger coded by a scripted agent answers one hard UNSAT perf formula instantly from a
// fingerprint, with a bogus proof (and is honestly a little faster elsewhere, so it wins the duel by far
// more than the margin); the perf audit's random sample is forced to miss that formula; the cycle must
// still fail it, record a post-mortem and keep the champion. An honest challenger much faster on UNSAT
// formulas is promoted with those answers proof-checked. Real cadical, real drat-trim, the real cycle
// engine; the selection rule on its own.
import * as assert from 'node:assert/strict';
import { AGAIN_RUNS } from '../../src/core/decide/objectiveTest';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/load';
import { runCycle } from '../../src/core/cycle/engine';
import { PauseSignal } from '../../src/core/cycle/pause';
import {
  answersIn,
  asProved,
  auditBeforePromotion,
  checkOrder,
  proveUntilPasses,
  type Answer,
  type CheckAnswers,
  type DuelRuns,
} from '../../src/core/decide/promotionAudit';
import { duelComparison } from '../../src/core/decide/againstChampion';
import { heldOutVetoes } from '../../src/core/decide/heldOutCheck';
import { greedyAccept } from '../../src/core/decide/promotionRule';
import type { AuditRandom } from '../../src/core/eval/audit';
import { DuelDoc, readDuels, type DuelPair } from '../../src/core/decide/duels';
import { marginGainPct } from '../../src/core/explain';
import { EvalDoc, parseEvalDoc, type PromotionAuditDoc } from '../../src/core/eval/evalDoc';
import { EvalStore } from '../../src/core/eval/evalStore';
import { evaluateSolver } from '../../src/core/eval/service';
import { silentLogger } from '../../src/core/ports';
import { SignatureLog } from '../../src/core/rules/postmortem';
import { StoredRun } from '../../src/core/run/result';
import { CandidateStore } from '../../src/core/store/candidates';
import { renderResults, writePromotionAudit, writeResults } from '../../src/core/workspace/resultsFile';
import { sampleEvalDoc } from '../fixtures/evalDocs';
import { duelOf } from '../fixtures/duelDocs';
import { solvedRun, tempDir, WORKER } from './helpers';
import { proofRoot } from '../../src/core/run/keptProof';
import { EASY_UNSAT, HARD, keyedLiar, LIAR_MARGIN_PCT, noDrops, SPIN, spinAgent, spinCadicalWorkspace } from './spinCadical';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;

/** The liar: the hard formula answered from memory with a bogus proof; honestly faster elsewhere. */
const liar = () => keyedLiar('answer the hardest formula from memory');

/** An honest challenger: the start-up loop (`spin` iterations, 0 for none) and nothing else changed. */
const scriptAgent = (title: string, spin: number) => spinAgent(title, spin);

/** A workspace around spincadical. */
const workspace = spinCadicalWorkspace;

/** The perf audit's draw forced: no answer drawn as its run ends, and the top-up takes the first names in order, never the hard formula, which sorts last. */
const firstNames: AuditRandom = { admit: () => false, index: () => 0 };

const perfGate = (doc: EvalDoc) => doc.gates.filter((g) => g.gate === 'perf').pop()!;

/** The runs stored in a workspace's results store. */
const storedRuns = (ws: string): StoredRun[] =>
  fs
    .readFileSync(path.join(ws, '.satlution', 'results', 'runs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => StoredRun.parse(JSON.parse(l)));

describe('promotion audit: which answers are proof-checked', () => {
  const T = 10;
  const HASH = 'cd'.repeat(32);
  /** A pair: the champion's (A) and the challenger's (B) status and CPU time, B's answer (undefined: a duel kept before answers). */
  const pair = (instance: string, a: [string, number], b: [string, number, ('SAT' | 'UNSAT' | null)?]): DuelPair => ({
    instance,
    order: 'AB',
    a: { status: a[0], time_s: a[1], cpu_s: a[1], answer: a[0] === 'solved' ? 'UNSAT' : null },
    b: { status: b[0], time_s: b[1], cpu_s: b[1], ...(b.length > 2 ? { answer: b[2]! } : {}) },
  });
  const duel = (pairs: DuelPair[]) => duelOf(pairs, T, HASH);
  /** A perf result: UNSAT solved in `s` seconds (or another status/answer). */
  const run = solvedRun;
  /** A pair's two runs, for a second run. */
  const pick = (p: DuelPair) => ({ a: p.a, b: p.b });
  /** The promotion test as the engine asks it: greedyAccept on the duel's comparison at the level 0.005, a 5% margin. */
  const passes = (d: DuelDoc): boolean =>
    greedyAccept([{ candidate: 1, json: sampleEvalDoc({ verdict: 'pass' }), cmp: duelComparison(d, 0.01, 'par2') }], 0, 5).winner === 1;
  /** A scripted check: every answer gets `verdict`; the answers asked, in order. */
  const scripted = (verdict: 'ok' | 'caught' | 'unsolved') => {
    const asked: Answer[] = [];
    const check: CheckAnswers = async (batch) => {
      asked.push(...batch);
      const rows = batch.map((a) => ({
        instance: a.instance,
        verdict,
        status: verdict === 'ok' ? ('solved' as const) : verdict === 'caught' ? ('invalid_proof' as const) : ('unknown' as const),
        answer: 'UNSAT' as const,
        time_s: a.challenger_s,
        check: { kind: 'drat' as const, ok: verdict === 'ok' ? true : verdict === 'caught' ? false : null, time_s: 0, detail: verdict },
        detail: verdict,
        from: a.from,
        champion_s: a.champion_s,
        challenger_s: a.challenger_s,
        champion_status: a.champion_status,
      }));
      return { rows, failures: verdict === 'caught' ? batch.map((a) => `invalid_proof: ${a.instance} (promotion audit)`) : [] };
    };
    return { asked, check };
  };
  const noRuns: DuelRuns = { first: new Map(), again: [] };

  it("finds the challenger's UNSAT answers in a duel, first and second runs, with their PAR-2 times and what their runs' proofs showed", () => {
    const d = duel([
      pair('lie.cnf', ['solved', 8], ['solved', 0.01, 'UNSAT']),
      pair('timeout.cnf', ['timeout', T], ['solved', 9, 'UNSAT']),
      pair('sat.cnf', ['solved', 8], ['solved', 0.01, 'SAT']),
      pair('audited.cnf', ['solved', 5], ['solved', 0.1, 'UNSAT']),
      pair('unproved.cnf', ['solved', 5], ['solved', 0.1, 'UNSAT']),
      pair('old.cnf', ['solved', 5], ['solved', 0.1]),
      pair('unsolved.cnf', ['solved', 5], ['timeout', T, null]),
      {
        ...pair('twice.cnf', ['solved', 6], ['solved', 5.8, 'UNSAT']),
        again: [
          { order: 'BA', ...pick(pair('twice.cnf', ['solved', 6], ['solved', 0.01, 'UNSAT'])) },
          { order: 'AB', ...pick(pair('twice.cnf', ['solved', 6], ['solved', 0.02, 'UNSAT'])) },
        ],
      },
    ]);
    const runs: DuelRuns = {
      first: new Map([
        ['old.cnf', run('old.cnf', 0.1)],
        ['audited.cnf', run('audited.cnf', 0.1, { check: { kind: 'drat', ok: true, time_s: 0, detail: '' } })],
        // The race's perf audit checked it and its proof did not verify: the pair still says solved, the run says unsolved.
        ['unproved.cnf', run('unproved.cnf', 0.1, { status: 'unknown', check: { kind: 'drat', ok: null, time_s: 9, detail: 'CPU time' } })],
      ]),
      again: [],
    };
    const answers = answersIn(d, runs, 'duel');
    assert.deepEqual(
      answers.map((a) => [a.instance, a.from, a.state, a.champion_s, a.challenger_s, a.nth]),
      [
        ['lie.cnf', 'duel', 'unchecked', 8, 0.01, 1],
        ['timeout.cnf', 'duel', 'unchecked', 2 * T, 9, 1],
        ['audited.cnf', 'duel', 'verified', 5, 0.1, 1],
        ['unproved.cnf', 'duel', 'unsolved', 5, 0.1, 1],
        ['old.cnf', 'duel', 'unchecked', 5, 0.1, 1],
        ['twice.cnf', 'duel', 'unchecked', 6, 5.8, 1],
        ['twice.cnf', 'second run', 'unchecked', 6, 0.01, 2],
        ['twice.cnf', 'second run', 'unchecked', 6, 0.02, 3],
      ],
      'SAT answers (model-checked in every run) and unsolved instances are not among them',
    );
    // As its checked answers support it: unchecked savings removed (the champion's time and status), unproved unsolved.
    const proved = asProved(d, answers);
    const b = (name: string) => proved.pairs.find((p) => p.instance === name)!;
    assert.deepEqual([b('lie.cnf').b.status, b('lie.cnf').b.cpu_s], ['solved', 8]);
    assert.deepEqual([b('timeout.cnf').b.status, b('timeout.cnf').b.cpu_s], ['timeout', T], 'the champion did not solve it: neither does an unchecked answer');
    assert.deepEqual([b('audited.cnf').b.status, b('audited.cnf').b.cpu_s], ['solved', 0.1]);
    assert.equal(b('unproved.cnf').b.status, 'unknown');
    assert.deepEqual([b('twice.cnf').b.cpu_s, ...b('twice.cnf').again!.map((x) => x.b.cpu_s)], [6, 6, 6], 'every run loses its saving');
    assert.deepEqual([b('sat.cnf').b.cpu_s], [0.01]);
    // An unchecked answer that was slower keeps its time: removing a loss would add a gain.
    const slower = answersIn(duel([pair('slow.cnf', ['solved', 1], ['solved', 2, 'UNSAT'])]), noRuns, 'duel');
    assert.equal(asProved(duel([pair('slow.cnf', ['solved', 1], ['solved', 2, 'UNSAT'])]), slower).pairs[0]!.b.cpu_s, 2);
    assert.deepEqual(
      checkOrder(answers).map((a) => `${a.instance}/${a.from}`),
      ['timeout.cnf/duel', 'lie.cnf/duel', 'twice.cnf/second run', 'twice.cnf/second run', 'old.cnf/duel', 'twice.cnf/duel'],
      'largest saving first',
    );
  });

  /** 74 instances of about a second: 14 SAT ones where B is as fast, and 60 UNSAT ones where B saves `save` s each. */
  const sixty = (save: number) =>
    duel([
      ...Array.from({ length: 14 }, (_, k) => pair(`sat-${k}.cnf`, ['solved', 1 + k / 100], ['solved', 1 + k / 100 + (k % 2 ? 0.001 : -0.001), 'SAT'])),
      ...Array.from({ length: 60 }, (_, k) => pair(`u-${String(k).padStart(2, '0')}.cnf`, ['solved', 1 + k / 1000], ['solved', 1 + k / 1000 - save, 'UNSAT'])),
    ]);

  it('sixty small lies that together win are checked, largest saving first, until one is caught; each alone saves under 1% of the PAR-2', async () => {
    const d = sixty(0.15);
    const total = d.pairs.reduce((t, p) => t + p.a.cpu_s!, 0);
    assert.ok(0.15 < 0.01 * total, 'each lie alone saves under 1% of the champion total (the old rule never checked one)');
    assert.equal(passes(d), true, 'as measured, the liar wins: significant and about 12% faster');
    const answers = answersIn(d, noRuns, 'duel');
    assert.equal(answers.length, 60);
    assert.equal(passes(asProved(d, answers)), false, 'on checked answers alone (none), it does not');
    const { asked, check } = scripted('caught');
    const p = await proveUntilPasses(d, answers, passes, check, 2);
    assert.deepEqual([p.passed, p.failures.length, asked.length], [false, 2, 2], 'the first batch catches them');
    // The same answers, honest: checked until the test passes on checked answers, then no more.
    const honest = scripted('ok');
    const q = await proveUntilPasses(d, answers, passes, honest.check, 2);
    assert.equal(q.passed, true);
    assert.ok(honest.asked.length < 60, `${honest.asked.length} checked`);
    assert.equal(passes(asProved(d, q.answers)), true);
    // It stopped as soon as it could: without its last batch, the test did not pass yet.
    const last = new Set(q.rows.slice(-2).map((r) => r.instance));
    assert.equal(
      passes(
        asProved(
          d,
          q.answers.map((a) => (last.has(a.instance) ? { ...a, state: 'unchecked' as const } : a)),
        ),
      ),
      false,
    );
    // Unproved (checks that do not finish) count as unsolved: a liar whose proofs are made slow to check loses the instances.
    const slow = await proveUntilPasses(d, answers, passes, scripted('unsolved').check, 2);
    assert.equal(slow.passed, false);
    assert.equal(slow.rows.length, 60, 'everything was tried');
    assert.ok(slow.answers.every((a) => a.state === 'unsolved'));
  });

  it('sixty small lies on the held-out set: not vetoed as measured, vetoed on checked answers alone, caught by the first checks; an honest one passes', async () => {
    // 14 SAT formulas 10% slower there, 60 UNSAT ones 0.15 s faster each: no worse as measured.
    const held = DuelDoc.parse({
      ...duel([
        ...Array.from({ length: 14 }, (_, k) => pair(`sat-${k}.cnf`, ['solved', 1 + k / 100], ['solved', 1.1 * (1 + k / 100), 'SAT'])),
        ...Array.from({ length: 60 }, (_, k) => pair(`u-${String(k).padStart(2, '0')}.cnf`, ['solved', 1 + k / 1000], ['solved', 0.85 + k / 1000, 'UNSAT'])),
      ]),
      purpose: 'held-out',
    });
    const notVetoed = (d: DuelDoc) => !heldOutVetoes(d, 'par2');
    assert.equal(notVetoed(held), true, 'as measured, the held-out set lets it through');
    const answers = answersIn(held, noRuns, 'held-out');
    assert.equal(answers.length, 60);
    assert.equal(notVetoed(asProved(held, answers)), false, "with its UNSAT answers at the champion's time, it is worse there");
    const lies = scripted('caught');
    const p = await proveUntilPasses(held, answers, notVetoed, lies.check, 2);
    assert.deepEqual([p.passed, p.failures.length, lies.asked.length], [false, 2, 2]);
    assert.ok(lies.asked.every((a) => a.from === 'held-out'));
    const honest = scripted('ok');
    const q = await proveUntilPasses(held, answers, notVetoed, honest.check, 2);
    assert.equal(q.passed, true);
    assert.ok(honest.asked.length > 0 && honest.asked.length <= 60, `${honest.asked.length} checked`);
  });

  it('a winner whose gain is on SAT answers needs no proof checked; one whose gain is a few large UNSAT answers has those checked first', async () => {
    const sat = duel(
      Array.from({ length: 12 }, (_, k) => pair(`s-${k}.cnf`, ['solved', 2], ['solved', 1, 'SAT'])).concat([
        pair('u.cnf', ['solved', 2], ['solved', 1.9, 'UNSAT']),
      ]),
    );
    const none = scripted('ok');
    const p = await proveUntilPasses(sat, answersIn(sat, noRuns, 'duel'), passes, none.check, 2);
    assert.deepEqual([p.passed, none.asked.length], [true, 0]);
    const big = duel([
      ...Array.from({ length: 12 }, (_, k) => pair(`s-${k}.cnf`, ['solved', 2], ['solved', 1.9, 'SAT'])),
      pair('u-big.cnf', ['timeout', T], ['solved', 3, 'UNSAT']),
      pair('u-mid.cnf', ['solved', 8], ['solved', 1, 'UNSAT']),
      pair('u-small.cnf', ['solved', 2], ['solved', 1.8, 'UNSAT']),
    ]);
    const some = scripted('ok');
    const q = await proveUntilPasses(big, answersIn(big, noRuns, 'duel'), passes, some.check, 1);
    assert.equal(q.passed, true);
    assert.deepEqual(
      some.asked.map((a) => a.instance),
      ['u-big.cnf', 'u-mid.cnf', 'u-small.cnf'].slice(0, some.asked.length),
    );
    assert.ok(some.asked.length >= 1);
  });

  it('old files still load: a duel without answers, an evaluation document without the record; one with it round-trips', () => {
    const old = JSON.parse(JSON.stringify(duel([pair('x.cnf', ['solved', 1], ['solved', 1])])));
    assert.equal(DuelDoc.safeParse(old).success, true);
    assert.equal(DuelDoc.parse(old).pairs[0]!.b.answer, undefined);
    assert.equal(parseEvalDoc(JSON.parse(JSON.stringify(sampleEvalDoc()))).ok, true);
    const record: PromotionAuditDoc = {
      at: '2026-01-01T00:00:00Z',
      champion: { solver: 'SATLUTION_0', hash: 'a'.repeat(64) },
      solver_hash: HASH,
      duel: 's-1',
      on: 'cpu',
      rule: 'r',
      timeout_s: 15,
      already_checked: ['b.cnf'],
      checked: 1,
      caught: 1,
      reused: 0,
      instances: [
        {
          instance: 'a.cnf',
          verdict: 'caught',
          status: 'missing_proof',
          answer: 'UNSAT',
          time_s: 0.01,
          check: { kind: 'drat', ok: false, time_s: 0, detail: 'no proof' },
          detail: 'UNSAT claimed on a.cnf without a proof',
          from: 'duel',
          champion_s: 8,
          challenger_s: 0.01,
          champion_status: 'solved',
        },
      ],
    };
    const doc = sampleEvalDoc({
      gates: [{ gate: 'perf', ok: false, detail: 'caught', failures: ['missing_proof: x (promotion audit)'], promotion_audit: record }],
    });
    const back = parseEvalDoc(JSON.parse(JSON.stringify(doc)));
    assert.ok(back.ok);
    assert.deepEqual(back.doc.gates[0]!.promotion_audit, record);
  });

  it('RESULTS.md says what was checked: rendered with the report, and replaced in place after it', async () => {
    const record = {
      champion: { solver: 'SATLUTION_0' },
      duel: 's-1',
      on: 'cpu' as const,
      rule: 'at most half',
      timeout_s: 15,
      already_checked: ['b.cnf'],
      instances: [
        {
          instance: 'a.cnf',
          verdict: 'ok' as const,
          from: 'duel' as const,
          champion_s: 8,
          challenger_s: 0.01,
          champion_status: 'solved',
          detail: 'proof verified',
        },
      ],
    };
    const text = renderResults('SATLUTION_1', 1, {
      verdict: 'pass',
      gates: [{ gate: 'perf', ok: true, detail: 'ok', failures: [], promotion_audit: record }],
      metrics: null,
    });
    assert.match(
      text,
      /## Proof-checked before promotion\n\nBefore this candidate could replace SATLUTION_0, every UNSAT answer it gave much faster \(at most half; CPU time, side by side \(session s-1\)\) was run again with a DRAT proof \(limit 15 s\)/,
      'a record from before proofs were kept',
    );
    const now = renderResults('SATLUTION_1', 1, {
      verdict: 'pass',
      gates: [
        {
          gate: 'perf',
          ok: true,
          detail: 'ok',
          failures: [],
          promotion_audit: { ...record, from: 'kept', timeout_s: undefined, instances: record.instances.map((i) => ({ ...i, run: 'cafe0123'.repeat(4) })) },
        },
      ],
      metrics: null,
    });
    assert.match(now, /was checked by drat-trim from the DRAT proof written by the very run that gave it\./);
    assert.match(now, /\| a\.cnf \| 8\.000 s \| 0\.010 s \| verified \(cafe0123\) \|/);
    assert.match(text, /1 more had been proof-checked by the perf audit already: b\.cnf\./);
    assert.match(text, /\| a\.cnf \| 8\.000 s \| 0\.010 s \| verified \|/);
    const dir = path.join(tempDir(), 'SATLUTION_1');
    fs.mkdirSync(dir);
    await writeResults(dir, 1, { verdict: 'pass', gates: [{ gate: 'perf', ok: true, detail: 'ok', failures: [] }], metrics: null });
    await writePromotionAudit(dir, { ...record, instances: [] });
    await writePromotionAudit(dir, record);
    const written = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    assert.equal(written.split('## Proof-checked before promotion').length, 2, 'one section, the latest');
    assert.match(written, /^# Results — SATLUTION_1 \(cycle 1\)[\s\S]*\| perf \| pass: ok \|[\s\S]*\| a\.cnf \|/);
  });
});

describe('promotion audit: real cycles', function () {
  this.timeout(1200000);
  before(function () {
    if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
      this.skip();
    }
  });

  it("a challenger that answers one hard UNSAT formula with a bogus proof wins the duel, is caught from its race run's proof before promotion, fails with a post-mortem, and the champion stays", async () => {
    // Fourteen easy formulas (pairs enough for the PAR-2 test at 0.005 to call it, with the noise its
    // second runs measure) and the hard one. With its UNSAT answers unchecked
    // (each at the champion's time) the liar's gain is its SAT answers' share of the loop, under the margin;
    // with the lie it is over it: the hard formula, the largest saving, is the first the audit checks.
    const ws = await workspace({ hard: true, unsat: EASY_UNSAT, sat: 10, marginPct: LIAR_MARGIN_PCT, edit: noDrops });
    const config = await loadConfig(ws);
    const pause = new PauseSignal();
    // The agent codes the liar; the cycle stops before evaluating, so both can be evaluated with the random sample forced to miss the lie.
    const first = await runCycle({
      ws,
      config,
      agent: liar(),
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      pause,
      onEvent: (e) => e.type === 'step' && e.step === 'evaluate' && pause.request(),
    });
    assert.equal(first.step, 'evaluate');
    for (const id of [0, 1]) {
      const e = await evaluateSolver({
        ws,
        config,
        solverDir: path.join(ws, `SATLUTION_${id}`),
        overrides: { stage: 'all', jobs: 2 },
        tiers: { reference: id === 0 },
        runnerEnv: { workerFile: WORKER },
        auditRandom: firstNames,
      });
      assert.equal(e.verdict, 'pass', JSON.stringify(e.doc.gates.map((g) => g.detail)));
    }
    const before = (await new EvalStore(ws).get(1))!;
    const lie = before.instances.find((r) => r.instance === HARD.name)!;
    assert.deepEqual([lie.status, lie.answer], ['solved', 'UNSAT'], 'the lie passed perf');
    assert.ok(!perfGate(before).audit!.instances.some((i) => i.instance === HARD.name), 'the random sample missed it');
    assert.equal(perfGate(before).audit!.caught, 0);

    // The race's own perf audit draws the same way: it misses the lie too, which is left to the promotion audit.
    const s = await runCycle({ ws, config, agent: liar(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2, auditRandom: firstNames });
    assert.equal(s.step, 'done');
    const decision = (await readDuels(ws)).filter((d) => d.purpose === 'decision').pop()!;
    const shown = `${s.outcome}\n${JSON.stringify(decision?.comparison)}\n${decision?.pairs.map((p) => `${p.instance}: ${p.a.status} ${p.a.cpu_s} s | ${p.b.status} ${p.b.cpu_s} s ${p.b.answer}`).join('\n')}`;
    assert.equal(s.champion_changed, false, shown);
    assert.match(
      s.outcome ?? '',
      /^SATLUTION_0 stays champion \(SATLUTION_1 won on the perf set, but the promotion audit caught (a lie|2 lies): UNSAT claimed on u-hard\.cnf, proof rejected by drat-trim/,
      shown,
    );
    // It really won: side by side it was significantly faster, by more than the margin as the decision judges it
    // (with the formulas run twice at the mean of their two runs, when the first runs left the margin in doubt).
    assert.equal(decision.comparison.verdict, 'B faster');
    assert.ok(marginGainPct(decision.comparison) >= LIAR_MARGIN_PCT, JSON.stringify(decision.comparison));
    assert.equal(decision.pairs.find((p) => p.instance === HARD.name)!.b.answer, 'UNSAT');
    // Failed, with the reason, in the store, the document, RESULTS.md and the post-mortem.
    const { index } = await new CandidateStore(ws).load();
    assert.equal(index.champion, 0);
    const rec = index.candidates.find((c) => c.id === 1)!;
    assert.equal(rec.status, 'failed');
    assert.match(
      rec.detail ?? '',
      /^failed the perf gate: promotion audit: the proofs of \d+ UNSAT answers? checked, largest saving first, as their runs wrote them; [12] caught: UNSAT claimed on u-hard\.cnf, proof rejected by drat-trim/,
    );
    const after = (await new EvalStore(ws).get(1))!;
    assert.equal(after.verdict, 'fail');
    const g = perfGate(after);
    assert.equal(g.ok, false);
    assert.match(
      g.failures[0]!,
      /^invalid_proof: UNSAT claimed on u-hard\.cnf, proof rejected by drat-trim .*\(the proof its own run wrote\) \(promotion audit\)$/,
    );
    const pa = g.promotion_audit!;
    // When its decision was in doubt, the longest formulas ran again: it lied there too, and was caught there too.
    const further = decision.pairs.find((p) => p.instance === HARD.name)!.again ?? [];
    assert.equal(pa.caught, further.length ? 2 : 1, JSON.stringify(pa.instances));
    if (further.length) {
      const again = pa.instances.find((i) => i.instance === HARD.name && i.from === 'second run')!;
      assert.deepEqual([again.verdict, again.status, again.run], ['caught', 'invalid_proof', further[(again.nth ?? 2) - 2]!.b.run], JSON.stringify(again));
    }
    assert.equal(pa.duel, decision.session);
    const hard = pa.instances.find((i) => i.instance === HARD.name && i.from === 'duel')!;
    assert.deepEqual(
      [hard.verdict, hard.status, hard.from, hard.champion_status, hard.check.kind, hard.check.ok],
      ['caught', 'invalid_proof', 'duel', 'solved', 'drat', false],
    );
    // The proof checked is the one the race's own run wrote: the record and the duel's pair name the same run.
    assert.ok(hard.run && hard.run === decision.pairs.find((p) => p.instance === HARD.name)!.b.run, JSON.stringify(hard));
    assert.ok(
      storedRuns(ws).some((r) => r.key === hard.run && r.result.status === 'invalid_proof'),
      'the verdict is recorded on that run',
    );
    // The cycle is over: its kept proofs are gone.
    assert.equal(fs.existsSync(path.join(proofRoot(), decision.session)), false);
    assert.ok(hard.champion_s > 10 * hard.challenger_s, JSON.stringify(hard));
    // Any other instance it checked (noise can make an easy one look twice as fast) was honest.
    assert.ok(
      pa.instances.every((i) => i.instance === HARD.name || i.verdict === 'ok'),
      JSON.stringify(pa.instances),
    );
    const results = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8');
    assert.match(results, /Verdict: \*\*fail\*\*/);
    assert.match(results, /\| perf \| FAIL: promotion audit: /);
    assert.match(
      results,
      /## Proof-checked before promotion\n\nBefore this candidate could replace SATLUTION_0, its UNSAT answers \(.*\) were checked by drat-trim from the DRAT proof written by the very run that gave each, largest saving first/,
    );
    assert.match(results, /\| u-hard\.cnf \| [\d.]+ s \| [\d.]+ s \| \*\*caught\*\*: UNSAT claimed on u-hard\.cnf, proof rejected by drat-trim/);
    const sigs = (await new SignatureLog(ws).all()).filter((x) => x.candidate === 'SATLUTION_1');
    assert.ok(
      sigs.some((x) => x.kind === 'invalid_proof' && /u-hard\.cnf/.test(x.example)),
      JSON.stringify(sigs),
    );
  });

  it('an honest challenger much faster on UNSAT formulas is promoted, with those answers proof-checked; a resumed decision does not check them again', async () => {
    const unsat: [number, number][] = [...EASY_UNSAT, [6, 4], [7, 5]];
    // No SAT formulas: the gain rests on UNSAT answers alone. The perf audit's sample checks one (min 1, the first name), whose
    // saving alone is under a 20% margin, so the promotion audit must prove more.
    const ws = await workspace({ hard: false, unsat, sat: 0, marginPct: 20, edit: (y) => y.replace(/^(\s*perf:\s*\{)/m, '$1 audit: { min: 1, share: 0 },') });
    const config = await loadConfig(ws);
    const s = await runCycle({
      ws,
      config,
      agent: scriptAgent('no start-up loop', 0),
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
      auditRandom: firstNames,
    });
    assert.equal(s.champion_changed, true, s.outcome ?? '');
    assert.equal((await new CandidateStore(ws).load()).index.champion, 1);
    const doc = (await new EvalStore(ws).get(1))!;
    assert.equal(doc.verdict, 'pass');
    const pa = perfGate(doc).promotion_audit!;
    const names = unsat.map(([p, h]) => `php-${p}-${h}.cnf`).sort();
    // Every UNSAT answer saved time (no start-up loop): each was proof-checked (by the random sample, or now, largest
    // saving first) or left unchecked at the champion's time, and the test passed on the checked ones.
    assert.equal(pa.passed, true, JSON.stringify(pa));
    // Each instance once (its further runs, where it ran again, beside it).
    const first = (x: string) => x.replace(/ \((second run|run \d+)\)$/, '');
    assert.deepEqual(
      [...new Set([...pa.instances.map((i) => i.instance), ...pa.already_checked, ...pa.unchecked!].map(first))].sort(),
      names,
      JSON.stringify(pa),
    );
    assert.deepEqual(
      [...pa.already_checked].sort(),
      perfGate(doc)
        .audit!.instances.map((i) => i.instance)
        .sort(),
    );
    // It needed UNSAT answers proved beyond the sample's.
    assert.ok(pa.instances.length >= 1, JSON.stringify(pa));
    for (const i of pa.instances) {
      assert.deepEqual([i.verdict, i.status, i.answer, i.check.kind, i.check.ok], ['ok', 'solved', 'UNSAT', 'drat', true], i.instance);
      assert.ok(i.from === 'duel' || i.from === 'second run', i.from);
    }
    assert.deepEqual([pa.checked, pa.caught, pa.from], [pa.instances.length, 0, 'kept']);
    const decision = (await readDuels(ws)).filter((d) => d.purpose === 'decision').pop()!;
    for (const i of pa.instances) {
      const pair = decision.pairs.find((p) => p.instance === i.instance)!;
      assert.equal(i.run, i.from === 'duel' ? pair.b.run : pair.again![(i.nth ?? 2) - 2]!.b.run, `${i.instance}: the proof of the race's run`);
    }
    const results = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8');
    assert.match(results, /## Against the champion, side by side/);
    assert.match(results, /## Proof-checked before promotion\n\nBefore this candidate could replace SATLUTION_0, /);
    for (const i of pa.instances)
      assert.match(
        results,
        new RegExp(
          `\\| ${i.instance.replace(/\./g, '\\.')}${i.from === 'second run' ? ' \\(second run\\)' : ''} \\| [\\d.]+ s \\| [\\d.]+ s \\| verified \\(${i.run!.slice(0, 8)}\\) \\|`,
        ),
      );
    // Nothing ran again: the checks are recorded on the race's runs.
    const runs = storedRuns(ws);
    assert.ok(pa.instances.every((i) => runs.some((r) => r.key === i.run && r.result.check.ok === true)));
    const checked = runs.filter((r) => r.result.check.kind === 'drat' && pa.instances.some((i) => i.instance === r.result.instance));
    assert.ok(checked.length >= pa.instances.length && checked.every((r) => r.result.check.ok === true));
    // Asked again (a resumed decide step), it finds its record and runs nothing.
    const said: string[] = [];
    assert.equal(
      await auditBeforePromotion(
        { ws, config, runnerEnv: { workerFile: WORKER }, log: (m) => said.push(m) },
        { cycle: 1, champion: 0, challenger: 1, duel: decision, passes: () => false, jobs: 2 },
      ),
      undefined,
    );
    assert.equal(storedRuns(ws).length, runs.length);
    assert.equal(perfGate((await new EvalStore(ws).get(1))!).promotion_audit!.at, pa.at);
    assert.match(said.join('\n'), /kept from before/);
  });

  it('a significant gain under the margin: both run instances again, in rounds, as new runs, and the test and the margin are judged on the means', async () => {
    // Half the start-up loop: faster on every pair (significant with ten pairs), by far less than a 90% margin.
    const unsat: [number, number][] = [...EASY_UNSAT, [6, 4], [7, 5]];
    // Racing's drops off: a look asks most of the margin, which this gain does not reach; the second runs are what is tested.
    const ws = await workspace({ hard: false, unsat, sat: 4, marginPct: 90, edit: noDrops });
    const config = await loadConfig(ws);
    const s = await runCycle({
      ws,
      config,
      agent: scriptAgent('half the start-up loop', SPIN / 2),
      approver: { confirm: async () => true },
      log: silentLogger,
      jobs: 2,
    });
    const decision = (await readDuels(ws)).filter((d) => d.purpose === 'decision').pop()!;
    const twice = decision.pairs.filter((p) => p.again);
    const shown = `${s.outcome}\n${JSON.stringify(decision.comparison)}`;
    assert.equal(s.champion_changed, false, shown);
    assert.equal(decision.comparison.verdict, 'B faster', shown);
    assert.match(
      s.outcome ?? '',
      /faster side by side with \d+ instances? run again by both, up to \d+ times each \(near the limit and the longest; the mean of the runs\): significant, but at 80% confidence only -?\d+\.\d% faster, under the 90\.0% margin\)$/,
      shown,
    );
    // Rounds of further runs (which instances: race.test.ts), never past AGAIN_RUNS runs of an instance.
    assert.ok(twice.length >= 1 && twice.every((p) => p.again!.length <= AGAIN_RUNS - 1), shown);
    assert.equal(decision.comparison.again?.instances, twice.length);
    // New runs, not the stored first ones: an UNSAT second run kept a proof of its own, under a key of its own.
    const stored = storedRuns(ws);
    for (const p of twice.filter((x) => x.b.answer === 'UNSAT'))
      for (const x of p.again!) {
        assert.ok(p.b.run && x.b.run && p.b.run !== x.b.run, JSON.stringify(p));
        assert.ok(stored.some((r) => r.key === x.b.run));
      }
    assert.ok(
      twice.some((p) => p.again![0]!.a.cpu_s !== p.a.cpu_s),
      "the champion's second runs are its own too",
    );
    const results = fs.readFileSync(path.join(ws, 'SATLUTION_1', 'RESULTS.md'), 'utf8');
    assert.match(
      results,
      new RegExp(
        `Both ran ${twice.length} instances? again, up to \\d+ times each \\(those near the time limit and the longest\\): with each at the mean of its runs, PAR-2 champion [\\d.]+ s, this [\\d.]+ s \\(the test and the margin are judged on these\\)`,
      ),
    );
  });
});
