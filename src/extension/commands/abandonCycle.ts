// "SATLUTION: Abandon Interrupted Cycle": ends a paused (or crashed) cycle for good, so the next Start
// begins a new cycle rather than resuming it. Pause keeps a cycle to resume; Stop cancels the running
// step (the cycle stays resumable); Abandon is the only one that gives the cycle up.
import * as vscode from 'vscode';
import { z } from 'zod';
import { candidateDirName } from '../../core/layout';
import { ABANDONED, AbandonError, abandonCycle, type Abandoned } from '../../core/store/abandonInterrupted';
import { readCycle } from '../../core/store/cycleState';
import type { WorkspaceModel } from '../workspaceModel';

/** Scripted use (tests, other extensions): `{ yes: true }` skips the confirmation. */
const Args = z.object({ yes: z.boolean().optional() }).strict();

export async function abandonCycleCommand(arg: unknown, model: WorkspaceModel): Promise<Abandoned | undefined> {
  const root = model.workspaceRoot;
  if (!root) return undefined;
  const yes = Args.safeParse(arg ?? {}).data?.yes === true;
  const s = await readCycle(root);
  if (!s || s.step === 'done') {
    void vscode.window.showInformationMessage('SATLUTION: no cycle is interrupted; there is nothing to abandon.');
    return undefined;
  }
  if (!yes) {
    const abandon = 'Abandon Cycle';
    const which = s.candidate !== null ? ` ${candidateDirName(s.candidate)} is marked discarded ("${ABANDONED}"); its directory stays.` : '';
    const detail = `Cycle ${s.cycle} stopped before step "${s.step}".${which} The next Start begins a new cycle from the champion instead of resuming this one. This cannot be undone.`;
    if ((await vscode.window.showWarningMessage(`Abandon cycle ${s.cycle}?`, { modal: true, detail }, abandon)) !== abandon) return undefined;
  }
  try {
    const r = await abandonCycle(root);
    await model.refresh();
    const what = r.discarded.length ? `; discarded ${r.discarded.map(candidateDirName).join(', ')}` : '';
    void vscode.window.showInformationMessage(`SATLUTION: cycle ${r.cycle} abandoned${what}. Start begins a new cycle.`);
    return r;
  } catch (e) {
    if (!(e instanceof AbandonError)) throw e;
    void vscode.window.showWarningMessage(`SATLUTION: ${e.message}`);
    return undefined;
  }
}
