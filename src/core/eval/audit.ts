// The perf audit (stages.perf.audit; ARCHITECTURE.md, "The path of an evaluation"). perf checks no
// proofs while it runs (checking costs about as much as solving), but every UNSAT answer must come
// with the proof its own run wrote, kept for the audits (run/keptProof.ts). After the perf runs, a
// sample of those answers, drawn with crypto randomness once the answers are in (a candidate cannot
// tell which runs will be checked, and every run is one that may be), has the proofs of those very
// runs checked by drat-trim. A lie caught fails perf as a failure in verify would; a proof drat-trim
// cannot finish in time is recorded as not audited. Nothing is run again: a solver that behaves one
// way when measured and another when checked has no second run to behave well in.
import { randomInt } from 'node:crypto';
import type { InstanceSpec } from '../instances/instances';
import { FATAL, type InstanceResult } from '../run/result';
import type { AuditDoc, AuditedDoc } from './evalDoc';

/** How many UNSAT answers to audit: at least `min`, or `share` of them when that is more. */
export interface AuditPolicy {
  min: number;
  share: number;
}

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

/** The answers worth auditing: UNSAT taken on trust (one already verified, e.g. an empty clause, needs no check). */
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

/**
 * What the check of a run's kept proof says about its UNSAT answer (`checked`: the result as the proof
 * judges it, eval/proofChecks.ts), with the failure line for a lie (`by`: which audit, for that line).
 */
export function judgeAudit(checked: InstanceResult, by = 'perf audit'): AuditedDoc & { failure?: string } {
  const base = {
    instance: checked.instance,
    status: checked.status,
    answer: checked.answer,
    time_s: checked.time_s,
    check: checked.check,
    ...(checked.proof?.kept ? { run: checked.proof.kept.run } : {}),
    ...(checked.proof ? { proof_bytes: checked.proof.bytes } : {}),
  };
  if (FATAL.has(checked.status)) return { ...base, verdict: 'caught', detail: checked.detail, failure: `${checked.status}: ${checked.detail} (${by})` };
  if (checked.status === 'solved' && checked.answer === 'UNSAT' && checked.check.ok === true)
    return { ...base, verdict: 'ok', detail: checked.check.detail || 'proof verified' };
  // Not checked in time, or no proof kept: nothing proved either way.
  return { ...base, verdict: 'not_audited', detail: `not audited: ${checked.check.detail || checked.detail}` };
}

export interface AuditRequest {
  policy: AuditPolicy;
  /** The perf stage's results, and the instances they are of. */
  results: readonly InstanceResult[];
  instances: readonly InstanceSpec[];
  random?: AuditRandom;
  /** Checks the kept proofs of the chosen runs (gates.ts passes checkKeptProofs). */
  check: (results: InstanceResult[], instances: InstanceSpec[]) => Promise<Map<string, InstanceResult>>;
}

/** The audit's record, one failure line per lie caught (empty: the gate stands), and the results as their proofs judged them. */
export interface AuditOutcome {
  doc: AuditDoc;
  failures: string[];
  checked: Map<string, InstanceResult>;
}

/** Draws the sample from perf's UNSAT answers, checks the proofs their runs kept, and judges each answer. */
export async function auditPerf(req: AuditRequest): Promise<AuditOutcome> {
  const pool = auditable(req.results);
  const chosen = new Set(
    chooseAudited(
      pool.map((r) => r.instance),
      auditSize(req.policy, pool.length),
      req.random,
    ),
  );
  const sample = pool.filter((r) => chosen.has(r.instance));
  const checked = sample.length
    ? await req.check(
        sample,
        req.instances.filter((i) => chosen.has(i.name)),
      )
    : new Map<string, InstanceResult>();
  const judged = sample.map((r) => judgeAudit(checked.get(r.instance) ?? r));
  const failures = judged.flatMap((j) => (j.failure ? [j.failure] : []));
  const instances = judged.map(({ failure: _f, ...j }) => j);
  return {
    doc: { candidates: pool.length, from: 'kept', checked: instances.filter((i) => i.verdict !== 'not_audited').length, caught: failures.length, instances },
    failures,
    checked,
  };
}

/** The audit in a line, for the gate's detail. */
export function auditSummary(doc: AuditDoc): string {
  if (doc.instances.length === 0) return 'audit: no UNSAT answers to check';
  const skipped = doc.instances.filter((i) => i.verdict === 'not_audited');
  const head = `audit: the proofs of ${doc.instances.length} of ${doc.candidates} UNSAT answers checked, as their runs wrote them`;
  if (doc.caught) return `${head}; ${doc.caught} caught: ${doc.instances.find((i) => i.verdict === 'caught')!.detail}`;
  return `${head}; ${doc.checked} verified${skipped.length ? `, ${skipped.length} ${skipped[0]!.detail}` : ''}`;
}
