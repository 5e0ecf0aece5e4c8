// What "open log" shows for one candidate on one instance: the run's log file when the evaluator kept
// one, else a text built from the stored result (status, detail, wall and CPU time, check) that says
// the output was not kept (the run was reused from the results store, or ran before logs were written).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatRunLog, LOGS_DIR, runLogPath } from '../run/runLog';
import { parseCandidateDir, STATE_DIR } from '../layout';
import { EvalStore } from '../eval/evalStore';
import { readEvalLeniently, type ParsedEval } from './read';

export type InstanceLog = { kind: 'file'; file: string } | { kind: 'text'; text: string };

export async function instanceLog(ws: string, dir: string, instance: string, evaluation?: ParsedEval): Promise<InstanceLog> {
  if (parseCandidateDir(dir) === undefined) return { kind: 'text', text: `${dir} is not a candidate directory.\n` };
  let e = evaluation;
  if (!e) {
    const r = await readEvalLeniently(new EvalStore(ws), dir);
    if (!r.ok) return { kind: 'text', text: `# ${instance}\n\n${dir} has no readable evaluation (${r.reason}).\n` };
    e = r.value;
  }
  const result = e.results.find((r) => r.instance === instance);
  if (!result) return { kind: 'text', text: `# ${instance}\n\nThe latest evaluation of ${dir} has no result on ${instance}.\n` };
  const file = e.solverHash ? runLogPath(path.join(ws, STATE_DIR, LOGS_DIR), e.solverHash, instance) : undefined;
  if (
    file &&
    (await fs.stat(file).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    return { kind: 'file', file };
  return {
    kind: 'text',
    text: formatRunLog({
      result,
      timeoutS: e.timeoutS,
      memMb: e.memMb,
      at: e.evaluatedAt ?? '(unknown)',
      ...(e.solverHash ? { solverHash: e.solverHash } : {}),
    }),
  };
}
