// A benchmark set's version: one hash of its instances' names and contents, so a measurement can say
// which set it was taken on, and a later reader can tell that the set has changed since.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { InstanceCache } from './instances';
import { cnfFiles } from './sets';

/** A set's identity: its version and how many instances it had. */
export interface SetVersion {
  version: string;
  instances: number;
}

/**
 * Hashes this process computed for files the evaluator's cache does not know yet, by path and stat:
 * the editor asks for the version on every refresh, and a new instance must not be read each time.
 */
const seen = new Map<string, { stat: string; hash: string }>();

async function hashOf(file: string, cache: InstanceCache): Promise<string> {
  const st = await fs.stat(file);
  const stat = `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
  const abs = path.resolve(file);
  const known = seen.get(abs);
  if (known?.stat === stat) return known.hash;
  const hash = await cache.contentHash(abs);
  seen.set(abs, { stat, hash });
  return hash;
}

/**
 * The version of the set in `dir`: sha256 over its sorted instance names with their content hashes
 * (from the evaluator's cache while a file is unchanged). meta.csv is left out: it labels instances
 * but does not change what a solver is timed on. Undefined when the directory cannot be read.
 */
export async function setVersion(dir: string, cache: InstanceCache): Promise<SetVersion | undefined> {
  const files = await cnfFiles(dir);
  if (!files) return undefined;
  // One at a time: a cold cache hashes every file, and a set may hold thousands.
  const lines: string[] = [];
  for (const f of files) lines.push(`${f.name}\0${await hashOf(f.file, cache)}\n`);
  const h = createHash('sha256');
  for (const l of lines.sort()) h.update(l);
  return { version: h.digest('hex').slice(0, 16), instances: files.length };
}
