// The perf audit (stages.perf.audit; ARCHITECTURE.md, "The path of an evaluation"). perf checks no
// proofs while it runs (checking costs about as much as solving), but every UNSAT answer must come
// with the proof its own run wrote, kept for the audits (run/keptProof.ts). As each run ends, its UNSAT
// answer joins the sample by a draw of its own (crypto randomness, after the run: a candidate cannot
// tell which runs will be checked, and what it sees of earlier checks tells nothing of later ones), and
// its proof is checked in the next free slot, beside the remaining runs. Once all are in, the sample is
// topped up to the policy's size from the answers not drawn. A lie caught fails perf as a failure in
// verify would; an answer whose proof is not verified within the checker's bounds counts as unsolved
// (PAR-2 2T), never as neutral. Nothing is run again: a solver that behaves one way when measured and
// another when checked has no second run to behave well in.
import { randomInt } from 'node:crypto';
import type { InstanceSpec } from '../instances/instances';
import { FATAL, type InstanceResult } from '../run/result';
import type { AuditDoc, AuditedDoc } from './evalDoc';

/** How many UNSAT answers to audit: at least `min`, or `share` of them when that is more. */
export interface AuditPolicy {
  min: number;
  share: number;
}

/** The audit's randomness, crypto by default so the sample cannot be predicted; tests inject a seeded one. */
export interface AuditRandom {
  /** Whether an answer whose run just ended joins the sample: true with probability `p`. */
  admit(p: number): boolean;
  /** An integer in [0, n), for the top-up's uniform choice. */
  index(n: number): number;
}

/** The resolution of the crypto draw's probabilities. */
const SCALE = 2 ** 40;

/** The default draw: unpredictable, from the operating system's generator. */
export const cryptoRandom: AuditRandom = { admit: (p) => randomInt(SCALE) < p * SCALE, index: (n) => randomInt(n) };

/** A draw from uniform numbers in [0, 1): a seeded generator, for tests. */
export const drawFrom = (u: () => number): AuditRandom => ({ admit: (p) => u() < p, index: (n) => Math.floor(u() * n) });

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

/**
 * The chance that an answer joins the sample as its run ends: the policy's share, or enough to reach
 * its minimum if every instance of the stage gave an UNSAT answer. The top-up covers the rest.
 */
export function admitRate(policy: AuditPolicy, instances: number): number {
  return instances > 0 ? Math.min(1, Math.max(policy.share, policy.min / instances)) : 0;
}

/** A uniform sample of k names (partial Fisher-Yates over the sorted names, so only the draw decides). */
export function chooseAudited(names: readonly string[], k: number, random: AuditRandom = cryptoRandom): string[] {
  const pool = [...names].sort();
  const n = Math.min(k, pool.length);
  for (let i = 0; i < n; i++) {
    const j = i + random.index(pool.length - i);
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
  // Not verified within its bounds, or no proof kept: not proved, so unsolved (judgeKeptProof made it `unknown`).
  return { ...base, verdict: 'unsolved', detail: `counted as unsolved: ${checked.check.detail || checked.detail}` };
}

export interface AuditRequest {
  policy: AuditPolicy;
  /** The stage's instances (the answers' specs, and how many answers there can be). */
  instances: readonly InstanceSpec[];
  random?: AuditRandom;
  /** Checks the kept proofs of these runs (gates.ts passes checkKeptProofs). */
  check: (results: InstanceResult[], instances: InstanceSpec[]) => Promise<Map<string, InstanceResult>>;
}

/** The audit's record, one failure line per lie caught (empty: the gate stands), and the results as their proofs judged them. */
export interface AuditOutcome {
  doc: AuditDoc;
  failures: string[];
  checked: Map<string, InstanceResult>;
}

/** An audit that draws as the runs end (offer), checks in free slots between them (next), and is settled once all are in (finish). */
export interface AuditStream {
  /** A result as its run ends: an UNSAT answer to audit joins the sample by its own draw, and its check is queued. */
  offer(r: InstanceResult): void;
  /** The next queued check, for a slot between runs (RunBatch.between); undefined when none waits. */
  next(): (() => Promise<void>) | undefined;
  /** With every run in: tops the sample up to the policy's size, checks what is left, and judges each answer. */
  finish(results: readonly InstanceResult[]): Promise<AuditOutcome>;
}

/** Opens an audit of one stage's runs (see the head of this file). */
export function auditStream(req: AuditRequest): AuditStream {
  const random = req.random ?? cryptoRandom;
  const rate = admitRate(req.policy, req.instances.length);
  const specs = new Map(req.instances.map((i) => [i.name, i]));
  const drawn = new Set<string>();
  const queued: InstanceResult[] = [];
  const checked = new Map<string, InstanceResult>();
  let failure: { error: unknown } | undefined;
  const check = async (rs: InstanceResult[]) => {
    if (!rs.length) return;
    const got = await req.check(
      rs,
      rs.flatMap((r) => specs.get(r.instance) ?? []),
    );
    for (const [name, r] of got) checked.set(name, r);
  };
  return {
    offer(r) {
      if (drawn.has(r.instance) || !auditable([r]).length || !random.admit(rate)) return;
      drawn.add(r.instance);
      queued.push(r);
    },
    next() {
      const r = queued.shift();
      // A failed check is reported by finish: the runs go on.
      return r && (() => check([r]).catch((error: unknown) => void (failure ??= { error })));
    },
    async finish(results) {
      const pool = auditable(results);
      const target = auditSize(req.policy, pool.length);
      const have = pool.filter((r) => drawn.has(r.instance)).length;
      const more = new Set(
        chooseAudited(
          pool.filter((r) => !drawn.has(r.instance)).map((r) => r.instance),
          Math.max(0, target - have),
          random,
        ),
      );
      more.forEach((n) => drawn.add(n));
      const left = new Set(queued.splice(0).map((r) => r.instance));
      await check(pool.filter((r) => more.has(r.instance) || left.has(r.instance)));
      if (failure) throw failure.error;
      const sample = pool.filter((r) => drawn.has(r.instance));
      const judged = sample.map((r) => judgeAudit(checked.get(r.instance) ?? r));
      const failures = judged.flatMap((j) => (j.failure ? [j.failure] : []));
      const instances = judged.map(({ failure: _f, ...j }) => j);
      return {
        doc: { candidates: pool.length, from: 'kept', checked: instances.length, caught: failures.length, instances },
        failures,
        checked,
      };
    },
  };
}

/** The audit in a line, for the gate's detail. */
export function auditSummary(doc: AuditDoc): string {
  if (doc.instances.length === 0) return 'audit: no UNSAT answers to check';
  const skipped = doc.instances.filter((i) => i.verdict === 'unsolved' || i.verdict === 'not_audited');
  const head = `audit: the proofs of ${doc.instances.length} of ${doc.candidates} UNSAT answers checked, as their runs wrote them`;
  if (doc.caught) return `${head}; ${doc.caught} caught: ${doc.instances.find((i) => i.verdict === 'caught')!.detail}`;
  const verified = doc.instances.filter((i) => i.verdict === 'ok').length;
  return `${head}; ${verified} verified${skipped.length ? `, ${skipped.length} ${skipped[0]!.detail}` : ''}`;
}
