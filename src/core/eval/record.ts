// After an evaluation of a workspace candidate: keep the evaluation, set the candidate's status, and
// run the rule post-mortem. One place, so the CLI and the editor record the same things.
import * as path from 'node:path';
import { postmortem, type RulePatch } from '../rules/evolution';
import { CandidateStore } from '../store/candidates';
import { parseCandidateDir } from '../layout';
import { saveCandidateEvaluation, type EvalJson } from './plan';

export interface Recorded {
  file: string;
  patches: RulePatch[];
}

export async function recordEvaluation(workspaceDir: string, solverDir: string, json: EvalJson): Promise<Recorded | undefined> {
  const file = await saveCandidateEvaluation(workspaceDir, solverDir, json);
  if (!file) return undefined; // not a candidate of this workspace
  const candidate = path.basename(solverDir);
  const id = parseCandidateDir(candidate)!;
  const store = new CandidateStore(workspaceDir);
  const rec = (await store.load()).index.candidates.find((c) => c.id === id);
  if (rec && rec.status !== 'seed') {
    const failed = json.gates.find((g) => !g.ok);
    await store.setStatus(id, failed ? 'failed' : 'evaluated', failed ? `failed the ${failed.gate} gate: ${failed.detail}` : undefined);
  }
  return { file, patches: await postmortem(workspaceDir, candidate, json) };
}
