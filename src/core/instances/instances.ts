// The instances of a benchmark set, with their family and known answer from meta.csv, and their
// preparation for a run: content hash (cached), validation (cached), and decompression of .gz/.xz
// into a cache, as StarExec's preprocessor does, so solvers only ever read plain DIMACS.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { writeJsonAtomic } from '../store/atomic';
import { openCnf, readDimacs } from './dimacs';
import { MetaError, readMeta } from './metaCsv';
import { CNF_FILE } from './sets';

export interface InstanceSpec {
  /** Path relative to the set directory (the name results use). */
  name: string;
  file: string;
  family: string | null;
  expected: 'SAT' | 'UNSAT' | null;
  /** How `expected` was proved here (meta.csv's `proved`); null: it is a claim. */
  proved?: string | null;
  /** The claim a proof replaced (meta.csv's `disputed`). */
  disputed?: string | null;
}

/** Lists a set's CNF files (recursively, sorted) with meta.csv's family and expected answer. */
export async function listSet(dir: string): Promise<InstanceSpec[]> {
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new MetaError(`benchmark set ${dir} is not a directory`);
  const meta = await readMeta(path.join(dir, 'meta.csv'));
  const files = (await fs.readdir(dir, { withFileTypes: true, recursive: true }))
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && CNF_FILE.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
  const names = files.map((file) => path.relative(dir, file).split(path.sep).join('/'));
  // A row names an instance by its path in the set, or by its file name when that is unique: a row
  // that names nothing, or two instances, would leave an answer unused or misapplied without a word.
  const used = new Map<string, string>();
  for (const [key, row] of meta) {
    const hits = names.filter((n) => n === key || (!key.includes('/') && !meta.has(n) && path.posix.basename(n) === key));
    if (!hits.length) throw new MetaError(`${row.at}: names ${key}, which is not in the set ${dir} (a typo leaves an instance without its answer)`);
    if (hits.length > 1) throw new MetaError(`${row.at}: ${key} matches ${hits.join(' and ')}: name each by its path in the set`);
    used.set(hits[0]!, key);
  }
  return files.map((file, i) => {
    const name = names[i]!;
    const key = used.get(name);
    const m = key === undefined ? undefined : meta.get(key);
    return { name, file, family: m?.family || null, expected: m?.expected ?? null, proved: m?.proved ?? null, disputed: m?.disputed ?? null };
  });
}

export interface PreparedInstance {
  hash: string;
  /** A plain DIMACS file the solver and the checkers read. */
  plain: string;
  vars: number;
  clauses: number;
  bytes: number;
  emptyClause: boolean;
}

const CacheEntry = z.object({
  size: z.number(),
  mtimeMs: z.number(),
  ctimeMs: z.number().optional(),
  ino: z.number().optional(),
  hash: z.string(),
  vars: z.number(),
  clauses: z.number(),
  bytes: z.number(),
  emptyClause: z.boolean(),
});
type CacheEntry = z.infer<typeof CacheEntry>;

/** Hashes, validates and decompresses instances once; later evaluations reuse what is cached. */
export class InstanceCache {
  private index: Map<string, CacheEntry> | undefined;
  private dirty = false;

  constructor(private readonly dir: string) {}

  private loading: Promise<Map<string, CacheEntry>> | undefined;

  /** Loads the index once, however many prepare() calls start at the same time. */
  private load(): Promise<Map<string, CacheEntry>> {
    this.loading ??= this.readIndex();
    return this.loading;
  }

  private async readIndex(): Promise<Map<string, CacheEntry>> {
    const raw = await fs.readFile(path.join(this.dir, 'instances.json'), 'utf8').catch(() => '{}');
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      /* a damaged cache is only a cache */
    }
    this.index = new Map();
    for (const [k, v] of Object.entries(parsed)) {
      const e = CacheEntry.safeParse(v);
      if (e.success) this.index.set(k, e.data);
    }
    return this.index;
  }

  async prepare(file: string): Promise<PreparedInstance> {
    const index = await this.load();
    const st = await fs.stat(file);
    const abs = path.resolve(file);
    let e = index.get(abs);
    // ctime and inode too: a rewrite that keeps the size and sets the old mtime back still changes them.
    if (!e || e.size !== st.size || e.mtimeMs !== st.mtimeMs || e.ctimeMs !== st.ctimeMs || e.ino !== st.ino) {
      const hash = await hashFile(abs);
      const summary = await readDimacs(abs); // throws DimacsError with file:line
      e = {
        size: st.size,
        mtimeMs: st.mtimeMs,
        ctimeMs: st.ctimeMs,
        ino: st.ino,
        hash,
        vars: summary.vars,
        clauses: summary.clauses,
        bytes: summary.bytes,
        emptyClause: summary.emptyClause,
      };
      index.set(abs, e);
      this.dirty = true;
    }
    let plain = abs;
    if (!abs.endsWith('.cnf') || (await isCompressed(abs))) {
      plain = path.join(this.dir, 'cnf', `${e.hash}.cnf`);
      if (
        !(await fs.stat(plain).then(
          (s) => s.size === e!.bytes,
          () => false,
        ))
      ) {
        await fs.mkdir(path.dirname(plain), { recursive: true });
        const tmp = `${plain}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        const { stream, done } = await openCnf(abs);
        await pipeline(stream, createWriteStream(tmp));
        await done;
        // Never hand a solver a short file: the decompressed size must be what the parser counted.
        const written = (await fs.stat(tmp)).size;
        if (written !== e.bytes) {
          await fs.rm(tmp, { force: true });
          throw new Error(`decompressing ${abs} gave ${written} bytes, expected ${e.bytes}; try again or decompress it by hand`);
        }
        await fs.rename(tmp, plain);
      }
    }
    return { hash: e.hash, plain, vars: e.vars, clauses: e.clauses, bytes: e.bytes, emptyClause: e.emptyClause };
  }

  /** The content hash of `file`: the cached one while the file is unchanged, else hashed now (the index is left as it is: readers must not race the evaluator's writes). */
  async contentHash(file: string): Promise<string> {
    const index = await this.load();
    const st = await fs.stat(file);
    const abs = path.resolve(file);
    const e = index.get(abs);
    if (e && e.size === st.size && e.mtimeMs === st.mtimeMs && e.ctimeMs === st.ctimeMs && e.ino === st.ino) return e.hash;
    return hashFile(abs);
  }

  async save(): Promise<void> {
    if (!this.dirty || !this.index) return;
    await writeJsonAtomic(path.join(this.dir, 'instances.json'), Object.fromEntries(this.index));
    this.dirty = false;
  }
}

async function isCompressed(file: string): Promise<boolean> {
  const fh = await fs.open(file, 'r');
  try {
    const b = Buffer.alloc(2);
    await fh.read(b, 0, 2, 0);
    return (b[0] === 0x1f && b[1] === 0x8b) || (b[0] === 0xfd && b[1] === 0x37);
  } finally {
    await fh.close();
  }
}

export async function hashFile(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}
