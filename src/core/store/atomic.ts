// Crash-safe file writes: a reader sees the old content or the new content, never a torn mix.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/** Writes to a temporary file in the same directory, fsyncs it, then renames it over the target. */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await fs.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await syncDir(dir);
}

export const writeJsonAtomic = (file: string, value: unknown): Promise<void> => writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');

/** Appends one JSON line and fsyncs it, so a record that returned is on disk. */
export async function appendJsonLine(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const fh = await fs.open(file, 'a');
  try {
    await fh.appendFile(JSON.stringify(value) + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Reads a JSONL file, skipping lines that do not parse (a line torn by a crash is always the last
 * one written, but a damaged file should still yield every intact record).
 */
export async function readJsonLines(file: string): Promise<{ records: unknown[]; skipped: number }> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], skipped: 0 };
    throw e;
  }
  const records: unknown[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      skipped++;
    }
  }
  return { records, skipped };
}

/** Whether a process with this id is running (on this machine). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes temporary files left by writes that were killed before their rename. A temporary file of a
 * live process (its id is in the name) is a write in progress, possibly this process's own: kept.
 */
export async function removeStaleTemps(dir: string): Promise<number> {
  let n = 0;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const m = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name);
    if (!m || processAlive(Number(m[1]))) continue;
    await fs.rm(path.join(dir, name), { force: true });
    n++;
  }
  return n;
}

async function syncDir(dir: string): Promise<void> {
  // Makes the rename itself durable; not every filesystem allows opening a directory.
  const fh = await fs.open(dir, 'r').catch(() => undefined);
  if (!fh) return;
  await fh.sync().catch(() => undefined);
  await fh.close();
}
