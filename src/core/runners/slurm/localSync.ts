// Puts what a batch needs into a shared workdir on this machine, in the layout the SSH sync uses
// (worker-<hash>.js, solvers/<solverHash>/, instances/<hash>.cnf), each copied once and renamed
// into place, so compute nodes never read the workspace itself (it may not be on the shared
// filesystem, and a candidate edited during the run must not change what is measured).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { SyncRequest, Synced } from '../sshSync';
import { copyCandidate } from '../../workspace/candidateCopy';

export async function syncToLocalDir(root: string, req: Omit<SyncRequest, 'workdir'>): Promise<Synced> {
  const workerHash = createHash('sha256')
    .update(await fs.readFile(req.workerFile))
    .digest('hex')
    .slice(0, 16);
  const worker = `worker-${workerHash}.js`;
  const solver = req.solverHash ? `solvers/${req.solverHash}` : '';
  const instance = (h: string) => `instances/${h}.cnf`;
  await fs.mkdir(path.join(root, 'solvers'), { recursive: true });
  await fs.mkdir(path.join(root, 'instances'), { recursive: true });
  let uploaded = 0;
  const exists = (rel: string) =>
    fs.access(path.join(root, rel)).then(
      () => true,
      () => false,
    );
  const place = async (rel: string, copy: (tmp: string) => Promise<void>) => {
    if (await exists(rel)) return;
    const tmp = path.join(root, `${rel}.part-${process.pid}`);
    await fs.rm(tmp, { recursive: true, force: true });
    await copy(tmp);
    // Another process may have placed it meanwhile: theirs is identical (same hash), keep it.
    await fs.rename(tmp, path.join(root, rel)).catch(() => fs.rm(tmp, { recursive: true, force: true }));
    uploaded++;
  };
  await place(worker, (tmp) => fs.copyFile(req.workerFile, tmp));
  // The safe copy: links kept only inside (absolute ones made relative, so the copy never reads the workspace), nothing written through.
  const solverDir = req.solverDir;
  if (solver && solverDir) await place(solver, async (tmp) => void (await copyCandidate(solverDir, tmp)));
  for (const i of req.instances) {
    req.signal?.throwIfAborted();
    await place(instance(i.hash), (tmp) => fs.copyFile(i.file, tmp));
  }
  return { worker, solver, instance, uploaded };
}
