// The shared cache of GBD instances, addressed by GBD hash and used by every workspace of the user:
// `<cache>/<first two hex digits>/<hash>.cnf`, the hash's canonical CNF (instances/canonicalCnf.ts:
// the clauses the hash names, a header computed from them, no comments), with a `<hash>.json` note of
// where it came from. What a server sends is read strictly and enters only as that canonical form,
// once the GBD hash of what was read is the one asked for: a server's file is never trusted by its
// name, and which server it came from cannot change what another workspace gets. Entries written
// before the cache was canonical are made so from their file on their first use. Downloads resume
// from `<cache>/partial/<hash>.part`, one process per hash at a time (a lock that names its holder,
// gbdLock.ts); a wait on a live holder is said and bounded, and what a killed fetch left in `partial/`
// is swept by the next fetch of the cache (kept only where that fetch resumes it).
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { writeCanonicalCnf, type CanonicalCnf } from '../instances/canonicalCnf';
import { DecoderMemoryError, DimacsError } from '../instances/dimacs';
import { ownerAlive, ownerTag } from '../run/owner';
import { writeJsonAtomic } from '../store/atomic';
import { downloadFile, GbdServerError } from './gbdRoutes';
import { lockLive, tryCacheLock } from './gbdLock';
import type { FetchBounds } from './requestBounds';

/** Where the cache is unless satlution.yaml (`gbd.cache`) or SATLUTION_GBD_CACHE says otherwise. */
export function defaultGbdCacheDir(): string {
  return process.env.SATLUTION_GBD_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'satlution', 'gbd');
}

/** A cached instance's note, `<hash>.json` beside it. */
export const CachedInstance = z.object({
  hash: z.string(),
  /** The server's name for it (Content-Disposition), as sent; never used as a path. */
  name: z.string().nullable(),
  /** The stored file's compression: plain for a canonical entry; older entries kept the server's file as sent. */
  kind: z.enum(['xz', 'gz', 'plain']),
  bytes: z.number().int().nonnegative(),
  server: z.string(),
  fetched_at: z.string(),
  /** The canonical CNF's header (its size is `bytes`); absent in entries from before the cache was canonical (their file is as the server sent it). */
  canonical: z.object({ vars: z.number().int().nonnegative(), clauses: z.number().int().nonnegative() }).optional(),
});
export type CachedInstance = z.infer<typeof CachedInstance>;

/** What a fetch allows a server, and how large a CNF it reads. */
export interface CacheFetchOptions {
  maxBytes: number;
  /** The most a file may decompress to (comments included), bytes. */
  maxCnfBytes: number;
  /** The most memory xz may use to decompress a file, MiB. */
  xzMemMiB?: number;
  bounds: FetchBounds;
  retries?: number;
  /** The longest wait for another live fetch holding this hash's lock, seconds (default 600). */
  lockWaitS?: number;
  signal?: AbortSignal;
  onBytes?: (n: number) => void;
  /** Said when this fetch starts waiting on another's lock, and every minute it goes on. */
  onWait?: (line: string) => void;
  /** Each download attempt that failed in a way worth retrying, with the bytes it added to the file. */
  onAttemptFailed?: (hash: string, error: Error, bytes: number) => void;
  /** Each file downloaded and verified. */
  onDownloaded?: (hash: string) => void;
}

/** A temporary canonical file: `<hash>.<owner tag>.canonical.cnf`, its writer's pid and start time in the name. */
const CANONICAL_TMP = /^([0-9a-f]{32})\.(\d+)(?:-(\d+))?\.canonical\.cnf$/;

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

  /** The cached instance, if its note and a file of the noted size are there (canonical or not). */
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
  async fetch(server: string, hash: string, o: CacheFetchOptions): Promise<CacheHit> {
    const found = await this.lookup(hash);
    if (found?.canonical) return { entry: found, file: this.fileOf(found), downloaded: false, resumed: false };
    const partial = path.join(this.dir, 'partial');
    const lock = path.join(partial, `${hash}.lock`);
    const waitS = o.lockWaitS ?? 600;
    let waitingSince: number | undefined;
    let saidAt = 0;
    for (;;) {
      const held = await tryCacheLock(lock);
      if ('release' in held) {
        try {
          const again = await this.lookup(hash);
          if (again?.canonical) return { entry: again, file: this.fileOf(again), downloaded: false, resumed: false };
          // An entry from before the cache was canonical: made so from its own file (checked as a download is), else fetched again.
          if (again) {
            const made = await this.canonicalFrom(this.fileOf(again), hash, again, { ...o, replaces: again.kind }).catch(() => undefined);
            if (made) return { entry: made.entry, file: made.file, downloaded: false, resumed: false };
          }
          return await this.download(server, hash, path.join(partial, `${hash}.part`), o);
        } finally {
          await held.release();
        }
      }
      // Another live fetch downloads this instance now: wait for it, saying so, then take it from the cache.
      const now = Date.now();
      waitingSince ??= now;
      const waited = (now - waitingSince) / 1000;
      if (waited > waitS)
        throw new Error(
          `gave up after waiting ${waitS} s for ${lock}, held by ${held.said} (gbd.lock_wait_s); if no fetch of this cache runs any more, remove the file`,
        );
      if (now - saidAt >= 60_000) {
        saidAt = now;
        o.onWait?.(`${hash}: waiting for another fetch of this cache to finish it (${held.said}; lock ${lock}; ${waited.toFixed(0)} of at most ${waitS} s)`);
      }
      await delay(300, undefined, o.signal ? { signal: o.signal } : {});
      const theirs = await this.lookup(hash);
      if (theirs?.canonical) return { entry: theirs, file: this.fileOf(theirs), downloaded: false, resumed: false };
    }
  }

  /**
   * Removes what killed fetches left in `partial/`: temporary canonical files of writers no longer
   * running, and partial downloads no live fetch holds, except those of
   * `resume` (the hashes this fetch asks for, which it resumes). Returns how many files went.
   */
  async sweep(resume: ReadonlySet<string>): Promise<number> {
    const partial = path.join(this.dir, 'partial');
    const names = await fs.readdir(partial).catch(() => [] as string[]);
    let removed = 0;
    const rm = async (name: string) => {
      await fs.rm(path.join(partial, name), { force: true });
      removed++;
    };
    for (const name of names) {
      const tmp = CANONICAL_TMP.exec(name);
      if (tmp) {
        if (!ownerAlive(Number(tmp[2]), tmp[3])) await rm(name);
        continue;
      }
      const part = /^([0-9a-f]{32})\.part$/.exec(name);
      if (part) {
        if (!resume.has(part[1]!) && !(await lockLive(path.join(partial, `${part[1]}.lock`)))) await rm(name);
        continue;
      }
      // A lock's private names (being written, moved aside) of a taker no longer running.
      const side = /^[0-9a-f]{32}\.lock\.(\d+)\.(new|stale)$/.exec(name);
      if (side && !ownerAlive(Number(side[1]))) await rm(name);
    }
    // A dead holder's lock stays until a fetch of its hash takes it over (gbdLock.ts): removing it here could race a taker.
    return removed;
  }

  private async download(server: string, hash: string, part: string, o: CacheFetchOptions): Promise<CacheHit> {
    const retries = o.retries ?? 5;
    let resumedAny = false;
    let freshTried = false;
    const size = () =>
      fs.stat(part).then(
        (s) => s.size,
        () => 0,
      );
    for (let attempt = 0; ; attempt++) {
      let got;
      const before = await size();
      try {
        got = await downloadFile(server, hash, part, o);
      } catch (e) {
        if (e instanceof GbdServerError || o.signal?.aborted) throw e;
        // Counted before the retry: a fetch that sees stall after stall ends all its downloads (fetchSet.ts).
        o.onAttemptFailed?.(hash, e as Error, Math.max(0, (await size()) - before));
        if (o.signal?.aborted || attempt >= retries) throw e;
        await delay(Math.min(8000, 500 * 2 ** attempt), undefined, o.signal ? { signal: o.signal } : {});
        continue;
      }
      resumedAny ||= got.resumed;
      try {
        const made = await this.canonicalFrom(part, hash, { name: got.filename, server }, { ...o, consume: true });
        o.onDownloaded?.(hash);
        return { entry: made.entry, file: made.file, downloaded: true, resumed: resumedAny };
      } catch (e) {
        // A resumed file may have been spliced from two versions: try once more from the start.
        if (got.resumed && !freshTried && !o.signal?.aborted) {
          freshTried = true;
          continue;
        }
        throw e;
      } finally {
        await fs.rm(part, { force: true });
      }
    }
  }

  /**
   * Reads `src` strictly into the canonical form of `hash` and keeps it as the entry: refused
   * (GbdServerError, with the reason) when it is no CNF a solver reads the same way, or when what
   * was read has another GBD hash. With `consume`, `src` (a download) is removed before the entry appears;
   * `replaces` names the kind of an older entry's file, which goes once the canonical one is kept.
   */
  private async canonicalFrom(
    src: string,
    hash: string,
    from: Pick<CachedInstance, 'name' | 'server'>,
    o: Pick<CacheFetchOptions, 'maxCnfBytes' | 'xzMemMiB' | 'signal'> & { consume?: boolean; replaces?: CachedInstance['kind'] },
  ): Promise<{ entry: CachedInstance; file: string }> {
    const named = `${hash}${from.name ? ` (${from.name})` : ''}`;
    // Named by its writer (pid and start time), so the sweep of a later fetch can tell when it is left over.
    const tmp = path.join(this.dir, 'partial', `${hash}.${ownerTag()}.canonical.cnf`);
    await fs.mkdir(path.dirname(tmp), { recursive: true });
    let read: CanonicalCnf;
    try {
      read = await writeCanonicalCnf(src, tmp, {
        maxBytes: o.maxCnfBytes,
        ...(o.xzMemMiB !== undefined ? { xzMemMiB: o.xzMemMiB } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
    } catch (e) {
      if (e instanceof DimacsError) throw new GbdServerError(`refused ${named} from ${from.server}: line ${e.line}: ${e.reason}`);
      if (e instanceof DecoderMemoryError)
        throw new GbdServerError(
          `refused ${named} from ${from.server}: xz needs more than the ${e.limitMiB} MiB of memory allowed to decompress it (gbd.xz_mem_mb): its headers ask for a dictionary that large`,
        );
      throw e;
    }
    let kept = false;
    try {
      if (read.gbdHash !== hash) throw new GbdServerError(`refused ${named}: the file ${from.server} sent has the GBD hash ${read.gbdHash}, not ${hash}`);
      // A download is gone before its entry appears: a partial file never stands beside a finished entry.
      if (o.consume) await fs.rm(src, { force: true });
      const bytes = (await fs.stat(tmp)).size;
      if (bytes !== read.bytes) throw new Error(`the canonical file of ${named} has ${bytes} bytes, not the ${read.bytes} written (disk full?)`);
      const entry: CachedInstance = {
        hash,
        name: from.name,
        kind: 'plain',
        bytes,
        server: from.server,
        fetched_at: new Date().toISOString(),
        canonical: { vars: read.vars, clauses: read.clauses },
      };
      const file = this.fileOf(entry);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.chmod(tmp, 0o444);
      await fs.rename(tmp, file);
      kept = true;
      await writeJsonAtomic(path.join(path.dirname(file), `${hash}.json`), entry);
      // An older entry's file under another name (.cnf.xz as sent) goes: the canonical one replaces it.
      if (o.replaces && o.replaces !== entry.kind) await fs.rm(this.fileOf({ hash, kind: o.replaces }), { force: true });
      return { entry, file };
    } finally {
      if (!kept) await fs.rm(tmp, { force: true });
    }
  }
}
