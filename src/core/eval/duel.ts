// Same-session comparisons: two solvers measured side by side on one perf set, in the same time window,
// on the same runner, so a drift of the machine (a build in another window, thermal throttling, a
// neighbour's job) moves both alike and cancels in the paired differences. On a local runner with n
// slots, n lanes run at once; each lane takes every n-th instance and runs its pair back to back,
// pinned to one core (taskset), the order alternating from one instance to the next (ABBA): the two runs
// of a pair share a core and a moment (on this project's 2-core machine the two cores differ in speed
// by up to 2x from one second to the next). With one slot, or on a remote runner (which syncs each
// solver first), blocks of the slots run A then B, then B then A. Nothing stored earlier is reused:
// each side runs under a session key of its own (runSet's `session`). The one way a promotion, the
// held-out check, `satlution compare --measure` and the noise calibration measure a pair.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config/schema';
import * as os from 'node:os';
import { listSet, type InstanceSpec } from '../instances/instances';
import { STATE_DIR } from '../layout';
import { isolationFor } from '../isolation/settings';
import { buildSolver } from '../run/build';
import { FATAL, type InstanceResult } from '../run/result';
import { stageRunners, type RunnerEnv } from '../runners/select';
import { writeJsonAtomic } from '../store/atomic';
import { compareRuns, type Comparison } from './compare';
import { runStage, type StagePlan } from './gates';
import { par2Of, type TimeBasis } from './metrics';
import { gateContext, type PlanOverrides } from './plan';
import { solverIdentity } from './resultsStore';
import { EvaluationSetupError, plannedStages } from './service';

/** Why a pair was measured. */
export const DuelPurpose = z.enum(['decision', 'held-out', 'calibration', 'compare']);
export type DuelPurpose = z.infer<typeof DuelPurpose>;

/** One side's run of a pair; `answer` is absent in duels kept before it was recorded. */
const DuelRun = z.object({ status: z.string(), time_s: z.number(), cpu_s: z.number().nullable(), answer: z.enum(['SAT', 'UNSAT', 'UNKNOWN']).nullable().optional() });

/** One instance measured by both, with the order the two ran in. */
export const DuelPair = z.object({
  instance: z.string(),
  order: z.enum(['AB', 'BA']),
  a: DuelRun,
  b: DuelRun,
});
export type DuelPair = z.infer<typeof DuelPair>;

/** A side-by-side measurement as kept in `.satlution/duels/<session>.json` (the dashboard reads these). */
export const DuelDoc = z.object({
  session: z.string(),
  purpose: DuelPurpose,
  cycle: z.number().int().nullable(),
  a: z.object({ dir: z.string(), hash: z.string() }),
  b: z.object({ dir: z.string(), hash: z.string() }),
  set: z.string(),
  runner: z.string(),
  timeout_s: z.number().positive(),
  on: z.enum(['wall', 'cpu']),
  started_at: z.string(),
  ended_at: z.string(),
  /** Instances per block: 1 in lanes, else the runner's slots. */
  block: z.number().int().positive(),
  /** true: pairs ran back to back in parallel lanes (each pinned to a core where possible); false: in blocks. */
  together: z.boolean().default(false),
  pairs: z.array(DuelPair),
  /** The paired comparison of B with A on these pairs only (on `on`, with the band in force). */
  comparison: z.object({
    par2A: z.number(),
    par2B: z.number(),
    diff: z.number(),
    ci95: z.tuple([z.number(), z.number()]),
    p: z.number(),
    n: z.number().int(),
    verdict: z.enum(['B faster', 'A faster', 'no significant difference']),
    band_pct: z.number(),
    /** Wall-clock PAR-2 of each side, as competitions report it. */
    wall_par2A: z.number(),
    wall_par2B: z.number(),
  }),
  /** A side that crashed or answered wrongly in the duel (it cannot win). */
  fatal: z.object({ side: z.enum(['A', 'B']), detail: z.string() }).nullable(),
});
export type DuelDoc = z.infer<typeof DuelDoc>;

/** What to measure side by side. */
export interface DuelRequest {
  ws: string | undefined;
  config: Config;
  /** A: the reference (the champion); B: the challenger. The same directory twice is an A/A test. */
  a: string;
  b: string;
  purpose: DuelPurpose;
  cycle?: number;
  /** The perf stage's set and limits instead of the config's (a held-out set). */
  overrides?: Pick<PlanOverrides, 'bench' | 'runner' | 'jobs' | 'timeoutS'>;
  on: TimeBasis;
  bandPct: number;
  alpha: number;
  /** Build both first (default false: a cycle's candidates were built by their evaluations). */
  build?: boolean;
  runnerEnv: RunnerEnv;
  signal?: AbortSignal;
  /** Progress: runs done of all (both sides), and which side just ran a block. */
  onProgress?: (done: number, total: number, message: string) => void;
}

/** The measurement and the comparison it supports, kept on disk in a workspace. */
export interface Duel {
  doc: DuelDoc;
  /** The comparison on the duel's pairs (what a decision uses). */
  cmp: Comparison;
  a: InstanceResult[];
  b: InstanceResult[];
}

export const duelsDir = (ws: string) => path.join(ws, STATE_DIR, 'duels');

/** Measures A and B side by side on the perf stage's set, interleaved block by block (ABBA). */
export async function measureSideBySide(req: DuelRequest): Promise<Duel> {
  const stages = await plannedStages({ ws: req.ws, config: req.config, overrides: { stage: 'perf', ...req.overrides } });
  const plan = stages[stages.length - 1];
  if (!plan) throw new EvaluationSetupError('no perf stage to measure on');
  // Proofs are a correctness matter, settled by the gates: a duel measures speed, so it runs as perf does.
  const perf = { ...plan, audit: undefined, race: undefined };
  const instances = await listSet(perf.dir);
  if (!instances.length) throw new EvaluationSetupError(`benchmark set ${perf.dir} has no instances to measure on`);
  let runners;
  try {
    runners = stageRunners(req.config, [perf.runner ?? 'local'], req.runnerEnv);
  } catch (e) {
    throw new EvaluationSetupError((e as Error).message);
  }
  const ctx = { ...gateContext(req.config, req.ws), runners, jobs: perf.jobs ?? 1, build: false, stages: [perf], ...(req.signal ? { signal: req.signal } : {}) };
  // In a cycle both sides were built by their evaluations; `calibrate` and `compare --measure` build first, confined.
  for (const dir of req.build ? new Set([req.a, req.b]) : []) {
    const built = await buildSolver(dir, req.config.evaluation.build_timeout_s, req.signal, isolationFor(req.config));
    if (!built.ok) throw new EvaluationSetupError(`${path.basename(dir)} does not build: ${built.detail}`);
  }
  const session = `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`;
  // A fixed order (by name): ABBA blocks cancel a drift whatever the order, and a resumed or repeated duel runs the same blocks.
  const order = [...instances].sort((x, y) => x.name.localeCompare(y.name));
  const slots = Math.max(1, perf.jobs ?? 1);
  // Remote runners sync each solver before its runs; two syncs into one remote workdir at once are not worth the risk.
  const kind = req.config.runners.find((r) => r.name === (perf.runner ?? 'local'))?.kind ?? 'local';
  const lanes = kind === 'local' ? slots : 1;
  // Pinned lanes: a pair's two runs meet the same core (cores of one machine can differ in speed by 2x).
  const pin = kind === 'local' && slots >= 2 && slots <= os.availableParallelism();
  const single = { ...perf, jobs: 1 };
  const started = new Date().toISOString();
  const a = new Map<string, InstanceResult>();
  const b = new Map<string, InstanceResult>();
  const orders = new Map<string, 'AB' | 'BA'>();
  let done = 0;
  const total = 2 * order.length;
  const runSide = async (side: 'A' | 'B', chunk: InstanceSpec[], plan: StagePlan, cpu: number | undefined) => {
    // Each side its own session key: an A/A test of one directory must run twice, not reuse itself.
    const out = await runStage({ ...ctx, solverDir: side === 'A' ? req.a : req.b }, plan, chunk, {}, { session: `${session}:${side}`, ...(cpu !== undefined ? { cpu } : {}) });
    for (const r of out.results) (side === 'A' ? a : b).set(r.instance, r);
    done += out.results.length;
    req.onProgress?.(done, total, `${side} ran ${chunk.map((i) => i.name).join(', ')}`);
  };
  if (lanes > 1) {
    // Each lane takes every lanes-th instance and runs its pairs back to back, the order alternating (ABBA).
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let j = lane, k = 0; j < order.length; j += lanes, k++) {
          const inst = order[j]!;
          // Alternating within the lane (a core's second run of a pair is not always the same side), and
          // opposite across lanes at each step (one A and one B run at any moment). By j alone, lane 0 of
          // two would always run AB and lane 1 always BA.
          const ab = (k + lane) % 2 === 0;
          orders.set(inst.name, ab ? 'AB' : 'BA');
          for (const side of ab ? (['A', 'B'] as const) : (['B', 'A'] as const)) await runSide(side, [inst], single, pin ? lane : undefined);
        }
      }),
    );
  } else {
    // One slot, or a remote runner: blocks of its slots, A then B, then B then A.
    for (let k = 0, at = 0; at < order.length; k++, at += slots) {
      const chunk = order.slice(at, at + slots);
      for (const side of k % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const)) await runSide(side, chunk, perf, undefined);
      for (const i of chunk) orders.set(i.name, k % 2 === 0 ? 'AB' : 'BA');
    }
  }
  const block = lanes > 1 ? 1 : slots;
  const together = lanes > 1;
  const ra = order.flatMap((i) => (a.has(i.name) ? [a.get(i.name)!] : []));
  const rb = order.flatMap((i) => (b.has(i.name) ? [b.get(i.name)!] : []));
  const cmp = compareRuns(ra, rb, perf.timeoutS, { alpha: req.alpha, on: req.on, bandPct: req.bandPct });
  const wall = compareRuns(ra, rb, perf.timeoutS, { alpha: req.alpha, on: 'wall' });
  const fatalOf = (side: 'A' | 'B', rs: InstanceResult[]) => {
    const f = rs.find((r) => FATAL.has(r.status));
    return f ? { side, detail: `${f.instance}: ${f.status}: ${f.detail}` } : null;
  };
  const doc: DuelDoc = {
    session,
    purpose: req.purpose,
    cycle: req.cycle ?? null,
    a: { dir: req.a, hash: await solverIdentity(req.a) },
    b: { dir: req.b, hash: await solverIdentity(req.b) },
    set: perf.dir,
    runner: perf.runner ?? 'local',
    timeout_s: perf.timeoutS,
    on: req.on,
    started_at: started,
    ended_at: new Date().toISOString(),
    block,
    together,
    pairs: ra.flatMap((x) => {
      const y = b.get(x.instance);
      return y ? [{ instance: x.instance, order: orders.get(x.instance) ?? 'AB', a: brief(x), b: brief(y) }] : [];
    }),
    comparison: { par2A: cmp.par2A, par2B: cmp.par2B, diff: cmp.diff, ci95: cmp.ci95, p: cmp.wilcoxon.p, n: cmp.common, verdict: cmp.verdict, band_pct: cmp.band_pct, wall_par2A: wall.par2A, wall_par2B: wall.par2B },
    fatal: fatalOf('B', rb) ?? fatalOf('A', ra),
  };
  if (req.ws) await writeJsonAtomic(path.join(duelsDir(req.ws), `${session}.json`), doc);
  return { doc, cmp, a: ra, b: rb };
}

/** Reads every kept duel of a workspace, oldest first; damaged files are skipped. */
export async function readDuels(ws: string): Promise<DuelDoc[]> {
  const names = await fs.readdir(duelsDir(ws)).catch(() => [] as string[]);
  const out: DuelDoc[] = [];
  for (const n of names.filter((x) => x.endsWith('.json')).sort()) {
    const p = DuelDoc.safeParse(await fs.readFile(path.join(duelsDir(ws), n), 'utf8').then((t) => JSON.parse(t) as unknown).catch(() => undefined));
    if (p.success) out.push(p.data);
  }
  return out.sort((x, y) => x.started_at.localeCompare(y.started_at));
}

/** The per-instance PAR-2 of a pair on a basis (for plots and tables). */
export const pairTimes = (p: DuelPair, timeoutS: number, on: TimeBasis): [number, number] => [par2Of({ status: p.a.status === 'solved' ? 'solved' : 'timeout', time_s: p.a.time_s, cpu_s: p.a.cpu_s }, timeoutS, on), par2Of({ status: p.b.status === 'solved' ? 'solved' : 'timeout', time_s: p.b.time_s, cpu_s: p.b.cpu_s }, timeoutS, on)];

/** A run as a pair keeps it, with its answer: the promotion audit (cycle/promotionAudit.ts) proof-checks the UNSAT answers a gain rests on. */
const brief = (r: InstanceResult) => ({ status: r.status, time_s: r.time_s, cpu_s: r.cpu_s ?? null, answer: r.answer });
