// The perf audit (stages.perf.audit; ARCHITECTURE.md, "The path of an evaluation"). Perf checks no
// proofs (that would double its cost), so its UNSAT answers are taken on trust, and a solver that
// guesses UNSAT would halve its PAR-2. After the perf runs, a sample of those answers, drawn with
// crypto randomness once the answers are in (a candidate cannot tell which runs will be checked), is
// run again with a proof directory through the same runner machinery verify uses, and each proof is
// checked by drat-trim. A lie caught fails perf as a failure in verify would; a re-run that runs out
// of time or memory proves nothing either way and is recorded as not audited.
import { randomInt } from 'node:crypto';
import type { InstanceSpec } from '../instances/instances';
import { FATAL, type InstanceResult } from '../run/result';
import type { AuditDoc, AuditedDoc } from './evalDoc';

/** How many UNSAT answers to audit: at least `min`, or `share` of them when that is more. */
export interface AuditPolicy {
  min: number;
  share: number;
}

/** Writing a proof slows a solver: a re-run gets this many times perf's time limit. */
export const AUDIT_TIMEOUT_FACTOR = 1.5;

/** An integer in [0, n): the draw's source, crypto by default so the sample cannot be predicted; tests inject a seeded one. */
export type AuditRandom = (n: number) => number;

/** The default draw: unpredictable, from the operating system's generator. */
export const cryptoRandom: AuditRandom = (n) => randomInt(n);

/** `min: 0, share: 0` (or no policy) turns the audit off. */
export const auditOn = (p: AuditPolicy | undefined): p is AuditPolicy => p !== undefined && (p.min > 0 || p.share > 0);

/** The sample size for `available` answers: the larger of `min` and the share (rounded up), capped at what there is. */
export function auditSize(policy: AuditPolicy, available: number): number {
  return Math.min(available, Math.max(policy.min, Math.ceil(policy.share * available)));
}

/** The answers worth auditing: UNSAT taken on trust (one already verified, e.g. an empty clause, needs no re-run). */
export function auditable(results: readonly InstanceResult[]): InstanceResult[] {
  return results.filter((r) => r.status === 'solved' && r.answer === 'UNSAT' && r.check.ok !== true);
}

/** A uniform sample of k names (partial Fisher-Yates over the sorted names, so only the draw decides). */
export function chooseAudited(names: readonly string[], k: number, random: AuditRandom = cryptoRandom): string[] {
  const pool = [...names].sort();
  const n = Math.min(k, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + random(pool.length - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  return pool.slice(0, n).sort();
}

/** What a re-run with a proof says about perf's UNSAT answer, with the failure line for a lie (`by`: which audit, for that line). */
export function judgeAudit(audit: InstanceResult, by = 'perf audit'): AuditedDoc & { failure?: string } {
  const base = { instance: audit.instance, status: audit.status, answer: audit.answer, time_s: audit.time_s, check: audit.check };
  const caught = (status: string, detail: string) => ({ ...base, verdict: 'caught' as const, detail, failure: `${status}: ${detail} (${by})` });
  if (FATAL.has(audit.status)) return caught(audit.status, audit.detail);
  if (audit.status === 'solved' && audit.answer === 'UNSAT') return { ...base, verdict: 'ok', detail: audit.check.detail || 'proof verified' };
  if (audit.status === 'solved') return caught('wrong', `UNSAT claimed on ${audit.instance} in perf, but the audit run answered ${audit.answer} with a checked model`);
  // Out of time or memory, or a proof drat-trim could not finish in time: nothing proved either way.
  if (audit.status === 'timeout' || audit.status === 'memout' || (audit.answer === 'UNSAT' && audit.check.ok === null))
    return { ...base, verdict: 'not_audited', detail: `not audited: ${audit.detail}` };
  // No answer in more time than perf had, once a proof is asked for: the UNSAT answer is not stood by.
  return caught('wrong', `UNSAT claimed on ${audit.instance} in perf, but the audit run (with a proof directory) gave no answer: ${audit.detail}`);
}

export interface AuditRequest {
  policy: AuditPolicy;
  /** The perf stage's results, and the instances they are of. */
  results: readonly InstanceResult[];
  instances: readonly InstanceSpec[];
  /** The re-runs' time limit (perf's times AUDIT_TIMEOUT_FACTOR), for the record. */
  timeoutS: number;
  random?: AuditRandom;
  /** Runs the chosen instances with proofs checked, on the stage's runner (gates.ts passes runSet). */
  rerun: (instances: InstanceSpec[]) => Promise<{ results: InstanceResult[]; reused: number }>;
}

/** The audit's record, and one failure line per lie caught (empty: the gate stands). */
export interface AuditOutcome {
  doc: AuditDoc;
  failures: string[];
}

/** Draws the sample from perf's UNSAT answers, re-runs it with proofs and judges each answer. */
export async function auditPerf(req: AuditRequest): Promise<AuditOutcome> {
  const pool = auditable(req.results).map((r) => r.instance);
  const chosen = new Set(chooseAudited(pool, auditSize(req.policy, pool.length), req.random));
  const specs = req.instances.filter((i) => chosen.has(i.name));
  const out = specs.length ? await req.rerun(specs) : { results: [], reused: 0 };
  const judged = out.results.map((r) => judgeAudit(r));
  const failures = judged.flatMap((j) => (j.failure ? [j.failure] : []));
  const instances = judged.map(({ failure: _f, ...j }) => j);
  return {
    doc: { candidates: pool.length, timeout_s: req.timeoutS, checked: instances.filter((i) => i.verdict !== 'not_audited').length, caught: failures.length, reused: out.reused, instances },
    failures,
  };
}

/** The audit in a line, for the gate's detail. */
export function auditSummary(doc: AuditDoc): string {
  if (doc.instances.length === 0) return 'audit: no UNSAT answers to check';
  const skipped = doc.instances.filter((i) => i.verdict === 'not_audited');
  const head = `audit: ${doc.instances.length} of ${doc.candidates} UNSAT answers re-run with proofs`;
  if (doc.caught) return `${head}, ${doc.caught} caught: ${doc.instances.find((i) => i.verdict === 'caught')!.detail}`;
  return `${head}, ${doc.checked} verified${skipped.length ? `, ${skipped.length} ${skipped[0]!.detail}` : ''}`;
}
