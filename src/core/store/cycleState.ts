// The state of the evolution cycle in progress, persisted after every step (atomically), so a crash,
// a cancel or a window reload resumes at the step it stopped in.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { appendJsonLine, writeJsonAtomic } from './atomic';
import { STATE_DIR } from '../layout';

/** The steps of a cycle, in order; `screen` picks which proposals are evaluated (strategies that make several). */
export const Step = z.enum(['plan', 'approve', 'code', 'screen', 'evaluate', 'analyze', 'decide', 'done']);
export type Step = z.infer<typeof Step>;

/** A step as stored, also by older versions: the screening step was called `judge` before it was `screen`. */
const StoredStep = z.preprocess((v) => (v === 'judge' ? 'screen' : v), Step);

export const CycleState = z.object({
  cycle: z.number().int().positive(),
  step: StoredStep,
  parent: z.number().int().nonnegative(),
  candidate: z.number().int().nonnegative().nullable(),
  title: z.string().nullable(),
  started_at: z.string(),
  updated_at: z.string(),
  /** Why the cycle ended without a new champion, when it did. */
  outcome: z.string().nullable(),
  champion_changed: z.boolean(),
  /** The cycle's proposals so far (strategies that make several: sift). */
  proposals: z.array(z.object({ candidate: z.number().int().nonnegative(), title: z.string().nullable(), coded: z.boolean() })).default([]),
  /** What the strategy asks of the proposals (smc: the kernel), passed to the agent's plan; or null. */
  hint: z.string().nullable().default(null),
  /** The strategy's lane for this cycle (islands: the island; smc: the particle), or null. */
  island: z.number().int().nonnegative().nullable().default(null),
  /** The proposals chosen for evaluation, best first; null until chosen. */
  selected: z.array(z.number().int().nonnegative()).nullable().default(null),
  /** The cycle's race session (decide/measureTogether.ts), once it started: a resumed race reuses its stored runs. */
  race_session: z.string().nullable().optional(),
});
export type CycleState = z.infer<typeof CycleState>;
export type CycleStateInput = z.input<typeof CycleState>;

const file = (ws: string) => path.join(ws, STATE_DIR, 'cycle.json');

export async function readCycle(ws: string): Promise<CycleState | undefined> {
  try {
    const r = CycleState.safeParse(JSON.parse(await fs.readFile(file(ws), 'utf8')));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

export async function saveCycle(ws: string, s: CycleStateInput): Promise<void> {
  const next = CycleState.parse({ ...s, updated_at: new Date().toISOString() });
  await writeJsonAtomic(file(ws), next);
  await appendJsonLine(path.join(ws, STATE_DIR, 'cycles.jsonl'), next);
}
