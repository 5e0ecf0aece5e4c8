// The judge's record, `.satlution/judge.jsonl`: every score it gave, and for the proposals that were
// evaluated, the gain measured against the parent. Joined, they tell a person whether the judge's
// scores predict anything (judgeStats): the point of SIFT is to spend benchmarks on its picks.
import * as path from 'node:path';
import { z } from 'zod';
import { appendJsonLine, readJsonLines } from '../store/atomic';
import { STATE_DIR } from '../layout';
import { pearson, spearman } from './correlation';

export const JudgeRecord = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('score'),
    at: z.string(),
    cycle: z.number().int(),
    candidate: z.number().int(),
    score: z.number().int().min(1).max(10),
    rationale: z.string(),
    selected: z.boolean(),
  }),
  z.object({
    type: z.literal('measured'),
    at: z.string(),
    cycle: z.number().int(),
    candidate: z.number().int(),
    par2: z.number(),
    parent_par2: z.number(),
    gain_pct: z.number(),
  }),
]);
export type JudgeRecord = z.infer<typeof JudgeRecord>;

export const judgeLogFile = (ws: string) => path.join(ws, STATE_DIR, 'judge.jsonl');

type Without<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

export function appendJudgeRecord(ws: string, r: Without<JudgeRecord, 'at'>): Promise<void> {
  return appendJsonLine(judgeLogFile(ws), { at: new Date().toISOString(), ...r });
}

export interface JudgePoint {
  cycle: number;
  candidate: number;
  score: number;
  selected: boolean;
  /** Measured PAR-2 gain over the parent in percent (positive: faster); null when not evaluated. */
  gainPct: number | null;
}

export interface JudgeStats {
  points: JudgePoint[];
  /** Over the evaluated proposals: score vs measured gain. */
  n: number;
  pearson: number | null;
  spearman: number | null;
}

export async function judgeStats(ws: string): Promise<JudgeStats> {
  const { records } = await readJsonLines(judgeLogFile(ws));
  const scores = new Map<number, JudgePoint>();
  const gains = new Map<number, number>();
  for (const raw of records) {
    const p = JudgeRecord.safeParse(raw);
    if (!p.success) continue; // a torn last line or a foreign record: skipped, the rest still counts
    const r = p.data;
    if (r.type === 'score') scores.set(r.candidate, { cycle: r.cycle, candidate: r.candidate, score: r.score, selected: r.selected, gainPct: null });
    else gains.set(r.candidate, r.gain_pct);
  }
  const points = [...scores.values()].map((x) => ({ ...x, gainPct: gains.get(x.candidate) ?? null })).sort((a, b) => a.candidate - b.candidate);
  const measured = points.filter((x) => x.gainPct !== null);
  const xs = measured.map((x) => x.score);
  const ys = measured.map((x) => x.gainPct!);
  return { points, n: measured.length, pearson: pearson(xs, ys), spearman: spearman(xs, ys) };
}
