// Abandoning an interrupted (paused or crashed) cycle: its unfinished candidates are discarded and the
// cycle is ended the way the engine ends one, so the next Start begins a new cycle instead of resuming.
import * as path from 'node:path';
import { STATE_DIR } from '../layout';
import { CandidateStore, type CandidateStatus } from './candidates';
import { readCycle, saveCycle, type CycleState } from './cycleState';
import { tryHoldLock } from './lock';

/** The reason recorded on the abandoned cycle and on its discarded candidates. */
export const ABANDONED = 'abandoned by the user';

/** Statuses a cycle's candidate keeps when its cycle is abandoned: they are already decided. */
const SETTLED: ReadonlySet<CandidateStatus> = new Set(['failed', 'discarded', 'seed']);

/** Why nothing was abandoned, in words a person can act on. */
export class AbandonError extends Error {}

/** What was abandoned: the cycle's number and the candidates marked discarded. */
export interface Abandoned {
  cycle: number;
  discarded: number[];
}

/**
 * Ends the interrupted cycle of `ws`. Refuses while a cycle runs (its process holds cycle.lock, the
 * lock the engine takes) and when no cycle is interrupted. The champion is never discarded.
 */
export async function abandonCycle(ws: string): Promise<Abandoned> {
  const lock = await tryHoldLock(path.join(ws, STATE_DIR, 'cycle.lock'));
  if ('heldBy' in lock) throw new AbandonError(`a cycle is running (pid ${lock.heldBy}); stop it first, then abandon it`);
  try {
    const s = await readCycle(ws);
    if (!s || s.step === 'done') throw new AbandonError('no cycle is interrupted: there is nothing to abandon');
    const store = new CandidateStore(ws);
    const { index } = await store.load();
    const discarded: number[] = [];
    for (const id of cycleCandidates(s)) {
      const rec = index.candidates.find((c) => c.id === id);
      if (!rec || id === index.champion || SETTLED.has(rec.status)) continue;
      await store.setStatus(id, 'discarded', ABANDONED);
      discarded.push(id);
    }
    // The same record the engine's end() leaves: step done, with why; cycles.jsonl gets the line too.
    await saveCycle(ws, { ...s, step: 'done', outcome: ABANDONED });
    return { cycle: s.cycle, discarded };
  } finally {
    await lock.release();
  }
}

/** The candidates a cycle made: its current one and its proposals so far. */
function cycleCandidates(s: CycleState): number[] {
  return [...new Set([...(s.candidate === null ? [] : [s.candidate]), ...s.proposals.map((p) => p.candidate)])];
}
