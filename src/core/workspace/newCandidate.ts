// A new candidate from a parent (by default the champion): the record first, then a copy of the
// parent's directory (candidateCopy.ts: links kept only inside, absolute ones made relative) with
// fresh documents to fill in. The cycle engine and a person editing by hand both start a challenger
// this way.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { copyCandidate } from './candidateCopy';
import { writeCandidateDoc } from './candidateFs';
import { placeholderResults, RESULTS_FILE } from './resultsFile';
import { CandidateStore, type CandidateRecord } from '../store/candidates';
import { processAlive } from '../store/atomic';
import { candidateDirName } from '../layout';

export async function newCandidate(workspaceDir: string, opts: { parent?: number; title?: string } = {}): Promise<CandidateRecord> {
  const store = new CandidateStore(workspaceDir);
  const { index } = await store.load();
  const parent = opts.parent ?? index.champion;
  if (parent === null || parent === undefined) throw new Error('there is no champion to start from; name a parent');
  const parentRec = index.candidates.find((c) => c.id === parent);
  if (!parentRec) throw new Error(`${candidateDirName(parent)} is not a known candidate`);
  const parentDir = path.join(workspaceDir, parentRec.dir);
  if (
    !(await fs.stat(parentDir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw new Error(`${parentRec.dir} has no directory to copy`);
  await removeDeadCopies(workspaceDir);
  // The copy comes first, under a name of its own: a parent the copy refuses (a link out, a FIFO) leaves no record behind.
  const staging = path.join(workspaceDir, `.new-candidate-${process.pid}-${randomBytes(4).toString('hex')}.partial`);
  try {
    await copyCandidate(parentDir, staging);
  } catch (e) {
    await fs.rm(staging, { recursive: true, force: true });
    throw new Error(`a new candidate cannot be made from ${parentRec.dir}: ${(e as Error).message}`, { cause: e });
  }
  const rec = await store.create({ parent, status: 'coding' }); // a crash after this leaves a record marked missing, never an orphan
  try {
    // The parent's documents may be links (to anything, or to the copy's own sources): replaced, not written through.
    const title = opts.title ?? '(describe the change)';
    await writeCandidateDoc(
      staging,
      'HYPOTHESIS.md',
      `# ${rec.dir}: ${title}\n\n## Change\n\n## Rationale\n\n## Expected effect\n(on SAT, UNSAT and PAR-2)\n\n## Risks\n`,
    );
    await writeCandidateDoc(staging, 'CHANGELOG.md', `# Changelog\n\n## ${rec.dir} (from ${parentRec.dir})\n- \n`);
    await writeCandidateDoc(staging, RESULTS_FILE, placeholderResults(rec.dir));
    await fs.rename(staging, path.join(workspaceDir, rec.dir));
  } catch (e) {
    await fs.rm(staging, { recursive: true, force: true });
    throw e;
  }
  return rec;
}

/** Copies left by a process that was killed while making a candidate (its pid is in the name): removed. */
async function removeDeadCopies(workspaceDir: string): Promise<void> {
  for (const name of await fs.readdir(workspaceDir).catch(() => [] as string[])) {
    const m = /^\.new-candidate-(\d+)-[0-9a-f]{8}\.partial$/.exec(name);
    if (m && !processAlive(Number(m[1]))) await fs.rm(path.join(workspaceDir, name), { recursive: true, force: true });
  }
}
