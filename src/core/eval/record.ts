// After an evaluation of a workspace candidate: keep the document (EvalStore), set the candidate's
// status, and run the rule post-mortem. Called by the evaluation service only (service.ts).
import { parseCandidateDir } from '../layout';
import { postmortem, type RulePatch } from '../rules/evolution';
import { CandidateStore } from '../store/candidates';
import type { EvalDoc } from './evalDoc';
import { EvalStore } from './evalStore';

/** Where the document went, and the rule patches the post-mortem proposed. */
export interface Recorded {
  file: string;
  patches: RulePatch[];
}

/** Records a candidate's evaluation; undefined when the solver is not a candidate of this workspace. */
export async function recordEvaluation(workspaceDir: string, solverDir: string, doc: EvalDoc): Promise<Recorded | undefined> {
  const evals = new EvalStore(workspaceDir);
  const candidate = evals.candidateOf(solverDir);
  if (!candidate) return undefined;
  const file = await evals.write(candidate, doc);
  const id = parseCandidateDir(candidate)!;
  const store = new CandidateStore(workspaceDir);
  const rec = (await store.load()).index.candidates.find((c) => c.id === id);
  if (rec && rec.status !== 'seed') {
    const failed = doc.gates.find((g) => !g.ok);
    await store.setStatus(id, failed ? 'failed' : 'evaluated', failed ? `failed the ${failed.gate} gate: ${failed.detail}` : undefined);
  }
  return { file, patches: await postmortem(workspaceDir, candidate, doc) };
}
