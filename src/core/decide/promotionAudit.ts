// The promotion audit (ARCHITECTURE.md, "The path of a cycle", decide). perf checks no proofs while it
// runs and its random audit samples a tenth of the UNSAT answers, so a challenger whose whole gain is
// one UNSAT answer it never proved (a guess, or an answer it was given) slips through most
// evaluations. Before a promotion, every UNSAT answer the challenger gave much faster than the champion
// (those its gain rests on) is checked from the proof written by the very run that gave it, kept since
// the race (run/keptProof.ts): no second run a solver could tell from the measured one. A lie caught
// fails the candidate (its document, status, RESULTS.md and the post-mortem say why) and the champion
// stays; an answer whose proof cannot be checked (drat-trim out of time, the proof gone) holds the
// promotion back without failing anyone. After the held-out check, its much-faster UNSAT answers are
// checked the same way (auditHeldOut). The record is kept on the perf gate of the challenger's
// document, so a resumed cycle finds it instead of checking again.
import * as path from 'node:path';
import { judgeAudit } from '../eval/audit';
import { pairTimes, type DuelDoc } from './duels';
import { measuredInFull, type EvalDoc, type GateDoc, type PromotionAuditDoc, type PromotionAuditedDoc } from '../eval/evalDoc';
import { EvalStore } from '../eval/evalStore';
import { basisOf, par2Of, type TimeBasis } from '../eval/metrics';
import { checkKeptProofs } from '../eval/proofChecks';
import { type ResultsStore, solverIdentity } from '../eval/resultsStore';
import { openPerfSession, type PerfSession } from '../eval/perfSession';
import { candidateDirName } from '../layout';
import type { InstanceResult } from '../run/result';
import { postmortem } from '../rules/evolution';
import { CandidateStore } from '../store/candidates';
import { writePromotionAudit, writeResults } from '../workspace/resultsFile';
import type { VerdictContext } from './againstChampion';

/**
 * "Much faster": at most this share of the champion's time. The paired runs of a duel differ by a few
 * percent from noise; half is far outside it, so such an instance is a real difference, and it is
 * where a gain concentrates (an honest speed-up spread over the set rarely halves single instances).
 */
export const MUCH_FASTER_RATIO = 0.5;

/**
 * ...and a saving that matters: at least this share of the champion's PAR-2 total over the compared
 * instances, i.e. the instance alone moves the PAR-2 by 1%. Promotion needs min_improvement_pct (5% by
 * default) or the noise band, so a smaller saving carries at most a fifth of the least gain that can
 * promote; lies spread over many such instances are what the random sample is for. The share scales
 * with the set and its timeout, and bounds the checks: drat-trim on proofs of runs that took at most
 * half the champion's time.
 */
export const SAVING_SHARE = 0.01;

/** The rule in words, kept in the record and shown in RESULTS.md. */
export const MUCH_FASTER_RULE = `at most ${MUCH_FASTER_RATIO}x the champion's time and a saving of at least ${100 * SAVING_SHARE}% of its PAR-2 total, or the champion did not solve it`;

/** One instance as the two sides' PAR-2 times on it put it. */
export interface Timed {
  champion_s: number;
  challenger_s: number;
  /** The champion's status there ('solved', 'timeout', ...). */
  champion_status: string;
}

/** Whether the challenger's time on an instance is much faster than the champion's, given the champion's PAR-2 total over the compared instances. */
export function muchFaster(t: Timed, championTotalS: number): boolean {
  if (t.champion_status !== 'solved') return true;
  return t.challenger_s <= MUCH_FASTER_RATIO * t.champion_s && t.champion_s - t.challenger_s >= SAVING_SHARE * championTotalS;
}

/** An answer whose proof to check, with where the gain showed. */
export type Qualifying = Timed & { instance: string; from: PromotionAuditedDoc['from'] };

/** What the selection reads: the decision duel and the challenger's runs in it, else both sides' perf evaluation documents. */
export interface SelectionInput {
  duel: DuelDoc | undefined;
  /** The challenger's runs in the duel, by instance (found in the results store by the keys its pairs name): what was proved of them. */
  duelRuns?: ReadonlyMap<string, InstanceResult>;
  challenger: EvalDoc;
  champion: EvalDoc | undefined;
  /** The time basis of decisions (evaluation.decide_on), for the documents; the duel has its own. */
  on: TimeBasis;
}

/** The last perf gate of a document (a tiered one has several). */
const perfGate = (doc: EvalDoc): GateDoc | undefined => doc.gates.filter((g) => g.gate === 'perf').pop();

/**
 * The UNSAT answers to proof-check before a promotion: the challenger answered UNSAT much faster than
 * the champion (muchFaster) where the decision was made, in the duel's pairs, and no proof of that very
 * run was checked yet (`alreadyChecked`: the race's perf audit verified it). Without a duel (a decision
 * on separate measurements, from before the race), in the two perf evaluation documents.
 */
export function selectForAudit(i: SelectionInput): { audit: Qualifying[]; alreadyChecked: string[]; on: TimeBasis } {
  const split = (all: Qualifying[], proved: (name: string) => boolean) => {
    const sorted = [...all].sort((x, y) => x.instance.localeCompare(y.instance));
    return { audit: sorted.filter((q) => !proved(q.instance)), alreadyChecked: sorted.filter((q) => proved(q.instance)).map((q) => q.instance) };
  };
  if (i.duel) {
    const runs = i.duelRuns ?? new Map<string, InstanceResult>();
    return {
      ...split(muchFasterInDuel(i.duel, new Map([...runs].map(([k, r]) => [k, r.answer]))), (name) => runs.get(name)?.check.ok === true),
      on: duelBasis(i.duel),
    };
  }
  const mine = i.challenger.instances;
  const verified = new Set([
    ...mine.filter((r) => r.answer === 'UNSAT' && r.check.ok === true).map((r) => r.instance),
    ...(perfGate(i.challenger)?.audit?.instances ?? []).filter((a) => a.verdict === 'ok').map((a) => a.instance),
  ]);
  const c = i.champion;
  // Separate measurements are comparable only on the same set, under the same timeout, each measured in full.
  const comparable =
    c &&
    c.verdict === 'pass' &&
    measuredInFull(c) &&
    measuredInFull(i.challenger) &&
    c.timeout_s !== null &&
    c.timeout_s === i.challenger.timeout_s &&
    (!c.perf_set || !i.challenger.perf_set || c.perf_set.version === i.challenger.perf_set.version);
  if (!comparable || !mine.length) return { audit: [], alreadyChecked: [], on: i.on };
  const T = c.timeout_s!;
  const on = basisOf(i.on, [...mine, ...c.instances]);
  const theirs = new Map(c.instances.map((r) => [r.instance, r]));
  const common = mine.filter((r) => theirs.has(r.instance));
  const total = common.reduce((s, r) => s + par2Of(theirs.get(r.instance)!, T, on), 0);
  const found = common.flatMap((r): Qualifying[] => {
    const a = theirs.get(r.instance)!;
    const t = { champion_s: par2Of(a, T, on), challenger_s: par2Of(r, T, on), champion_status: a.status };
    return r.status === 'solved' && r.answer === 'UNSAT' && muchFaster(t, total) ? [{ instance: r.instance, from: 'evaluation', ...t }] : [];
  });
  return { ...split(found, (name) => verified.has(name)), on };
}

/** The basis a duel's times are on: its own, but wall where a pair lacks a CPU time (duels kept before every figure said which). */
const duelBasis = (d: DuelDoc): TimeBasis =>
  basisOf(
    d.on,
    d.pairs.flatMap((p) => [p.a, p.b]),
  );

/** The UNSAT answers B gave much faster than A in a duel's pairs (`answers`: B's own, for duels kept before pairs recorded them). */
export function muchFasterInDuel(d: DuelDoc, answers: ReadonlyMap<string, InstanceResult['answer']> = new Map()): Qualifying[] {
  const timed = d.pairs.map((p) => {
    const [a, b] = pairTimes(p, d.timeout_s, duelBasis(d));
    return { p, t: { champion_s: a, challenger_s: b, champion_status: p.a.status } };
  });
  const total = timed.reduce((s, x) => s + x.t.champion_s, 0);
  return timed.flatMap(({ p, t }) => {
    const answer = p.b.answer === undefined ? answers.get(p.instance) : p.b.answer;
    return p.b.status === 'solved' && answer === 'UNSAT' && muchFaster(t, total) ? [{ instance: p.instance, from: 'duel' as const, ...t }] : [];
  });
}

/**
 * The UNSAT answers B gave much faster than A in a duel's second runs (where the margin was in doubt and
 * judged on the mean of two runs, race.ts raceAgain): those runs count too, so their proofs are checked
 * as the first runs' are. "Much faster" against the champion's second run, its saving against the
 * champion's PAR-2 total over the first runs.
 */
export function muchFasterInSecondRuns(d: DuelDoc): Qualifying[] {
  const on = duelBasis(d);
  const total = d.pairs.reduce((s, p) => s + pairTimes(p, d.timeout_s, on)[0], 0);
  return d.pairs.flatMap((p) => {
    if (!p.again) return [];
    const [a, b] = pairTimes({ ...p, ...p.again }, d.timeout_s, on);
    const t = { champion_s: a, challenger_s: b, champion_status: p.again.a.status };
    return p.again.b.status === 'solved' && p.again.b.answer === 'UNSAT' && muchFaster(t, total)
      ? [{ instance: p.instance, from: 'second run' as const, ...t }]
      : [];
  });
}

/** Which promotion to audit. */
export interface PromotionAuditRequest {
  cycle: number;
  champion: number;
  challenger: number;
  /** The decision duel the challenger won. */
  duel: DuelDoc | undefined;
  /** Parallel checks instead of the runner's configured `jobs`. */
  jobs?: number;
}

/** The audit in a line, for the perf gate's detail and the cycle's outcome (`held`: the held-out part's line). */
function summary(doc: PromotionAuditDoc, held = false): string {
  const rows = held ? (doc.held_out?.instances ?? []) : [...doc.instances, ...(doc.held_out?.instances ?? [])];
  const n = rows.length;
  const where = held ? ' on the held-out set' : '';
  if (!n) return `promotion audit: no UNSAT answer much faster than ${doc.champion.solver}'s${where} is left unproved`;
  const head = `promotion audit: the proofs of ${n} UNSAT answer${n === 1 ? '' : 's'} much faster than ${doc.champion.solver}'s${where} checked, as their runs wrote them`;
  const lie = rows.find((x) => x.verdict === 'caught');
  const open = rows.filter((x) => x.verdict === 'not_audited');
  return lie
    ? `${head}; ${rows.filter((x) => x.verdict === 'caught').length} caught: ${lie.detail}`
    : `${head}; ${rows.length - open.length} verified${open.length ? `, ${open.length} unproved: ${open[0]!.detail}` : ''}`;
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

/** Checks the kept proofs of the runs behind `wanted` (by instance) and judges each answer; a run not at hand stands unproved. */
async function checkQualifying(
  setting: PerfSession,
  wanted: readonly Qualifying[],
  runs: ReadonlyMap<string, InstanceResult>,
): Promise<{ rows: PromotionAuditedDoc[]; failures: string[] }> {
  const specs = setting.instances.filter((i) => wanted.some((q) => q.instance === i.name));
  const behind = wanted.map((q) => runs.get(q.instance) ?? unknownRun(q.instance));
  const checked = wanted.length ? await checkKeptProofs(setting.proofs, behind, specs) : new Map<string, InstanceResult>();
  const judged = behind.map((r, k) => ({ ...judgeAudit(checked.get(r.instance) ?? r, 'promotion audit'), q: wanted[k]! }));
  return {
    failures: judged.flatMap((j) => (j.failure ? [j.failure] : [])),
    rows: judged.map(({ failure: _f, q, ...j }) => ({
      ...j,
      from: q.from,
      champion_s: q.champion_s,
      challenger_s: q.challenger_s,
      champion_status: q.champion_status,
    })),
  };
}

/** B's runs in a duel (its second runs with `second`), by instance, as the results store keeps them under the keys its pairs name (pairs without one have none). */
async function runsOf(store: ResultsStore, d: DuelDoc, second = false): Promise<Map<string, InstanceResult>> {
  const stored = await store.load();
  return new Map(
    d.pairs.flatMap((p) => {
      const key = second ? p.again?.b.run : p.b.run;
      return key && stored.get(key) ? [[p.instance, stored.get(key)!.result] as const] : [];
    }),
  );
}

/** A qualifying answer whose run is not at hand (a document of another binary): it has no kept proof, so it stands unproved. */
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

/** Why an audit that caught nothing still holds the promotion back: answers whose proofs could not be checked. */
function unproved(rows: readonly PromotionAuditedDoc[]): string | undefined {
  const open = rows.filter((r) => r.verdict === 'not_audited');
  return open.length
    ? `${open.length} UNSAT answer${open.length === 1 ? '' : 's'} its gain rests on could not be proof-checked (${open[0]!.instance}: ${open[0]!.detail})`
    : undefined;
}

/**
 * Runs the promotion audit of `o.challenger` against `o.champion` (or finds it done) and returns why the
 * promotion must not happen, or undefined when it may. A lie caught has failed the candidate already.
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
  const session = req.duel?.session ?? null;
  const kept = gate.promotion_audit;
  if (
    kept &&
    kept.from === 'kept' &&
    kept.champion.hash === championHash &&
    kept.solver_hash === solverHash &&
    kept.duel === session &&
    kept.instances.every((i) => i.verdict === 'ok')
  ) {
    ctx.log(`${candidateDirName(req.challenger)}: ${summary(kept)} (kept from before)`);
    return undefined;
  }
  // The challenger's runs the decision counted: the duel's, found by the keys its pairs name; without a duel, its document's.
  const duelRuns = req.duel ? await runsOf(setting.proofs.store, req.duel) : undefined;
  const sel = selectForAudit({
    duel: req.duel,
    ...(duelRuns ? { duelRuns } : {}),
    challenger: doc,
    champion: await evals.get(req.champion),
    on: ctx.config.evaluation.decide_on,
  });
  const who = candidateDirName(req.challenger);
  if (sel.audit.length)
    ctx.log(
      `${who}: checking the proofs of the ${sel.audit.length} UNSAT answer${sel.audit.length === 1 ? '' : 's'} it gave much faster than ${candidateDirName(req.champion)}, as their runs wrote them (${sel.audit.map((q) => q.instance).join(', ')})`,
    );
  else if (sel.alreadyChecked.length)
    ctx.log(
      `${who}: the ${sel.alreadyChecked.length} UNSAT answer${sel.alreadyChecked.length === 1 ? '' : 's'} it gave much faster than ${candidateDirName(req.champion)} were checked by the race's perf audit already`,
    );
  const first = await checkQualifying(setting, sel.audit, duelRuns ?? new Map(doc.instances.map((r) => [r.instance, r])));
  // The second runs the margin counted (no random audit sampled them): each checked apart, one instance may qualify in both.
  const seconds = req.duel ? muchFasterInSecondRuns(req.duel) : [];
  if (seconds.length)
    ctx.log(
      `${who}: checking the proofs of the ${seconds.length} UNSAT answer${seconds.length === 1 ? '' : 's'} its second runs gave much faster (${seconds.map((q) => q.instance).join(', ')})`,
    );
  const again = seconds.length ? await checkQualifying(setting, seconds, await runsOf(setting.proofs.store, req.duel!, true)) : { rows: [], failures: [] };
  const [rows, failures] = [
    [...first.rows, ...again.rows],
    [...first.failures, ...again.failures],
  ];
  const record: PromotionAuditDoc = {
    at: new Date().toISOString(),
    champion: { solver: candidateDirName(req.champion), hash: championHash },
    solver_hash: solverHash,
    duel: session,
    on: sel.on,
    rule: MUCH_FASTER_RULE,
    from: 'kept',
    already_checked: sel.alreadyChecked,
    checked: rows.filter((i) => i.verdict !== 'not_audited').length,
    caught: failures.length,
    instances: rows,
  };
  return (await settle(ctx, req, { doc, gate, record, failures, dir: challengerDir }))?.why;
}

/**
 * After the held-out check passed: the UNSAT answers the winner gave much faster than the champion on
 * the held-out set, each checked from the proof its held-out run kept. Returns why the promotion must not
 * happen (`failed`: a lie caught has failed the candidate), or undefined.
 */
export async function auditHeldOut(ctx: VerdictContext, req: PromotionAuditRequest & { heldOut: DuelDoc; bench: string }): Promise<Objection | undefined> {
  const setting = await auditSetting(ctx, req);
  if (!setting) return undefined;
  const evals = new EvalStore(ctx.ws);
  const doc = await evals.get(req.challenger);
  const gate = doc && perfGate(doc);
  const record = gate?.promotion_audit;
  if (!doc || !gate || !record) return undefined;
  if (record.held_out?.duel === req.heldOut.session && record.held_out.instances.every((i) => i.verdict === 'ok')) return undefined;
  const wanted = muchFasterInDuel(req.heldOut).map((q) => ({ ...q, from: 'held-out' as const }));
  const runs = await runsOf(setting.proofs.store, req.heldOut);
  if (wanted.length)
    ctx.log(
      `${candidateDirName(req.challenger)}: checking the proofs of the ${wanted.length} UNSAT answer${wanted.length === 1 ? '' : 's'} it gave much faster on the held-out set, as their runs wrote them`,
    );
  const { rows, failures } = await checkQualifying(setting, wanted, runs);
  const next: PromotionAuditDoc = {
    ...record,
    held_out: { duel: req.heldOut.session, checked: rows.filter((i) => i.verdict !== 'not_audited').length, caught: failures.length, instances: rows },
    caught: record.caught + failures.length,
  };
  return settle(ctx, req, { doc, gate, record: next, failures, dir: path.join(ctx.ws, candidateDirName(req.challenger)), held: true });
}

/** Why an audit holds a promotion back; `failed`: it caught a lie, which has failed the candidate. */
export interface Objection {
  why: string;
  failed: boolean;
}

/** Keeps the record; a lie fails the candidate (document, status, RESULTS.md, post-mortem), an unproved answer only holds the promotion back. */
async function settle(
  ctx: VerdictContext,
  req: PromotionAuditRequest,
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
    const why = unproved([...record.instances, ...(record.held_out?.instances ?? [])]);
    return why ? { why, failed: false } : undefined;
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
