// Fetches for the hostile-server tests (gbdHostile.test.ts, gbdHangs.test.ts): in this process, or in a
// child of its own (test/fixtures/fetchInChild.ts) where the server must answer from this process's loop.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fetchLimits, fetchSet, type FetchRequest } from '../../src/core/benchmarks/fetchSet';
import type { GbdCache } from '../../src/core/benchmarks/gbdCache';
import { GbdSchema } from '../../src/core/config/schema';
import { ROOT, tempDir } from './helpers';

/** A fetch of `query` into a new workspace's set, with satlution.yaml's gbd defaults changed by `gbd`. */
export function fetchInto(server: string, query: string, cache: GbdCache, gbd: Record<string, unknown> = {}, more: Partial<FetchRequest> = {}) {
  const ws = tempDir('gbd-ws-');
  return fetchSet({ server, query, dir: path.join(ws, 'benchmarks', 'set'), cache, jobs: 2, ...fetchLimits(GbdSchema.parse(gbd)), ...more });
}

/** A fetch in a child process: its outcome and the child's peak resident memory (which starts from this process's at fork). */
export function fetchInChild(args: { server: string; query: string; dir: string; cache: string; gbd?: Record<string, unknown> }, env: NodeJS.ProcessEnv = {}) {
  return new Promise<{ ok: boolean; error?: string; instances?: number; maxRssMb: number }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'out', 'test', 'fixtures', 'fetchInChild.js'), JSON.stringify(args)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [out, err] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()!) as { ok: boolean; error?: string; maxRssMb: number });
      } catch {
        reject(new Error(`the child fetch printed no outcome: ${out} ${err}`));
      }
    });
  });
}
