// A lock file shared by every process that writes the store (the extension and CLI runs in a
// terminal). A lock whose owner process is gone is taken over, so a crash never wedges the store.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { processAlive } from './atomic';

const LOCK = 'store.lock';

export async function withLock<T>(dir: string, f: () => Promise<T>, timeoutMs = 15000): Promise<T> {
  const file = path.join(dir, LOCK);
  await fs.mkdir(dir, { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      const fh = await fs.open(file, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (await isStale(file)) {
        await fs.rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`the store in ${dir} stayed locked for ${timeoutMs / 1000} s (${file})`, { cause: e });
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  try {
    return await f();
  } finally {
    await fs.rm(file, { force: true });
  }
}

async function isStale(file: string): Promise<boolean> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) {
    // Empty: the owner may be between open and write; only a lock that stays empty is stale.
    const st = await fs.stat(file).catch(() => undefined);
    return !st || Date.now() - st.mtimeMs > 2000;
  }
  return !processAlive(pid);
}

/**
 * A lock held for as long as a long task runs (an evolution cycle), not waited for: it is either taken
 * now or reported with the live process that holds it. A dead holder's lock is taken over.
 */
export async function tryHoldLock(file: string): Promise<{ release(): Promise<void> } | { heldBy: number }> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fh = await fs.open(file, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      return { release: () => fs.rm(file, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (await isStale(file)) await fs.rm(file, { force: true });
      else return { heldBy: Number(await fs.readFile(file, 'utf8').catch(() => '0')) || 0 };
    }
  }
  throw new Error(`could not take the lock ${file}`);
}
