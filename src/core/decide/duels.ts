// The store of side-by-side measurements: each session's duel kept as `.satlution/duels/<session>.json`
// (measureTogether.ts writes them; the cycle, the promotion audit, the held-out check and the
// dashboard read them).
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { RaceDoc } from '../eval/evalDoc';
import { par2Of, type TimeBasis } from '../eval/metrics';
import { STATE_DIR } from '../layout';

/** Why a pair was measured. */
export const DuelPurpose = z.enum(['decision', 'held-out', 'calibration', 'compare']);
export type DuelPurpose = z.infer<typeof DuelPurpose>;

/** One side's run of a pair; `answer` is absent in duels kept before it was recorded. */
const DuelRun = z.object({
  status: z.string(),
  time_s: z.number(),
  cpu_s: z.number().nullable(),
  answer: z.enum(['SAT', 'UNSAT', 'UNKNOWN']).nullable().optional(),
  /** The run's results-store key, where it kept the proof of an UNSAT answer for the audits (absent otherwise, and in duels kept before). */
  run: z.string().optional(),
});

/** One instance measured by both, with the order the two ran in. */
export const DuelPair = z.object({
  instance: z.string(),
  /** The instance's family (meta.csv), for the family rule (familyCheck.ts); absent in duels kept before it was recorded. */
  family: z.string().nullable().optional(),
  order: z.enum(['AB', 'BA']),
  a: DuelRun,
  b: DuelRun,
  /**
   * Both sides' further runs, in the order they ran, where a survivor's decision was in doubt (race.ts
   * raceAgain): the test and the margin are judged on each side's mean. One object in duels kept before
   * an instance could run more than twice.
   */
  again: z
    .preprocess((v) => (v && typeof v === 'object' && !Array.isArray(v) ? [v] : v), z.array(z.object({ order: z.enum(['AB', 'BA']), a: DuelRun, b: DuelRun })))
    .optional(),
});
export type DuelPair = z.infer<typeof DuelPair>;

/** One family's figures in a duel's comparison (familyCheck.ts): each side's PAR-2 there, B's change (positive: slower), whether it was judged and found slower beyond the tolerance. */
export const DuelFamily = z.object({
  family: z.string(),
  instances: z.number().int().nonnegative(),
  par2A: z.number(),
  par2B: z.number(),
  change_pct: z.number(),
  judged: z.boolean(),
  slower: z.boolean(),
});
export type DuelFamily = z.infer<typeof DuelFamily>;

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
  /** The paired comparison of B with A on these pairs only (on `on`); `p`: the promotion test's one-sided p (objectiveTest.ts), the ratio test's or the Wilcoxon p in duels kept before it. */
  comparison: z.object({
    par2A: z.number(),
    par2B: z.number(),
    diff: z.number(),
    ci95: z.tuple([z.number(), z.number()]),
    p: z.number(),
    n: z.number().int(),
    verdict: z.enum(['B faster', 'A faster', 'no significant difference']),
    /** The one-sided level `p` was held to (a race's promotion level); absent in duels kept before the sign-flip tests. */
    level: z.number().optional(),
    band_pct: z.number(),
    /** Wall-clock PAR-2 of each side, as competitions report it. */
    wall_par2A: z.number(),
    wall_par2B: z.number(),
    /** Where the test and the margin were judged on further runs: how many instances, the most runs of one by a side (absent: two), and each side's PAR-2 with each at the mean of its runs. */
    again: z.object({ instances: z.number().int(), runs: z.number().int().optional(), par2A: z.number(), par2B: z.number() }).optional(),
    /** Each family's figures, where the pairs have two families or more; absent in duels kept before. */
    families: z.array(DuelFamily).optional(),
  }),
  /** A side that crashed or answered wrongly in the duel (it cannot win). */
  fatal: z.object({ side: z.enum(['A', 'B']), detail: z.string() }).nullable(),
  /** B's race, when the duel was a cycle's race (several challengers share A's runs): why it stopped, or that it ran the set. */
  race: RaceDoc.optional(),
  /** A sequential duel (the held-out check) that stopped before the set's end: after how many instances, and why. */
  stopped: z.object({ after: z.number().int().nonnegative(), of: z.number().int().nonnegative(), reason: z.string() }).optional(),
});
export type DuelDoc = z.infer<typeof DuelDoc>;

/** Where a workspace keeps its duels. */
export const duelsDir = (ws: string) => path.join(ws, STATE_DIR, 'duels');

/** A new session's name: its start (so names sort by time) and a random part. */
export const newSessionName = (): string => `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`;

/** Reads every kept duel of a workspace, oldest first; damaged files are skipped. */
export async function readDuels(ws: string): Promise<DuelDoc[]> {
  const names = await fs.readdir(duelsDir(ws)).catch(() => [] as string[]);
  const out: DuelDoc[] = [];
  for (const n of names.filter((x) => x.endsWith('.json')).sort()) {
    const p = DuelDoc.safeParse(
      await fs
        .readFile(path.join(duelsDir(ws), n), 'utf8')
        .then((t) => JSON.parse(t) as unknown)
        .catch(() => undefined),
    );
    if (p.success) out.push(p.data);
  }
  return out.sort((x, y) => x.started_at.localeCompare(y.started_at));
}

/** The per-instance PAR-2 of a pair on a basis (for plots and tables). */
export const pairTimes = (p: DuelPair, timeoutS: number, on: TimeBasis): [number, number] => [
  par2Of({ status: p.a.status === 'solved' ? 'solved' : 'timeout', time_s: p.a.time_s, cpu_s: p.a.cpu_s }, timeoutS, on),
  par2Of({ status: p.b.status === 'solved' ? 'solved' : 'timeout', time_s: p.b.time_s, cpu_s: p.b.cpu_s }, timeoutS, on),
];
