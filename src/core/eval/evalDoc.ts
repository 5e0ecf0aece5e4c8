// The evaluation document: what `satlution eval --json` writes and what is kept per candidate in
// `.satlution/evals/<candidate>.json` (ARCHITECTURE.md, "Files on disk"). One versioned schema, so every
// reader validates the same thing; files written before the version field existed read as version 1.
import { z } from 'zod';
import { CheckResult, InstanceResult, RunStatus } from '../run/result';

/** A challenger's race, kept in its evaluation document and its duel. Fields marked "older" are read from documents of before the one-session race. */
export const RaceDoc = z.object({
  /** rejected early: dropped before the set's end; survived: every instance ran (capped ones again in full). */
  outcome: z.enum(['rejected early', 'survived']),
  on: z.enum(['wall', 'cpu']),
  /** Instances it ran, of the perf set's. */
  ran: z.number().int().nonnegative(),
  of: z.number().int().nonnegative(),
  /** Runs stopped at their cap (a multiple of the champion's time). */
  capped: z.number().int().nonnegative(),
  /** The race's session (its duel is `.satlution/duels/<session>.json`); absent in older documents. */
  session: z.string().optional(),
  /** Challengers in the race (the champion not counted); absent in older documents. */
  entrants: z.number().int().positive().optional(),
  /** The challenger's geometric-mean speed-up over the champion on the pairs it has, percent (positive: faster). */
  speedup_pct: z.number().optional(),
  /** Its chance, at its last look, to pass the promotion test at the set's end (decide/passChance.ts); null before the first look; absent in older documents. */
  pass_chance: z.number().nullable().optional(),
  /** The chance under which the race drops at its last look (race.ts dropBelow; older documents: DROP_BELOW when they ran). */
  drop_below: z.number().optional(),
  /** Older documents: how many times likelier its pairs were under "no faster" than under "detect_gain_pct faster" (the old rule's likelihood ratio). */
  odds: z.number().nullable().optional(),
  /** Older documents: the likelihood ratio at which the old rule dropped. */
  drop_odds: z.number().optional(),
  /** Older documents: the most it could be faster at the futility rule's confidence when it was dropped, percent. */
  upper_pct: z.number().nullable().optional(),
  /** Older documents: the gain the old rule raced for (racing.detect_gain_pct). */
  detect_gain_pct: z.number().optional(),
  /** Instances the champion and it both ran again in full (where its run was capped or the champion's went past its cap). */
  champion_reruns: z.number().int().nonnegative().default(0),
  /** Sums over the instances both ran, seconds (the challenger's capped runs count their cap). */
  challenger_s: z.number().nonnegative(),
  champion_s: z.number().nonnegative(),
  /** Older documents: the champion's whole-set total, the threshold, margin and band of the old rule. */
  champion_total_s: z.number().nonnegative().optional(),
  threshold_s: z.number().nonnegative().optional(),
  margin_pct: z.number().nonnegative().optional(),
  band_pct: z.number().nonnegative().optional(),
  /** A rejected challenger's PAR-2 extrapolated from its pairs (its time ratio to the champion there, times the champion's stored PAR-2). */
  estimated_par2: z.number().nonnegative().nullable(),
  /** CPU seconds (else wall) the challenger's runs took. */
  spent_s: z.number().nonnegative(),
  reason: z.string(),
});
export type RaceDoc = z.infer<typeof RaceDoc>;

/** The document's format version; a file with a higher one was written by a newer SATLUTION. */
export const EVAL_DOC_VERSION = 1;

/** The gate names, cheapest first (eval/gates.ts runs them in this order). */
export const GateName = z.enum(['comply', 'build', 'smoke', 'verify', 'perf']);
export type GateName = z.infer<typeof GateName>;

/** The metrics of one stage's results (paper Table 3; computed by eval/metrics.ts). */
export const MetricsDoc = z.object({
  n: z.number().int().nonnegative(),
  solved: z.number().int().nonnegative(),
  solved_sat: z.number().int().nonnegative(),
  solved_unsat: z.number().int().nonnegative(),
  par2: z.number().nonnegative(),
  par2_sat: z.number().nonnegative().nullable(),
  par2_unsat: z.number().nonnegative().nullable(),
  solved_within: z.record(z.string(), z.number().int().nonnegative()),
  mem_avg_mb: z.number().nullable(),
  mem_max_mb: z.number().nullable(),
  wrong: z.number().int().nonnegative(),
  vbs_match: z.boolean(),
  unique_solved: z.number().int().nonnegative().nullable(),
});

/** A compiler message parsed from the build log. */
const DiagnosticDoc = z.object({
  file: z.string().nullable(),
  line: z.number().nullable(),
  column: z.number().nullable(),
  severity: z.enum(['error', 'warning']),
  message: z.string(),
});

/** A rule violation found by the comply gate. */
const ViolationDoc = z.object({
  rule: z.string(),
  check: z.string(),
  severity: z.enum(['error', 'warning']),
  file: z.string().nullable(),
  line: z.number().nullable(),
  message: z.string(),
  match: z.string().optional(),
});

/** One UNSAT answer of perf whose proof was checked (eval/audit.ts): what the proof showed. */
export const AuditedDoc = z.object({
  instance: z.string(),
  /**
   * ok: the proof verified; caught: a lie (the gate fails); unsolved: not verified (its check did not
   * finish within its bounds, the proof was too large or gone), so the answer counts as unsolved;
   * not_audited: documents from before unproved answers counted as unsolved.
   */
  verdict: z.enum(['ok', 'caught', 'unsolved', 'not_audited']),
  status: RunStatus,
  answer: z.enum(['SAT', 'UNSAT', 'UNKNOWN']).nullable(),
  time_s: z.number(),
  check: CheckResult,
  detail: z.string(),
  /** The run whose proof was checked (its results-store key): the measured run itself. Absent in documents from before proofs were kept (a re-run was checked then). */
  run: z.string().optional(),
  /** The size of that proof. */
  proof_bytes: z.number().int().nonnegative().optional(),
});
export type AuditedDoc = z.infer<typeof AuditedDoc>;

/** The perf audit (stages.perf.audit): a random sample of perf's unchecked UNSAT answers, each checked from the proof its own run kept. */
export const AuditDoc = z.object({
  /** The UNSAT answers the sample was drawn from. */
  candidates: z.number().int().nonnegative(),
  /** `kept`: the proofs the measured runs wrote were checked. Absent in documents from before: the sample was re-run then. */
  from: z.literal('kept').optional(),
  /** Documents from before proofs were kept: the re-runs' time limit. */
  timeout_s: z.number().positive().optional(),
  /** Answers whose proofs were checked (every verdict; documents from before unproved counted as unsolved: ok or caught only). */
  checked: z.number().int().nonnegative(),
  caught: z.number().int().nonnegative(),
  /** Documents from before proofs were kept: re-runs taken from earlier runs with the same key. */
  reused: z.number().int().nonnegative().optional(),
  instances: z.array(AuditedDoc),
});
export type AuditDoc = z.infer<typeof AuditDoc>;

/** One answer the promotion audit checked: the proof's verdict, and the times that made it worth checking. */
export const PromotionAuditedDoc = AuditedDoc.extend({
  /** Where the gain showed: the decision duel's pairs, their further runs (where the decision was judged on them), the two perf evaluation documents, or the held-out duel. */
  from: z.enum(['duel', 'second run', 'evaluation', 'held-out']),
  /** Which run of the instance a further run ('second run') was: 2 the second, 3 the third...; absent in records from before runs went past two (the second). */
  nth: z.number().int().min(2).optional(),
  /** The champion's and the challenger's PAR-2 time there, on `on` (the champion's 2x the timeout when it did not solve it). */
  champion_s: z.number(),
  challenger_s: z.number(),
  champion_status: z.string(),
});
export type PromotionAuditedDoc = z.infer<typeof PromotionAuditedDoc>;

/**
 * The promotion audit (decide/promotionAudit.ts): before a promotion, every UNSAT answer the challenger
 * gave much faster than the champion, checked from the proof its own run kept. Kept on the perf gate of
 * the challenger's document; absent in documents from before it (still version 1), and on candidates
 * never about to be promoted.
 */
export const PromotionAuditDoc = z.object({
  at: z.string(),
  /** The champion the gain was measured against, and the challenger's identity when audited: either changed, it is audited again. */
  champion: z.object({ solver: z.string(), hash: z.string() }),
  solver_hash: z.string(),
  /** The decision duel's session, or null when there was none. */
  duel: z.string().nullable(),
  on: z.enum(['wall', 'cpu']),
  /** Which answers were checked, in words (records from before: what "much faster" meant). */
  rule: z.string(),
  /** `kept`: the proofs the measured runs wrote were checked. Absent in documents from before: qualifying answers were re-run. */
  from: z.literal('kept').optional(),
  /** Documents from before proofs were kept: the re-runs' time limit. */
  timeout_s: z.number().positive().optional(),
  /** Answers whose run's proof the perf audit's random sample had already checked. */
  already_checked: z.array(z.string()),
  checked: z.number().int().nonnegative(),
  caught: z.number().int().nonnegative(),
  /** Documents from before proofs were kept: re-runs taken from earlier runs. */
  reused: z.number().int().nonnegative().optional(),
  instances: z.array(PromotionAuditedDoc),
  /** UNSAT answers left unchecked, each counted at the champion's time (no gain from it) when the test was passed; absent in records from before. */
  unchecked: z.array(z.string()).optional(),
  /** Whether the promotion test passed on checked answers only (every unproved one unsolved, every unchecked one at the champion's time); absent in records from before. */
  passed: z.boolean().optional(),
  /** The held-out duel's UNSAT answers, checked the same way after the held-out check passed (absent before it ran). */
  held_out: z
    .object({
      duel: z.string(),
      checked: z.number().int().nonnegative(),
      caught: z.number().int().nonnegative(),
      instances: z.array(PromotionAuditedDoc),
      unchecked: z.array(z.string()).optional(),
      passed: z.boolean().optional(),
    })
    .optional(),
});
export type PromotionAuditDoc = z.infer<typeof PromotionAuditDoc>;

/** One gate's outcome. */
export const GateDoc = z.object({
  gate: GateName,
  ok: z.boolean(),
  detail: z.string(),
  /** One line per failing instance or error (at most 20). */
  failures: z.array(z.string()),
  metrics: MetricsDoc.optional(),
  diagnostics: z.array(DiagnosticDoc).optional(),
  compliance: z.object({ score: z.number(), errors: z.number().int(), warnings: z.number().int(), violations: z.array(ViolationDoc) }).optional(),
  /** Results taken from earlier runs with the same key. */
  reused: z.number().int().nonnegative().optional(),
  /** perf only, when it was audited (absent in documents from before the audit: still version 1). */
  audit: AuditDoc.optional(),
  /** perf only, once its candidate was about to be promoted (decide/promotionAudit.ts). */
  promotion_audit: PromotionAuditDoc.optional(),
  /** The stage checked nothing yet passed (evaluation.vacuous_gates: warn): why and what to add. Absent: no warning (still version 1). */
  warning: z.string().optional(),
});
export type GateDoc = z.infer<typeof GateDoc>;

/** The warnings of the gates that passed without checking anything, each to be shown with the verdict. */
export function vacuousWarnings(doc: { gates: readonly Pick<GateDoc, 'warning'>[] }): string[] {
  return doc.gates.flatMap((g) => (g.warning ? [g.warning] : []));
}

/** The evaluation document, version 1. */
export const EvalDoc = z.object({
  version: z.literal(EVAL_DOC_VERSION).default(EVAL_DOC_VERSION),
  solver: z.string(),
  solver_hash: z.string().nullable(),
  /** The runner(s) the stages ran on, comma-separated. */
  runner: z.string(),
  /** The limits of the stage whose results `instances` holds (the last stage that ran). */
  timeout_s: z.number().positive().nullable(),
  mem_limit_mb: z.number().positive().nullable(),
  verdict: z.enum(['pass', 'fail']),
  evaluated_at: z.string(),
  instances: z.array(InstanceResult),
  metrics: MetricsDoc.nullable(),
  /** Multi-fidelity: the perf tier the measurement is from, of how many (the last is the full set). */
  tier: z.object({ reached: z.number().int().positive(), of: z.number().int().positive() }).optional(),
  /** perf measured in a cycle's race (decide/race.ts); `rejected early`: only part of the set ran, so `metrics` is not the set's. */
  race: RaceDoc.optional(),
  /** A cycle's challenger whose gates passed up to the full perf set, which its cycle's race is still to measure (decide/againstChampion.ts raceChallengers). */
  race_pending: z.literal(true).optional(),
  /** The sandbox the build and runs had: `off` when any of them ran without isolation. Absent: written before sandboxes, so none. */
  isolation: z.enum(['bwrap', 'off']).optional(),
  /** The perf set the perf gate ran on (instances/setVersion.ts), so a reader can tell a measurement on an older set. Absent: perf did not run, or written before sets had versions. */
  perf_set: z.object({ version: z.string(), instances: z.number().int().nonnegative() }).optional(),
  gates: z.array(GateDoc),
});
export type EvalDoc = z.infer<typeof EvalDoc>;

/** A stored document, validated; or why it cannot be used, in words a person can act on. */
export function parseEvalDoc(raw: unknown): { ok: true; doc: EvalDoc } | { ok: false; reason: string } {
  const version = typeof raw === 'object' && raw !== null && 'version' in raw ? (raw as { version: unknown }).version : undefined;
  if (typeof version === 'number' && version > EVAL_DOC_VERSION)
    return { ok: false, reason: `it was written by a newer SATLUTION (format ${version}; this one reads ${EVAL_DOC_VERSION})` };
  const r = EvalDoc.safeParse(raw);
  if (r.success) return { ok: true, doc: r.data };
  const first = r.error.issues[0]!;
  return {
    ok: false,
    reason: `${first.path.join('.') || 'the document'}: ${first.message}${r.error.issues.length > 1 ? ` (and ${r.error.issues.length - 1} more problem${r.error.issues.length > 2 ? 's' : ''})` : ''}`,
  };
}

/** Whether the document measured the whole perf set: not a cheaper tier, not stopped by racing, not waiting for its race. */
export const measuredInFull = (doc: EvalDoc): boolean =>
  !doc.race_pending && (!doc.tier || doc.tier.reached === doc.tier.of) && doc.race?.outcome !== 'rejected early';

/** A passing candidate's PAR-2 for strategies that rank by it: the set's, or for one rejected by racing the race's extrapolated lower estimate; null when it failed. */
export function rankingPar2(doc: EvalDoc | undefined): number | null {
  if (doc?.verdict !== 'pass' || !doc.metrics) return null;
  if (doc.race?.outcome === 'rejected early') return doc.race.estimated_par2 ?? doc.metrics.par2;
  return doc.metrics.par2;
}
