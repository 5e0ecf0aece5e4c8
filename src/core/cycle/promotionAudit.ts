// The promotion audit (ARCHITECTURE.md, "The path of a cycle", decide). Perf checks no proofs and its
// random audit samples a tenth of the UNSAT answers, so a challenger whose whole gain is one UNSAT
// answer it never proved (a guess, or an answer it was given) slips through most evaluations. Before a
// promotion, every UNSAT answer the challenger gave much faster than the champion — those its gain
// rests on — is run again with a proof through the perf audit's machinery (same runner, memory,
// drat-trim, key and time limit, so what the random sample already ran is reused) and judged the same
// way. A lie caught fails the candidate (its document, status, RESULTS.md and the post-mortem say
// why) and the champion stays. The record is kept on the perf gate of the challenger's document, so a
// resumed cycle finds it instead of running it again.
import * as path from 'node:path';
import { AUDIT_TIMEOUT_FACTOR, judgeAudit } from '../eval/audit';
import { pairTimes, type DuelDoc } from '../eval/duel';
import { measuredInFull, type EvalDoc, type GateDoc, type PromotionAuditDoc, type PromotionAuditedDoc } from '../eval/evalDoc';
import { EvalStore } from '../eval/evalStore';
import { runStage } from '../eval/gates';
import { par2Of, type TimeBasis } from '../eval/metrics';
import { gateContext } from '../eval/plan';
import { solverIdentity } from '../eval/resultsStore';
import { plannedStages } from '../eval/service';
import { listSet } from '../instances/instances';
import { candidateDirName } from '../layout';
import { postmortem } from '../rules/evolution';
import { stageRunners } from '../runners/select';
import { CandidateStore } from '../store/candidates';
import { writePromotionAudit, writeResults } from '../workspace/resultsFile';
import type { VerdictContext } from './verdicts';

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
 * with the set and its timeout, and bounds the re-runs: their cost is at most half the champion's
 * time on them, plus drat-trim.
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

/** An answer to re-run with a proof, with where the gain showed. */
export type Qualifying = Timed & { instance: string; from: 'duel' | 'evaluation' };

/** What the selection reads: the decision duel, and both sides' perf evaluation documents. */
export interface SelectionInput {
  duel: DuelDoc | undefined;
  challenger: EvalDoc;
  champion: EvalDoc | undefined;
  /** The time basis of decisions (evaluation.decide_on), for the documents; the duel has its own. */
  on: TimeBasis;
}

/** The last perf gate of a document (a tiered one has several). */
const perfGate = (doc: EvalDoc): GateDoc | undefined => doc.gates.filter((g) => g.gate === 'perf').pop();

/**
 * The UNSAT answers to proof-check before a promotion: the challenger answered UNSAT, much faster than
 * the champion (muchFaster), in the duel's pairs or in the two perf evaluation documents, and no proof
 * of it was checked yet (`alreadyChecked`: the perf audit's random sample verified it).
 */
export function selectForAudit(i: SelectionInput): { audit: Qualifying[]; alreadyChecked: string[] } {
  // The document speaks for the binary that met the champion only if it is the same binary.
  const same = !i.duel || i.challenger.solver_hash === i.duel.b.hash;
  const mine = same ? i.challenger.instances : [];
  const verified = new Set([...mine.filter((r) => r.answer === 'UNSAT' && r.check.ok === true).map((r) => r.instance), ...(same ? (perfGate(i.challenger)?.audit?.instances ?? []).filter((a) => a.verdict === 'ok').map((a) => a.instance) : [])]);
  const answers = new Map(mine.map((r) => [r.instance, r.answer]));
  const found = new Map<string, Qualifying>();
  if (i.duel) {
    const d = i.duel;
    const timed = d.pairs.map((p) => {
      const [a, b] = pairTimes(p, d.timeout_s, d.on);
      return { p, t: { champion_s: a, challenger_s: b, champion_status: p.a.status } };
    });
    const total = timed.reduce((s, x) => s + x.t.champion_s, 0);
    for (const { p, t } of timed) {
      // A duel kept before answers were recorded: the challenger's answer in its own perf runs.
      const answer = p.b.answer === undefined ? answers.get(p.instance) : p.b.answer;
      if (p.b.status === 'solved' && answer === 'UNSAT' && muchFaster(t, total)) found.set(p.instance, { instance: p.instance, from: 'duel', ...t });
    }
  }
  const c = i.champion;
  // Separate measurements are comparable only on the same set, under the same timeout, each measured in full.
  const comparable = c && c.verdict === 'pass' && measuredInFull(c) && measuredInFull(i.challenger) && c.timeout_s !== null && c.timeout_s === i.challenger.timeout_s && (!c.perf_set || !i.challenger.perf_set || c.perf_set.version === i.challenger.perf_set.version);
  if (comparable && mine.length) {
    const T = c.timeout_s!;
    const theirs = new Map(c.instances.map((r) => [r.instance, r]));
    const common = mine.filter((r) => theirs.has(r.instance));
    const total = common.reduce((s, r) => s + par2Of(theirs.get(r.instance)!, T, i.on), 0);
    for (const r of common) {
      const a = theirs.get(r.instance)!;
      const t = { champion_s: par2Of(a, T, i.on), challenger_s: par2Of(r, T, i.on), champion_status: a.status };
      if (r.status === 'solved' && r.answer === 'UNSAT' && !found.has(r.instance) && muchFaster(t, total)) found.set(r.instance, { instance: r.instance, from: 'evaluation', ...t });
    }
  }
  const all = [...found.values()].sort((x, y) => x.instance.localeCompare(y.instance));
  return { audit: all.filter((q) => !verified.has(q.instance)), alreadyChecked: all.filter((q) => verified.has(q.instance)).map((q) => q.instance) };
}

/** Which promotion to audit. */
export interface PromotionAuditRequest {
  cycle: number;
  champion: number;
  challenger: number;
  /** The decision duel the challenger won. */
  duel: DuelDoc | undefined;
  /** Parallel runs instead of the runner's configured `jobs`. */
  jobs?: number;
}

/** The audit in a line, for the perf gate's detail and the cycle's outcome. */
function summary(doc: PromotionAuditDoc): string {
  const n = doc.instances.length;
  const head = `promotion audit: ${n} UNSAT answer${n === 1 ? '' : 's'} much faster than ${doc.champion.solver} re-run with proofs`;
  const lie = doc.instances.find((x) => x.verdict === 'caught');
  return lie ? `${head}, ${doc.caught} caught: ${lie.detail}` : `${head}, ${doc.checked} verified`;
}

/**
 * Runs the promotion audit of `o.challenger` against `o.champion` (or finds it done) and returns why the
 * promotion must not happen, or undefined when it may. A lie caught has failed the candidate already.
 * Nothing to do when perf checks its proofs (the duel, run as perf is, then checked them too) or its
 * audit is turned off (stages.perf.audit min 0, share 0; or no proofs at all).
 */
export async function auditBeforePromotion(ctx: VerdictContext, o: PromotionAuditRequest): Promise<string | undefined> {
  const stages = await plannedStages({ ws: ctx.ws, config: ctx.config, overrides: { stage: 'perf', ...(o.jobs !== undefined ? { jobs: o.jobs } : {}) } });
  const perf = stages[stages.length - 1];
  if (!perf?.audit) return undefined;
  const evals = new EvalStore(ctx.ws);
  const doc = await evals.get(o.challenger);
  const gate = doc && perfGate(doc);
  if (!doc || !gate) return undefined; // not measured on perf: accept never picks such a candidate
  const [championDir, challengerDir] = [path.join(ctx.ws, candidateDirName(o.champion)), path.join(ctx.ws, candidateDirName(o.challenger))];
  const [championHash, solverHash] = [await solverIdentity(championDir), await solverIdentity(challengerDir)];
  const session = o.duel?.session ?? null;
  const kept = gate.promotion_audit;
  if (kept && kept.champion.hash === championHash && kept.solver_hash === solverHash && kept.duel === session && kept.caught === 0) {
    ctx.log(`${candidateDirName(o.challenger)}: ${summary(kept)} (kept from before)`);
    return undefined;
  }
  const sel = selectForAudit({ duel: o.duel, challenger: doc, champion: await evals.get(o.champion), on: ctx.config.evaluation.decide_on });
  // The perf audit's re-run exactly (auditStage in gates.ts): the same key, so its runs are reused.
  const audited = { ...perf, timeoutS: perf.timeoutS * AUDIT_TIMEOUT_FACTOR, checkProofs: true };
  const wanted = new Map(sel.audit.map((q) => [q.instance, q]));
  const specs = (await listSet(perf.dir)).filter((i) => wanted.has(i.name));
  const who = candidateDirName(o.challenger);
  if (specs.length) ctx.log(`${who}: re-running with proofs the ${specs.length} UNSAT answer${specs.length === 1 ? '' : 's'} it gave much faster than ${candidateDirName(o.champion)} (${specs.map((i) => i.name).join(', ')})`);
  else ctx.log(`${who}: no UNSAT answer much faster than ${candidateDirName(o.champion)}'s is left unproved${sel.alreadyChecked.length ? ` (${sel.alreadyChecked.length} checked by the perf audit)` : ''}`);
  const out = specs.length
    ? await runStage({ ...gateContext(ctx.config, ctx.ws), solverDir: challengerDir, runners: stageRunners(ctx.config, [perf.runner ?? 'local'], ctx.runnerEnv), jobs: perf.jobs ?? 1, build: false, stages: [audited], ...(ctx.signal ? { signal: ctx.signal } : {}) }, audited, specs, {})
    : { results: [], reused: 0 };
  const judged = out.results.map((r) => ({ ...judgeAudit(r, 'promotion audit'), q: wanted.get(r.instance)! }));
  const failures = judged.flatMap((j) => (j.failure ? [j.failure] : []));
  const instances: PromotionAuditedDoc[] = judged.map(({ failure: _f, q, ...j }) => ({ ...j, from: q.from, champion_s: q.champion_s, challenger_s: q.challenger_s, champion_status: q.champion_status }));
  const record: PromotionAuditDoc = {
    at: new Date().toISOString(),
    champion: { solver: candidateDirName(o.champion), hash: championHash },
    solver_hash: solverHash,
    duel: session,
    on: o.duel?.on ?? ctx.config.evaluation.decide_on,
    rule: MUCH_FASTER_RULE,
    timeout_s: audited.timeoutS,
    already_checked: sel.alreadyChecked,
    checked: instances.filter((i) => i.verdict !== 'not_audited').length,
    caught: failures.length,
    reused: out.reused,
    instances,
  };
  const line = summary(record);
  if (!failures.length) {
    await evals.write(o.challenger, { ...doc, gates: doc.gates.map((g) => (g === gate ? { ...g, promotion_audit: record } : g)) });
    await writePromotionAudit(challengerDir, record);
    ctx.log(`${who}: ${line}`);
    return undefined;
  }
  // Failed as a lie caught in perf fails it: the document, the status, RESULTS.md, the post-mortem.
  const failed: EvalDoc = { ...doc, verdict: 'fail', gates: doc.gates.map((g) => (g === gate ? { ...g, ok: false, detail: line, failures: [...failures, ...g.failures].slice(0, 20), promotion_audit: record } : g)) };
  await evals.write(o.challenger, failed);
  await new CandidateStore(ctx.ws).setStatus(o.challenger, 'failed', `failed the perf gate: ${line}`);
  await writeResults(challengerDir, o.cycle, failed);
  await postmortem(ctx.ws, candidateDirName(o.challenger), failed);
  return `the promotion audit caught ${failures.length === 1 ? 'a lie' : `${failures.length} lies`}: ${record.instances.find((i) => i.verdict === 'caught')!.detail}`;
}
