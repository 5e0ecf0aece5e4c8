// The promotion audit (ARCHITECTURE.md, "The path of a cycle", decide). perf checks no proofs while it
// runs and its random audit samples a tenth of the UNSAT answers, so a challenger whose gain rests on
// UNSAT answers it never proved (guesses, or answers it was given) slips through most evaluations, one
// large lie or many small ones alike. So a promotion rests only on checked answers: before it, the
// challenger's UNSAT answers in the decision duel (and its second runs) are checked from the proofs
// written by the very runs that gave them, kept since the race (run/keptProof.ts), largest saving first,
// until the promotion test still passes with every answer left unchecked given the champion's time (its
// saving removed) and every unproved one counted unsolved. A lie caught fails the candidate (its
// document, status, RESULTS.md and the post-mortem say why) and the champion stays; a test that no
// longer passes holds the promotion back. After the held-out check, its UNSAT answers there are checked
// the same way, until the check still passes on checked answers (auditHeldOut). The record is kept on
// the perf gate of the challenger's document, so a resumed cycle finds it instead of checking again.
import * as path from 'node:path';
import { judgeAudit } from '../eval/audit';
import { pairTimes, type DuelDoc, type DuelPair } from './duels';
import type { EvalDoc, GateDoc, PromotionAuditDoc, PromotionAuditedDoc } from '../eval/evalDoc';
import { EvalStore } from '../eval/evalStore';
import { basisOf, type TimeBasis } from '../eval/metrics';
import { checkKeptProofs } from '../eval/proofChecks';
import { type ResultsStore, solverIdentity } from '../eval/resultsStore';
import { openPerfSession, type PerfSession } from '../eval/perfSession';
import { candidateDirName } from '../layout';
import { FATAL, type InstanceResult } from '../run/result';
import { postmortem } from '../rules/evolution';
import { CandidateStore } from '../store/candidates';
import { writePromotionAudit, writeResults } from '../workspace/resultsFile';
import type { VerdictContext } from './againstChampion';
import { runLabel } from '../explain';

/** The rule in words, kept in the record and shown in RESULTS.md. */
export const PROVED_RULE =
  "largest saving first, until the promotion test passes with every UNSAT answer left unchecked at the champion's time and every unproved one unsolved";

/** One instance as the two sides' PAR-2 times on it put it. */
export interface Timed {
  champion_s: number;
  challenger_s: number;
  /** The champion's status there ('solved', 'timeout', ...). */
  champion_status: string;
}

/** What is known of an answer's proof: verified, a lie (rejected), unproved (checked, not verified: unsolved), or not checked yet. */
export type ProofState = 'verified' | 'lie' | 'unsolved' | 'unchecked';

/** One UNSAT answer of the challenger that a decision counted: where (a duel's first run, a further run), which run of its instance (1: the first), its times, and its proof's state. */
export interface Answer extends Timed {
  instance: string;
  from: PromotionAuditedDoc['from'];
  nth: number;
  state: ProofState;
}

/** The PAR-2 time an answer saves against the champion (negative: slower there). */
export const saving = (a: Timed): number => a.champion_s - a.challenger_s;

/** What a stored run says of its proof: a verdict recorded on it (eval/proofChecks.ts), else unchecked (also when the run is not at hand). */
export function proofState(run: InstanceResult | undefined): ProofState {
  if (!run) return 'unchecked';
  if (FATAL.has(run.status)) return 'lie';
  if (run.status === 'unknown' && run.check.kind === 'drat') return 'unsolved';
  return run.status === 'solved' && run.check.ok === true ? 'verified' : 'unchecked';
}

/** The basis a duel's times are on: its own, but wall where a pair lacks a CPU time (duels kept before every figure said which). */
const duelBasis = (d: DuelDoc): TimeBasis =>
  basisOf(
    d.on,
    d.pairs.flatMap((p) => [p.a, p.b]),
  );

/** The challenger's runs in a duel, by instance: its first runs, and its further runs where the decision was judged on them (`again[k]`: each instance's run k + 2). */
export interface DuelRuns {
  first: ReadonlyMap<string, InstanceResult>;
  again: readonly ReadonlyMap<string, InstanceResult>[];
}

/** The challenger's `nth` runs of a duel's instances (1: its first runs), none where no instance ran that often. */
const nthRuns = (runs: DuelRuns, nth: number): ReadonlyMap<string, InstanceResult> => (nth === 1 ? runs.first : runs.again[nth - 2]) ?? new Map();

/**
 * The UNSAT answers B gave in a duel (first runs as `from`, further runs as 'second run'), each with its
 * PAR-2 times there and what its stored run says of its proof. B's answer comes from the pair, else
 * (duels kept before pairs recorded it) from its run.
 */
export function answersIn(d: DuelDoc, runs: DuelRuns, from: 'duel' | 'held-out'): Answer[] {
  const on = duelBasis(d);
  const one = (p: DuelPair, nth: number): Answer[] => {
    const further = p.again?.[nth - 2];
    const pair = nth === 1 ? p : further ? { ...p, ...further } : undefined;
    if (!pair) return [];
    const run = nthRuns(runs, nth).get(p.instance);
    const answer = pair.b.answer === undefined ? run?.answer : pair.b.answer;
    if (pair.b.status !== 'solved' || answer !== 'UNSAT') return [];
    const [a, b] = pairTimes(pair, d.timeout_s, on);
    return [
      {
        instance: p.instance,
        from: nth === 1 ? from : 'second run',
        nth,
        champion_s: a,
        challenger_s: b,
        champion_status: pair.a.status,
        state: proofState(run),
      },
    ];
  };
  return d.pairs.flatMap((p) => Array.from({ length: 1 + (p.again?.length ?? 0) }, (_, k) => one(p, k + 1)).flat());
}

/**
 * The duel as its checked answers alone support it: an answer not proved (unsolved, or a lie) is
 * unsolved, and one not checked yet gets the champion's time and status there when it saved time (its
 * saving removed; one that lost time keeps it). Everything else is as measured.
 */
export function asProved(d: DuelDoc, answers: readonly Answer[]): DuelDoc {
  const key = (instance: string, nth: number) => `${nth}:${instance}`;
  const by = new Map(answers.map((a) => [key(a.instance, a.nth), a]));
  const side = (a: DuelPair['a'], b: DuelPair['b'], x: Answer | undefined): DuelPair['b'] => {
    if (!x || x.state === 'verified') return b;
    if (x.state === 'unchecked') return saving(x) > 0 ? { ...b, status: a.status, time_s: a.time_s, cpu_s: a.cpu_s } : b;
    return { ...b, status: 'unknown' };
  };
  return {
    ...d,
    pairs: d.pairs.map((p) => ({
      ...p,
      b: side(p.a, p.b, by.get(key(p.instance, 1))),
      ...(p.again ? { again: p.again.map((x, k) => ({ ...x, b: side(x.a, x.b, by.get(key(p.instance, k + 2))) })) } : {}),
    })),
  };
}

/** The next answers to check: unchecked ones that saved time, largest saving first (ties by name). */
export function checkOrder(answers: readonly Answer[]): Answer[] {
  return answers
    .filter((a) => a.state === 'unchecked' && saving(a) > 0)
    .sort((x, y) => saving(y) - saving(x) || x.instance.localeCompare(y.instance) || x.nth - y.nth);
}

/** Checks the proofs of a batch of answers (their runs' kept proofs); returns what each showed. */
export type CheckAnswers = (batch: readonly Answer[]) => Promise<{ rows: PromotionAuditedDoc[]; failures: string[] }>;

/** How proving until the test passes ended: the answers as now known, the rows checked, lies caught, and whether the test passes on checked answers. */
export interface Proved {
  answers: Answer[];
  rows: PromotionAuditedDoc[];
  failures: string[];
  passed: boolean;
}

/**
 * Checks answers, largest saving first, `batch` at a time, until `passes` holds for the duel as its
 * checked answers support it (asProved), a lie is caught, or nothing is left to check. Answers already
 * known (the perf audit's verdicts) count as they are.
 */
export async function proveUntilPasses(
  d: DuelDoc,
  start: readonly Answer[],
  passes: (d: DuelDoc) => boolean,
  check: CheckAnswers,
  batch: number,
): Promise<Proved> {
  let answers = [...start];
  const rows: PromotionAuditedDoc[] = [];
  const failures: string[] = [];
  for (;;) {
    if (passes(asProved(d, answers))) return { answers, rows, failures, passed: true };
    const next = checkOrder(answers).slice(0, Math.max(1, batch));
    if (!next.length) return { answers, rows, failures, passed: false };
    const got = await check(next);
    rows.push(...got.rows);
    failures.push(...got.failures);
    const state = new Map(got.rows.map((r) => [`${r.from}:${rowNth(r)}:${r.instance}`, stateOf(r.verdict)]));
    answers = answers.map((a) => ({ ...a, state: state.get(`${a.from}:${a.nth}:${a.instance}`) ?? a.state }));
    if (failures.length) return { answers, rows, failures, passed: false };
  }
}

/** Which run of its instance an audited row's answer came from (rows from before runs went past two say 'second run' alone). */
const rowNth = (r: PromotionAuditedDoc): number => r.nth ?? (r.from === 'second run' ? 2 : 1);

/** An audited row's verdict as a proof state. */
const stateOf = (v: PromotionAuditedDoc['verdict']): ProofState => (v === 'ok' ? 'verified' : v === 'caught' ? 'lie' : 'unsolved');

/** Which promotion to audit. */
export interface PromotionAuditRequest {
  cycle: number;
  champion: number;
  challenger: number;
  /** The decision duel the challenger won. */
  duel: DuelDoc;
  /** Whether the promotion test passes on a duel (the strategy's accept at the decision's level): asked of the duel as its checked answers support it. */
  passes: (d: DuelDoc) => boolean;
  /** Parallel checks instead of the runner's configured `jobs`. */
  jobs?: number;
}

/** The audit in a line, for the perf gate's detail and the cycle's outcome (`held`: the held-out part's line). */
function summary(doc: PromotionAuditDoc, held = false): string {
  const part = held ? doc.held_out : doc;
  const rows = part?.instances ?? [];
  const unchecked = part?.unchecked?.length ?? 0;
  const where = held ? ' on the held-out set' : '';
  const left = unchecked ? `; ${unchecked} left unchecked, each at ${doc.champion.solver}'s time` : '';
  if (!rows.length) return `promotion audit${where}: passes on its checked answers with no proof to check${left}`;
  const n = rows.length;
  const head = `promotion audit${where}: the proofs of ${n} UNSAT answer${n === 1 ? '' : 's'} checked, largest saving first, as their runs wrote them`;
  const lie = rows.find((x) => x.verdict === 'caught');
  if (lie) return `${head}; ${rows.filter((x) => x.verdict === 'caught').length} caught: ${lie.detail}`;
  const open = rows.filter((x) => x.verdict !== 'ok');
  return `${head}; ${n - open.length} verified${open.length ? `, ${open.length} counted as unsolved (${open[0]!.instance}: ${open[0]!.detail})` : ''}${left}`;
}

/** What checking a winner's answers needs: the perf stage (or the held-out set) as planned, with its runner and checker; undefined when proofs are off. */
async function auditSetting(ctx: VerdictContext, req: { jobs?: number; bench?: string }): Promise<PerfSession | undefined> {
  const perf = await openPerfSession({
    ws: ctx.ws,
    config: ctx.config,
    runnerEnv: ctx.runnerEnv,
    overrides: { ...(req.bench ? { bench: req.bench } : {}), ...(req.jobs !== undefined ? { jobs: req.jobs } : {}) },
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  return perf.plan.audit ? perf : undefined; // proofs are off (or perf checks them all itself)
}

/** Checks the kept proofs of the runs behind a batch of answers and judges each; a run not at hand stands unproved. */
function checkAnswers(setting: PerfSession, runs: DuelRuns, log: (m: string) => void): CheckAnswers {
  return async (batch) => {
    log(`checking the proofs of ${batch.map((a) => `${a.instance}${runLabel(a.nth)}`).join(', ')}, as their runs wrote them`);
    const rows: PromotionAuditedDoc[] = [];
    const failures: string[] = [];
    // One call per run of an instance: its first and its further runs are each a proof of their own.
    for (const nth of [...new Set(batch.map((a) => a.nth))].sort((x, y) => x - y)) {
      const wanted = batch.filter((a) => a.nth === nth);
      const from = nthRuns(runs, nth);
      const behind = wanted.map((a) => from.get(a.instance) ?? unknownRun(a.instance));
      const specs = setting.instances.filter((i) => wanted.some((a) => a.instance === i.name));
      const checked = await checkKeptProofs(setting.proofs, behind, specs);
      behind.forEach((r, k) => {
        const { failure, ...j } = judgeAudit(checked.get(r.instance) ?? r, 'promotion audit');
        const a = wanted[k]!;
        if (failure) failures.push(failure);
        rows.push({
          ...j,
          from: a.from,
          ...(a.nth > 1 ? { nth: a.nth } : {}),
          champion_s: a.champion_s,
          challenger_s: a.challenger_s,
          champion_status: a.champion_status,
        });
      });
    }
    return { rows, failures };
  };
}

/** B's runs in a duel, first and further, by instance, as the results store keeps them under the keys its pairs name (pairs without one have none). */
async function duelRuns(store: ResultsStore, d: DuelDoc): Promise<DuelRuns> {
  const stored = await store.load();
  const of = (key: string | undefined) => (key ? stored.get(key)?.result : undefined);
  const runs = (nth: number) =>
    new Map(
      d.pairs.flatMap((p) => {
        const r = of(nth === 1 ? p.b.run : p.again?.[nth - 2]?.b.run);
        return r ? [[p.instance, r] as const] : [];
      }),
    );
  const most = Math.max(1, ...d.pairs.map((p) => 1 + (p.again?.length ?? 0)));
  return { first: runs(1), again: Array.from({ length: most - 1 }, (_, k) => runs(k + 2)) };
}

/** An answer whose run is not at hand (a pair that names no run): it has no kept proof, so it stands unproved. */
const unknownRun = (instance: string): InstanceResult => ({
  instance,
  family: null,
  expected: null,
  expected_from: 'none',
  answer: 'UNSAT',
  status: 'solved',
  time_s: 0,
  cpu_s: null,
  mem_mb: null,
  exit_code: 20,
  signal: null,
  check: { kind: 'none', ok: null, time_s: 0, detail: '' },
  detail: '',
});

/** The part of a record one proving makes: its rows, the answers left unchecked, whether it passed. */
const partOf = (p: Proved) => ({
  checked: p.rows.length,
  caught: p.failures.length,
  instances: p.rows,
  unchecked: p.answers.filter((a) => a.state === 'unchecked').map((a) => `${a.instance}${runLabel(a.nth)}`),
  passed: p.passed,
});

/** Why a test that no longer passes on checked answers holds the promotion back. */
function notPassing(p: Proved, what: string): string {
  const unproved = p.answers.filter((a) => a.state === 'unsolved');
  const row = p.rows.find((r) => r.verdict !== 'ok');
  return `on its checked answers alone it no longer passes ${what}: ${unproved.length} UNSAT answer${unproved.length === 1 ? '' : 's'} not proved, counted as unsolved${row ? ` (${row.instance}: ${row.detail})` : ''}`;
}

/**
 * Runs the promotion audit of `req.challenger` against `req.champion` (or finds it done) and returns why
 * the promotion must not happen, or undefined when it may. A lie caught has failed the candidate already.
 * Nothing to do when proofs are off (stages.perf.audit min 0, share 0; or perf checks every proof itself).
 */
export async function auditBeforePromotion(ctx: VerdictContext, req: PromotionAuditRequest): Promise<string | undefined> {
  const setting = await auditSetting(ctx, req);
  if (!setting) return undefined;
  const evals = new EvalStore(ctx.ws);
  const doc = await evals.get(req.challenger);
  const gate = doc && perfGate(doc);
  if (!doc || !gate) return undefined; // not measured on perf: accept never picks such a candidate
  const [championDir, challengerDir] = [path.join(ctx.ws, candidateDirName(req.champion)), path.join(ctx.ws, candidateDirName(req.challenger))];
  const [championHash, solverHash] = [await solverIdentity(championDir), await solverIdentity(challengerDir)];
  const kept = gate.promotion_audit;
  if (
    kept &&
    kept.from === 'kept' &&
    kept.passed === true &&
    kept.champion.hash === championHash &&
    kept.solver_hash === solverHash &&
    kept.duel === req.duel.session
  ) {
    ctx.log(`${candidateDirName(req.challenger)}: ${summary(kept)} (kept from before)`);
    return undefined;
  }
  const runs = await duelRuns(setting.proofs.store, req.duel);
  const answers = answersIn(req.duel, runs, 'duel');
  const who = candidateDirName(req.challenger);
  const proved = await proveUntilPasses(
    req.duel,
    answers,
    req.passes,
    checkAnswers(setting, runs, (m) => ctx.log(`${who}: ${m}`)),
    setting.proofs.jobs,
  );
  const record: PromotionAuditDoc = {
    at: new Date().toISOString(),
    champion: { solver: candidateDirName(req.champion), hash: championHash },
    solver_hash: solverHash,
    duel: req.duel.session,
    on: duelBasis(req.duel),
    rule: PROVED_RULE,
    from: 'kept',
    already_checked: answers.filter((a) => a.state !== 'unchecked').map((a) => a.instance),
    ...partOf(proved),
  };
  const objection = await settle(ctx, req, { doc, gate, record, failures: proved.failures, dir: challengerDir });
  if (objection) return objection.why;
  return proved.passed ? undefined : notPassing(proved, 'the promotion test');
}

/**
 * After the held-out check passed: the winner's UNSAT answers on the held-out set, checked from the
 * proofs their held-out runs kept, largest saving first, until the check (`passes`: not vetoed) still
 * passes on checked answers. Returns why the promotion must not happen (`failed`: a lie caught has
 * failed the candidate), or undefined.
 */
export async function auditHeldOut(
  ctx: VerdictContext,
  req: Omit<PromotionAuditRequest, 'duel'> & { heldOut: DuelDoc; bench: string },
): Promise<Objection | undefined> {
  const setting = await auditSetting(ctx, req);
  if (!setting) return undefined;
  const evals = new EvalStore(ctx.ws);
  const doc = await evals.get(req.challenger);
  const gate = doc && perfGate(doc);
  const record = gate?.promotion_audit;
  if (!doc || !gate || !record) return undefined;
  if (record.held_out?.duel === req.heldOut.session && record.held_out.passed === true) return undefined;
  const runs = await duelRuns(setting.proofs.store, req.heldOut);
  const who = candidateDirName(req.challenger);
  const proved = await proveUntilPasses(
    req.heldOut,
    answersIn(req.heldOut, runs, 'held-out'),
    req.passes,
    checkAnswers(setting, runs, (m) => ctx.log(`${who}, held-out set: ${m}`)),
    setting.proofs.jobs,
  );
  const part = partOf(proved);
  const next: PromotionAuditDoc = { ...record, held_out: { duel: req.heldOut.session, ...part }, caught: record.caught + part.caught };
  const objection = await settle(ctx, req, {
    doc,
    gate,
    record: next,
    failures: proved.failures,
    dir: path.join(ctx.ws, candidateDirName(req.challenger)),
    held: true,
  });
  if (objection) return objection;
  return proved.passed ? undefined : { why: notPassing(proved, `the held-out check on ${req.bench}`), failed: false };
}

/**
 * What a promotion rested on, for its outcome line: the UNSAT answers proved (checked by the audits
 * before it, or the perf audit earlier) and those left unchecked at the champion's time; undefined
 * without a record of this kind.
 */
export async function restedOn(ws: string, challenger: number): Promise<string | undefined> {
  const doc = await new EvalStore(ws).get(challenger);
  const r = doc && perfGate(doc)?.promotion_audit;
  if (!r || r.passed === undefined) return undefined;
  const parts = [r, ...(r.held_out ? [r.held_out] : [])];
  const proved = r.already_checked.length + parts.reduce((n, p) => n + p.instances.filter((i) => i.verdict === 'ok').length, 0);
  const unchecked = parts.reduce((n, p) => n + (p.unchecked?.length ?? 0), 0);
  return `its UNSAT answers: ${proved} proof-checked${unchecked ? `, ${unchecked} left unchecked and counted at ${r.champion.solver}'s time` : ''}`;
}

/** The last perf gate of a document (a tiered one has several). */
const perfGate = (doc: EvalDoc): GateDoc | undefined => doc.gates.filter((g) => g.gate === 'perf').pop();

/** Why an audit holds a promotion back; `failed`: it caught a lie, which has failed the candidate. */
export interface Objection {
  why: string;
  failed: boolean;
}

/** Keeps the record; a lie fails the candidate (document, status, RESULTS.md, post-mortem). */
async function settle(
  ctx: VerdictContext,
  req: Pick<PromotionAuditRequest, 'cycle' | 'challenger'>,
  a: { doc: EvalDoc; gate: GateDoc; record: PromotionAuditDoc; failures: string[]; dir: string; held?: boolean },
): Promise<Objection | undefined> {
  const { doc, gate, record, failures } = a;
  const evals = new EvalStore(ctx.ws);
  const line = summary(record, a.held);
  const who = candidateDirName(req.challenger);
  if (!failures.length) {
    await evals.write(req.challenger, { ...doc, gates: doc.gates.map((g) => (g === gate ? { ...g, promotion_audit: record } : g)) });
    await writePromotionAudit(a.dir, record);
    ctx.log(`${who}: ${line}`);
    return undefined;
  }
  const failed: EvalDoc = {
    ...doc,
    verdict: 'fail',
    gates: doc.gates.map((g) =>
      g === gate ? { ...g, ok: false, detail: line, failures: [...failures, ...g.failures].slice(0, 20), promotion_audit: record } : g,
    ),
  };
  await evals.write(req.challenger, failed);
  await new CandidateStore(ctx.ws).setStatus(req.challenger, 'failed', `failed the perf gate: ${line}`);
  await writeResults(a.dir, req.cycle, failed);
  await postmortem(ctx.ws, who, failed);
  const caught = [...record.instances, ...(record.held_out?.instances ?? [])].find((i) => i.verdict === 'caught')!;
  return { why: `the promotion audit caught ${failures.length === 1 ? 'a lie' : `${failures.length} lies`}: ${caught.detail}`, failed: true };
}
