// Tolerant readers of the files the dashboard draws from: a candidate's latest evaluation, the cycle
// log, the champion events of the candidate store, and the usage ledger. A missing, torn or foreign
// file is skipped with a note; nothing here throws on bad data.
import * as fs from 'node:fs/promises';
import { z } from 'zod';
import { Step, CycleState } from '../store/cycleState';
import { computeMetrics } from '../eval/metrics';
import { MetricsDoc, vacuousWarnings } from '../eval/evalDoc';
import { RaceDoc } from '../eval/evalDoc';
import type { EvalStore } from '../eval/evalStore';
import { InstanceResult } from '../run/result';
import { readJsonLines } from '../store/atomic';
import { DashGate, type PerfSummary } from './dashboardSchema';

/** The metrics the dashboard draws (the document's others may be missing from older files). */
const Metrics = MetricsDoc.pick({ n: true, solved: true, solved_sat: true, solved_unsat: true, par2: true, par2_sat: true, par2_unsat: true });

/** What the dashboard needs of an evaluation document (eval/evalDoc.ts), leniently; unknown keys are ignored. */
/** One answer a promotion audit checked, as far as the dashboard needs it (rows it cannot read are left out). */
const AuditRow = z.object({ instance: z.string(), verdict: z.string(), from: z.string() }).nullable().catch(null);

const EvalFile = z.object({
  solver_hash: z.string().nullable().catch(null),
  timeout_s: z.number().positive().nullable().catch(null),
  mem_limit_mb: z.number().positive().nullable().optional().catch(null),
  verdict: z.enum(['pass', 'fail']),
  evaluated_at: z.string().nullable().optional().catch(null),
  instances: z.array(z.unknown()).catch([]),
  metrics: Metrics.nullable().catch(null),
  tier: z.object({ reached: z.number().int().positive(), of: z.number().int().positive() }).nullable().optional().catch(null),
  race: RaceDoc.nullable().optional().catch(null),
  gates: z.array(
    z.object({
      gate: z.string(),
      ok: z.boolean(),
      detail: z.string().catch(''),
      metrics: Metrics.nullable().optional().catch(null),
      warning: z.string().optional().catch(undefined),
      promotion_audit: z
        .object({
          instances: z.array(AuditRow).catch([]),
          held_out: z
            .object({ instances: z.array(AuditRow).catch([]) })
            .optional()
            .catch(undefined),
        })
        .optional()
        .catch(undefined),
    }),
  ),
});

/** A promotion audit's verdict on an answer's proof. */
export type PromotionCheck = 'proved' | 'unproved' | 'rejected';

export interface ParsedEval {
  solverHash: string | null;
  verdict: 'pass' | 'fail';
  evaluatedAt: string | null;
  /** The limits of the stage `results` are of. */
  timeoutS: number | null;
  memMb: number | null;
  failedGate: DashGate | null;
  failure: string | null;
  /** Gates that passed with nothing checked (evaluation.vacuous_gates: warn), shown with the verdict. */
  warnings: string[];
  /** Null unless the perf stage ran (an evaluation that stopped at verify measured no PAR-2). */
  perf: PerfSummary | null;
  /** The perf stage's per-instance results (empty unless it ran). */
  perfResults: InstanceResult[];
  /**
   * What the promotion audit's checks showed of the perf results' UNSAT answers (their runs' own
   * proofs), by instance: perfResults carry the perf audit's checks themselves.
   */
  promotionChecks: Map<string, PromotionCheck>;
  /** The per-instance results the file holds, whatever stage they are of (for run logs). */
  results: InstanceResult[];
  /** Instances that did not match the schema and were left out. */
  badInstances: number;
  /** The perf tier the measurement is from, when perf ran in tiers. */
  tier: { reached: number; of: number } | null;
  /** How racing against the champion went, when perf was raced. */
  race: RaceDoc | null;
}

export type ReadResult<T> = { ok: true; value: T } | { ok: false; reason: string };

const STAGES = new Set(['smoke', 'verify', 'perf']);

/** A candidate's evaluation as the dashboard shows it: leniently, so a partly damaged document still shows what it can. */
export async function readEvalLeniently(evals: EvalStore, candidate: string): Promise<ReadResult<ParsedEval>> {
  const r = await evals.readJson(candidate);
  if (r.status === 'missing') return { ok: false, reason: 'missing' };
  if (r.status === 'invalid') return { ok: false, reason: /JSON/.test(r.reason) ? 'not valid JSON' : 'unreadable' };
  const p = EvalFile.safeParse(r.json);
  if (!p.success) return { ok: false, reason: `not an evaluation (${p.error.issues[0]?.path.join('.') || 'root'}: ${p.error.issues[0]?.message ?? ''})` };
  const e = p.data;
  const results: InstanceResult[] = [];
  let badInstances = 0;
  for (const raw of e.instances) {
    const r = InstanceResult.safeParse(raw);
    if (r.success) results.push(r.data);
    else badInstances++;
  }
  // `instances` and `metrics` belong to the last stage that ran: they are perf data only if that was perf.
  const lastStage = [...e.gates].reverse().find((g) => STAGES.has(g.gate));
  const perfGate = lastStage?.gate === 'perf' ? lastStage : undefined;
  const failed = e.gates.find((g) => !g.ok);
  const gate = failed ? DashGate.safeParse(failed.gate) : undefined;
  let m = perfGate ? (perfGate.metrics ?? e.metrics) : null;
  if (perfGate && !m && results.length && e.timeout_s) {
    const c = computeMetrics(results, e.timeout_s);
    const nn = (x: number | null) => (x === null ? null : Math.max(0, x)); // a negative time in a damaged file
    m = {
      n: c.n,
      solved: c.solved,
      solved_sat: c.solved_sat,
      solved_unsat: c.solved_unsat,
      par2: Math.max(0, c.par2),
      par2_sat: nn(c.par2_sat),
      par2_unsat: nn(c.par2_unsat),
    };
  }
  return {
    ok: true,
    value: {
      solverHash: e.solver_hash && /^[0-9a-f]{8,128}$/.test(e.solver_hash) ? e.solver_hash : null,
      verdict: e.verdict,
      evaluatedAt: e.evaluated_at ?? null,
      timeoutS: e.timeout_s,
      memMb: e.mem_limit_mb ?? null,
      failedGate: gate?.success ? gate.data : null,
      failure: failed ? failed.detail.slice(0, 400) : null,
      warnings: vacuousWarnings(e).map((w) => w.slice(0, 400)),
      perf:
        m && m.n > 0
          ? { n: m.n, solved: m.solved, solvedSat: m.solved_sat, solvedUnsat: m.solved_unsat, par2: m.par2, par2Sat: m.par2_sat, par2Unsat: m.par2_unsat }
          : null,
      perfResults: perfGate ? results : [],
      promotionChecks: promotionChecks(e.gates),
      results,
      badInstances,
      tier: e.tier ?? null,
      race: e.race ?? null,
    },
  };
}

/** The last recorded state of each cycle, in cycle order. */
export async function readCycles(cyclesFile: string, cycleFile: string, note: (m: string) => void): Promise<CycleState[]> {
  const { records, skipped } = await readJsonLines(cyclesFile).catch(() => ({ records: [] as unknown[], skipped: -1 }));
  if (skipped === -1) note('cycles.jsonl could not be read');
  else if (skipped) note(`cycles.jsonl: ${skipped} torn line${skipped > 1 ? 's' : ''} skipped`);
  const last = new Map<number, CycleState>();
  let bad = 0;
  for (const r of records) {
    const c = CycleState.safeParse(r);
    if (c.success) last.set(c.data.cycle, c.data);
    else bad++;
  }
  if (bad) note(`cycles.jsonl: ${bad} line${bad > 1 ? 's' : ''} that are not cycle states skipped`);
  // The cycle in progress may be newer than the log (or the log may be gone).
  try {
    const cur = CycleState.safeParse(JSON.parse(await fs.readFile(cycleFile, 'utf8')));
    const known = cur.success ? last.get(cur.data.cycle) : undefined;
    if (cur.success && (!known || Step.options.indexOf(cur.data.step) >= Step.options.indexOf(known.step))) last.set(cur.data.cycle, cur.data);
  } catch {
    /* no cycle yet */
  }
  return [...last.values()].sort((a, b) => a.cycle - b.cycle);
}

const ChampionEvent = z.object({ type: z.literal('champion'), at: z.string(), id: z.number().int().nonnegative().nullable() });
export interface ChampionEvent {
  at: number;
  id: number | null;
}

/** Champion changes from the candidate store's log, oldest first (empty when the log is gone). */
export async function readChampionEvents(storeLog: string, note: (m: string) => void): Promise<ChampionEvent[]> {
  const { records } = await readJsonLines(storeLog).catch(() => {
    note('candidates.jsonl could not be read');
    return { records: [] as unknown[] };
  });
  const out: ChampionEvent[] = [];
  for (const r of records) {
    const e = ChampionEvent.safeParse(r);
    const at = e.success ? Date.parse(e.data.at) : NaN;
    if (e.success && Number.isFinite(at)) out.push({ at, id: e.data.id });
  }
  return out.sort((a, b) => a.at - b.at);
}

const Tokens = z.number().nonnegative().catch(0);
const UsageLine = z.object({
  cycle: z.number().int().nonnegative().nullable().catch(null),
  usage: z.object({ input: Tokens, output: Tokens, cacheRead: Tokens, cacheWrite: Tokens }),
  usd: z.number().nonnegative(),
});
export type UsageLine = z.infer<typeof UsageLine>;

export async function readUsage(file: string, note: (m: string) => void): Promise<UsageLine[]> {
  const { records, skipped } = await readJsonLines(file).catch(() => ({ records: [] as unknown[], skipped: -1 }));
  if (skipped === -1) note('usage.jsonl could not be read');
  const out: UsageLine[] = [];
  let bad = Math.max(0, skipped);
  for (const r of records) {
    const u = UsageLine.safeParse(r);
    if (u.success) out.push(u.data);
    else bad++;
  }
  if (bad) note(`usage.jsonl: ${bad} line${bad > 1 ? 's' : ''} skipped (not usage records)`);
  return out;
}

/** The promotion audit's verdicts on the measured runs' answers (not on second runs or the held-out set), by instance. */
function promotionChecks(gates: z.infer<typeof EvalFile>['gates']): Map<string, PromotionCheck> {
  const out = new Map<string, PromotionCheck>();
  const rows = gates.filter((g) => g.gate === 'perf').pop()?.promotion_audit?.instances ?? [];
  for (const r of rows) {
    if (!r || (r.from !== 'duel' && r.from !== 'evaluation')) continue;
    const v = r.verdict === 'ok' ? 'proved' : r.verdict === 'caught' ? 'rejected' : r.verdict === 'unsolved' ? 'unproved' : undefined;
    if (v) out.set(r.instance, v);
  }
  return out;
}
