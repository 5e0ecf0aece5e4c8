// The shared cache of GBD instances, addressed by GBD hash and used by every workspace of the user:
// `<cache>/<first two hex digits>/<hash>.cnf.xz` (or .gz / plain, as the server sent it) with a
// `<hash>.json` note of where it came from. A file enters only after its GBD hash, computed from its
// decompressed content, is the one it was asked for: a server's file is never trusted by its name.
// Downloads resume from `<cache>/partial/<hash>.part`, one process per hash at a time (a lock file).
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { gbdHashOfFile } from '../instances/gbdHash';
import { writeJsonAtomic } from '../store/atomic';
import { tryHoldLock } from '../store/lock';
import { downloadFile, GbdServerError } from './gbdRoutes';

/** Where the cache is unless satlution.yaml (`gbd.cache`) or SATLUTION_GBD_CACHE says otherwise. */
export function defaultGbdCacheDir(): string {
  return process.env.SATLUTION_GBD_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'satlution', 'gbd');
}

/** A cached instance's note, `<hash>.json` beside it. */
export const CachedInstance = z.object({
  hash: z.string(),
  /** The server's name for it (Content-Disposition), as sent; never used as a path. */
  name: z.string().nullable(),
  /** The stored file's compression, by its magic bytes. */
  kind: z.enum(['xz', 'gz', 'plain']),
  bytes: z.number().int().nonnegative(),
  server: z.string(),
  fetched_at: z.string(),
});
export type CachedInstance = z.infer<typeof CachedInstance>;

/** How a fetch into the cache went: the entry and its file, and whether it was downloaded now (else found). */
export interface CacheHit {
  entry: CachedInstance;
  file: string;
  downloaded: boolean;
  resumed: boolean;
}

const EXT = { xz: '.cnf.xz', gz: '.cnf.gz', plain: '.cnf' } as const;

/** The cache in one directory. */
export class GbdCache {
  constructor(readonly dir: string) {}

  /** The cached file of `entry`. */
  fileOf(entry: Pick<CachedInstance, 'hash' | 'kind'>): string {
    return path.join(this.dir, entry.hash.slice(0, 2), `${entry.hash}${EXT[entry.kind]}`);
  }

  /** The cached instance, if its note and a file of the noted size are there. */
  async lookup(hash: string): Promise<CachedInstance | undefined> {
    const note = path.join(this.dir, hash.slice(0, 2), `${hash}.json`);
    const parsed = CachedInstance.safeParse(
      await fs.readFile(note, 'utf8').then(
        (t) => JSON.parse(t) as unknown,
        () => undefined,
      ),
    );
    if (!parsed.success || parsed.data.hash !== hash) return undefined;
    const st = await fs.stat(this.fileOf(parsed.data)).catch(() => undefined);
    return st?.isFile() && st.size === parsed.data.bytes ? parsed.data : undefined;
  }

  /**
   * The instance from the cache, else downloaded from `server` (resuming a partial download, retrying
   * dropped connections `retries` times), verified by its GBD hash and stored. A file whose hash is not
   * `hash` is refused (GbdServerError naming both hashes) and removed.
   */
  async fetch(server: string, hash: string, o: { maxBytes: number; retries?: number; signal?: AbortSignal; onBytes?: (n: number) => void }): Promise<CacheHit> {
    const found = await this.lookup(hash);
    if (found) return { entry: found, file: this.fileOf(found), downloaded: false, resumed: false };
    const partial = path.join(this.dir, 'partial');
    const lock = path.join(partial, `${hash}.lock`);
    for (;;) {
      const held = await tryHoldLock(lock);
      if ('release' in held) {
        try {
          const again = await this.lookup(hash);
          if (again) return { entry: again, file: this.fileOf(again), downloaded: false, resumed: false };
          return await this.download(server, hash, path.join(partial, `${hash}.part`), o);
        } finally {
          await held.release();
        }
      }
      // Another process fetches this instance now: wait for it, then take it from the cache.
      await delay(300, undefined, o.signal ? { signal: o.signal } : {});
      const theirs = await this.lookup(hash);
      if (theirs) return { entry: theirs, file: this.fileOf(theirs), downloaded: false, resumed: false };
    }
  }

  private async download(
    server: string,
    hash: string,
    part: string,
    o: { maxBytes: number; retries?: number; signal?: AbortSignal; onBytes?: (n: number) => void },
  ): Promise<CacheHit> {
    const retries = o.retries ?? 5;
    let resumedAny = false;
    let freshTried = false;
    for (let attempt = 0; ; attempt++) {
      let got;
      try {
        got = await downloadFile(server, hash, part, o);
      } catch (e) {
        if (e instanceof GbdServerError || o.signal?.aborted || attempt >= retries) throw e;
        await delay(Math.min(8000, 500 * 2 ** attempt), undefined, o.signal ? { signal: o.signal } : {});
        continue;
      }
      resumedAny ||= got.resumed;
      const actual = await gbdHashOfFile(part).catch((e: Error) => `unreadable (${e.message})`);
      if (actual !== hash) {
        await fs.rm(part, { force: true });
        // A resumed file may have been spliced from two versions: try once more from the start.
        if (got.resumed && !freshTried) {
          freshTried = true;
          continue;
        }
        throw new GbdServerError(`refused ${hash}${got.filename ? ` (${got.filename})` : ''}: the file ${server} sent has the GBD hash ${actual}, not ${hash}`);
      }
      const kind = await kindOf(part);
      const entry: CachedInstance = { hash, name: got.filename, kind, bytes: got.bytes, server, fetched_at: new Date().toISOString() };
      const file = this.fileOf(entry);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.chmod(part, 0o444);
      await fs.rename(part, file);
      await writeJsonAtomic(path.join(path.dirname(file), `${hash}.json`), entry);
      return { entry, file, downloaded: true, resumed: resumedAny };
    }
  }
}

async function kindOf(file: string): Promise<CachedInstance['kind']> {
  const fh = await fs.open(file, 'r');
  try {
    const b = Buffer.alloc(6);
    await fh.read(b, 0, 6, 0);
    if (b[0] === 0x1f && b[1] === 0x8b) return 'gz';
    if (b.equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'xz';
    return 'plain';
  } finally {
    await fh.close();
  }
}
