// A new candidate from a parent (by default the champion): the record first, then a copy of the
// parent's directory with fresh documents to fill in. The cycle engine and a person editing by hand
// both start a challenger this way.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { placeholderResults, RESULTS_FILE } from './resultsFile';
import { CandidateStore, type CandidateRecord } from '../store/candidates';
import { candidateDirName } from '../layout';

/**
 * Absolute links a build wrote into the parent (kissat's configure links `src/makefile` to
 * `<dir>/makefile`) would point the copy back into its parent, which its sandboxed build cannot see
 * (and should not use): each is re-pointed at the same place inside the copy.
 */
export async function retargetLinks(copy: string, from: string, to: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(copy, { withFileTypes: true, recursive: true })) {
    if (!e.isSymbolicLink()) continue;
    const link = path.join(e.parentPath, e.name);
    const target = await fs.readlink(link);
    const rel = path.relative(from, target);
    if (!path.isAbsolute(target) || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    await fs.rm(link);
    await fs.symlink(path.join(to, rel), link);
    n++;
  }
  return n;
}

export async function newCandidate(workspaceDir: string, opts: { parent?: number; title?: string } = {}): Promise<CandidateRecord> {
  const store = new CandidateStore(workspaceDir);
  const { index } = await store.load();
  const parent = opts.parent ?? index.champion;
  if (parent === null || parent === undefined) throw new Error('there is no champion to start from; name a parent');
  const parentRec = index.candidates.find((c) => c.id === parent);
  if (!parentRec) throw new Error(`${candidateDirName(parent)} is not a known candidate`);
  const parentDir = path.join(workspaceDir, parentRec.dir);
  if (!(await fs.stat(parentDir).then((s) => s.isDirectory(), () => false))) throw new Error(`${parentRec.dir} has no directory to copy`);
  const rec = await store.create({ parent, status: 'coding' }); // a crash after this leaves a record marked missing, never an orphan
  const dir = path.join(workspaceDir, rec.dir);
  const staging = path.join(workspaceDir, `.${rec.dir}.partial`);
  await fs.rm(staging, { recursive: true, force: true });
  await fs.cp(parentDir, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  await retargetLinks(staging, parentDir, dir);
  const title = opts.title ?? '(describe the change)';
  await fs.writeFile(path.join(staging, 'HYPOTHESIS.md'), `# ${rec.dir}: ${title}\n\n## Change\n\n## Rationale\n\n## Expected effect\n(on SAT, UNSAT and PAR-2)\n\n## Risks\n`);
  await fs.writeFile(path.join(staging, 'CHANGELOG.md'), `# Changelog\n\n## ${rec.dir} (from ${parentRec.dir})\n- \n`);
  await fs.writeFile(path.join(staging, RESULTS_FILE), placeholderResults(rec.dir));
  await fs.rename(staging, dir);
  return rec;
}
