// Promote a candidate to champion, or discard it, by a person's decision from the Cycles view. Both
// are recorded in the candidate store like the engine's own decisions; nothing on disk is deleted.
import * as vscode from 'vscode';
import { CandidateStore } from '../../core/store/candidates';
import { pickCandidate } from './pickCandidate';
import { refuseMissing } from './missingCandidate';
import type { WorkspaceModel } from '../workspaceModel';

export async function promoteCandidate(arg: unknown, model: WorkspaceModel, o: { yes?: boolean } = {}): Promise<boolean> {
  const c = await pickCandidate(model, arg, { title: 'SATLUTION: Promote to Champion', filter: (x) => !x.champion });
  const root = model.workspaceRoot;
  if (!c || !root || refuseMissing(c, 'promote')) return false;
  if (c.champion) {
    void vscode.window.showInformationMessage(`SATLUTION: ${c.dir} is already the champion.`);
    return false;
  }
  const passed = c.status === 'verified' || c.status === 'evaluated' || c.status === 'seed';
  if (!o.yes) {
    const promote = 'Promote';
    const detail = passed
      ? 'Later cycles will start from this candidate.'
      : `Its status is "${c.status}": it has not passed the correctness gates. Later cycles would evolve unverified code.`;
    const a = await vscode.window.showWarningMessage(`Make ${c.dir} the champion?`, { modal: true, detail }, promote);
    if (a !== promote) return false;
  }
  await new CandidateStore(root).setChampion(c.id);
  await model.refresh();
  return true;
}

export async function discardCandidate(arg: unknown, model: WorkspaceModel, o: { yes?: boolean } = {}): Promise<boolean> {
  const c = await pickCandidate(model, arg, { title: 'SATLUTION: Discard Candidate', filter: (x) => !x.champion && x.status !== 'discarded' && !x.seed });
  const root = model.workspaceRoot;
  if (!c || !root) return false;
  if (c.champion || c.seed) {
    void vscode.window.showWarningMessage(
      `SATLUTION: ${c.dir} is ${c.champion ? 'the champion' : 'a seed baseline'}; promote another candidate before discarding it.`,
    );
    return false;
  }
  if (!o.yes) {
    const discard = 'Discard';
    const a = await vscode.window.showWarningMessage(
      `Discard ${c.dir}?`,
      { modal: true, detail: 'It is marked discarded and no longer considered; its directory and records stay for the post-mortem.' },
      discard,
    );
    if (a !== discard) return false;
  }
  await new CandidateStore(root).setStatus(c.id, 'discarded', 'discarded by a person');
  await model.refresh();
  return true;
}
