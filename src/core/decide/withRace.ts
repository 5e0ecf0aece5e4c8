// A cycle's race measured a challenger's full perf set (measureTogether.ts); this puts that
// measurement into its evaluation document, as the perf gate would have: the runs, their metrics, the
// race, and for a survivor the perf audit. The evaluation service records it (record.ts).
import { FATAL } from '../run/result';
import type { AuditOutcome } from '../eval/audit';
import { auditSummary } from '../eval/audit';
import type { EvalDoc, GateDoc } from '../eval/evalDoc';
import type { StagePlan } from '../eval/gates';
import { computeMetrics } from '../eval/metrics';
import type { RaceDoc } from '../eval/evalDoc';
import type { InstanceResult } from '../run/result';

/**
 * The document with the race's perf gate: verdict, instances, metrics, race; no longer pending. A
 * document that was already measured in full (`satlution eval` before the cycle) keeps its measurement
 * and takes the race; a lie the race's perf audit caught fails its perf gate all the same.
 */
export function withRace(doc: EvalDoc, raced: { results: InstanceResult[]; race: RaceDoc; plan: StagePlan; audit?: AuditOutcome }): EvalDoc {
  const { results, race, plan, audit } = raced;
  if (!doc.race_pending) {
    if (!audit?.failures.length) return { ...doc, race };
    const last = doc.gates.map((g) => g.gate).lastIndexOf('perf');
    const why = `side by side with the champion, ${auditSummary(audit.doc)}`;
    return {
      ...doc,
      race,
      verdict: 'fail',
      gates: doc.gates.map((g, k) => (k === last ? { ...g, ok: false, detail: why, failures: [...audit.failures, ...g.failures].slice(0, 20) } : g)),
    };
  }
  const failing = results.filter((r) => FATAL.has(r.status));
  const metrics = computeMetrics(results, plan.timeoutS);
  const ok = failing.length === 0 && !audit?.failures.length;
  // A challenger dropped early ran part of the set: its PAR-2 there is not a measurement of the set.
  const measured =
    race.outcome === 'rejected early'
      ? `rejected early after ${race.ran} of ${race.of} instances (${race.capped} capped): ${race.reason}`
      : `${metrics.solved}/${metrics.n} solved, PAR-2 ${metrics.par2.toFixed(2)} s, side by side with the champion`;
  const gate: GateDoc = {
    gate: 'perf',
    ok,
    detail: failing.length
      ? `${failing.length} of ${results.length} instances failed: ${failing[0]!.detail}`
      : audit
        ? `${measured}; ${auditSummary(audit.doc)}`
        : measured,
    failures: [...failing.map((r) => `${r.status}: ${r.detail}`), ...(audit?.failures ?? [])].slice(0, 20),
    metrics,
    ...(audit ? { audit: audit.doc } : {}),
  };
  const { race_pending: _pending, ...rest } = doc;
  return {
    ...rest,
    verdict: ok && doc.verdict === 'pass' ? 'pass' : 'fail',
    evaluated_at: new Date().toISOString(),
    timeout_s: plan.timeoutS,
    mem_limit_mb: plan.memMb,
    instances: results,
    metrics,
    race,
    ...(doc.tier ? { tier: { reached: doc.tier.of, of: doc.tier.of } } : {}),
    gates: [...doc.gates, gate],
  };
}
