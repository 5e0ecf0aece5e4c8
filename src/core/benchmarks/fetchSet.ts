// `satlution benchmarks fetch QUERY --set NAME`: the instances a GBD query selects, fetched through
// the shared cache (gbdCache.ts: each read strictly, verified by its GBD hash and kept in canonical
// form), become the benchmark set NAME of a workspace: linked into `benchmarks/.NAME.fetching/`, which is
// renamed to `benchmarks/NAME` only once every instance is there, with `meta.csv` (the server's `result`
// attribute, asked as `(QUERY) and result=sat` / `unsat`: claims, which no answer is judged by alone;
// run/runInstance.ts; each instance's family from a GBD database, gbdDatabase.ts) and `gbd-source.json`
// (where each instance and the families came from). Every request is bounded
// (requestBounds.ts), and a server that stalls or fails download after download ends the whole fetch
// early (gbd.max_stalls) instead of each file being retried to its end. A killed or failed fetch leaves
// no set, only verified files in the cache and the staging directory, and partial downloads the next
// fetch resumes or sweeps: run it again.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config/schema';
import { writeFileAtomic, writeJsonAtomic } from '../store/atomic';
import { queryHashes, GbdServerError } from './gbdRoutes';
import { boundedGet, mb } from './requestBounds';
import type { GbdCache } from './gbdCache';
import { fetchBounds, type FetchBounds } from './requestBounds';
import { formatMeta } from '../instances/metaCsv';
import { databaseFamilies, FAMILY_NAME, GbdDatabaseError } from './gbdDatabase';

/** What a fetched set records of its origin (`gbd-source.json` in the set). */
export const GbdSource = z.object({
  server: z.string(),
  query: z.string(),
  fetched_at: z.string(),
  /** Why the answers are what they are: asked with `result=sat` / `result=unsat`, or not available. */
  answers: z.string(),
  instances: z.array(
    z.object({
      hash: z.string(),
      file: z.string(),
      /** The server's name for it, as sent. */
      name: z.string().nullable(),
      bytes: z.number().int().nonnegative(),
      expected: z.enum(['SAT', 'UNSAT']).nullable(),
      family: z.string().nullable(),
    }),
  ),
  /** Where the families came from (absent in sets fetched before they were read from a database). */
  families: z.string().optional(),
});
export type GbdSource = z.infer<typeof GbdSource>;

/** The file a set's provenance is kept in. */
export const SOURCE_FILE = 'gbd-source.json';

/** What to fetch, from where, into which set. */
export interface FetchRequest {
  server: string;
  query: string;
  /** The set's directory (benchmarks/NAME of the workspace). */
  dir: string;
  cache: GbdCache;
  /** At most this many instances (the first the server lists). */
  limit?: number;
  /** Downloads at a time. */
  jobs: number;
  /** The largest file (compressed) and the most it may decompress to, bytes. */
  maxBytes: number;
  maxCnfBytes: number;
  /** The most memory xz may use on one file, MiB. */
  xzMemMiB?: number;
  /** Failed download attempts in a row (each under STRIKE_BYTES) that end the whole fetch (default 3). */
  maxStalls?: number;
  /** The longest wait on another live fetch's lock of one instance, seconds. */
  lockWaitS?: number;
  /** What the server's requests may take (fetchLimits). */
  bounds: FetchBounds;
  /** Attempts again after a dropped or stalled download (default 5). */
  retries?: number;
  /** The family of every instance: given, else each one's from the database (`familiesFile`, else the server's `familiesDatabase`), else the query's `family=X` when it has one. */
  family?: string;
  /** A GBD database file to read families from instead of the server's. */
  familiesFile?: string;
  /** The server's database to read families from (/getdatabase/NAME); empty or absent: none. */
  familiesDatabase?: string;
  /** The largest database read, bytes. */
  maxDbBytes?: number;
  /** Replace a set of that name that is already there. */
  replace?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: FetchProgress) => void;
  log?: (line: string) => void;
}

/** Progress of a fetch: instances done (from the cache or downloaded) of all, and bytes downloaded so far. */
export interface FetchProgress {
  done: number;
  of: number;
  downloaded: number;
  fromCache: number;
  bytes: number;
  /** The instance that just finished. */
  last: string;
  /** What this fetch waits for, while it waits on another fetch of the cache; else null. */
  waiting: string | null;
}

/** A failed attempt that brought at least this much is progress, not a stall: it resets the count. */
export const STRIKE_BYTES = 1e6;

/** How a fetch ended. */
export interface FetchOutcome {
  dir: string;
  instances: number;
  downloaded: number;
  fromCache: number;
  resumed: number;
  bytes: number;
  seconds: number;
  answers: { sat: number; unsat: number; unknown: number };
}

/** A fetch that could not complete: what was refused or failed, and what is kept for the next try. */
export class FetchIncomplete extends Error {
  constructor(
    message: string,
    readonly failures: readonly { hash: string; reason: string }[],
  ) {
    super(message);
  }
}

/** The limits of satlution.yaml's `gbd` section, as a fetch takes them (the CLI and the editor alike). */
export function fetchLimits(
  gbd: Config['gbd'],
): Pick<FetchRequest, 'maxBytes' | 'maxCnfBytes' | 'xzMemMiB' | 'maxStalls' | 'lockWaitS' | 'bounds' | 'familiesDatabase' | 'maxDbBytes'> {
  return {
    maxBytes: gbd.max_mb * 1e6,
    maxCnfBytes: gbd.max_cnf_mb * 1e6,
    xzMemMiB: gbd.xz_mem_mb,
    maxStalls: gbd.max_stalls,
    lockWaitS: gbd.lock_wait_s,
    bounds: fetchBounds(gbd),
    familiesDatabase: gbd.families_database,
    maxDbBytes: gbd.max_db_mb * 1e6,
  };
}

/** Fetches the query's instances into the set `req.dir` (see the file's comment). */
export async function fetchSet(req: FetchRequest): Promise<FetchOutcome> {
  const t0 = Date.now();
  const log = req.log ?? (() => undefined);
  const name = path.basename(req.dir);
  if (await exists(req.dir)) {
    if (!req.replace) throw new GbdServerError(`the set ${name} is already there (${req.dir}): choose another name, or replace it (--replace)`);
  }
  let hashes = await queryHashes(req.server, req.query, req.bounds, req.signal);
  if (!hashes.length) throw new GbdServerError(`the query "${req.query}" selects no instance on ${req.server}`);
  if (req.limit !== undefined && hashes.length > req.limit) {
    log(`${hashes.length} instances; taking the first ${req.limit} (--limit)`);
    hashes = hashes.slice(0, req.limit);
  }
  const { expected, answers } = await answersOf(req, new Set(hashes));
  if (req.family !== undefined && !FAMILY_NAME.test(req.family))
    throw new GbdServerError(`a family name may use letters, digits and . _ + - only: ${req.family}`);
  const fromDb = req.family === undefined ? await familiesOf(req, new Set(hashes)) : { families: new Map<string, string>(), said: 'given (--family)' };
  const fallback = req.family ?? familyOf(req.query);
  const familyOfHash = (hash: string) => fromDb.families.get(hash) ?? fallback;
  const staging = path.join(path.dirname(req.dir), `.${name}.fetching`);
  await fs.mkdir(staging, { recursive: true });

  const swept = await req.cache.sweep(new Set(hashes));
  if (swept) log(`removed ${swept} file(s) that killed fetches left in ${path.join(req.cache.dir, 'partial')}`);

  const rows: GbdSource['instances'] = [];
  const failures: { hash: string; reason: string }[] = [];
  const progress: FetchProgress = { done: 0, of: hashes.length, downloaded: 0, fromCache: 0, bytes: 0, last: '', waiting: null };
  // One stop for every download: the caller's cancel, or a server that stalls attempt after attempt.
  const stop = new AbortController();
  const onCancel = () => stop.abort(req.signal?.reason);
  if (req.signal?.aborted) onCancel();
  req.signal?.addEventListener('abort', onCancel, { once: true });
  const streak = stallStreak(req.maxStalls ?? 3, req.server, (why) => stop.abort(new GbdServerError(why)));
  let resumed = 0;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < hashes.length; i = next++) {
      if (stop.signal.aborted) return;
      const hash = hashes[i]!;
      try {
        const hit = await req.cache.fetch(req.server, hash, {
          maxBytes: req.maxBytes,
          maxCnfBytes: req.maxCnfBytes,
          ...(req.xzMemMiB !== undefined ? { xzMemMiB: req.xzMemMiB } : {}),
          ...(req.lockWaitS !== undefined ? { lockWaitS: req.lockWaitS } : {}),
          bounds: req.bounds,
          ...(req.retries !== undefined ? { retries: req.retries } : {}),
          signal: stop.signal,
          onBytes: (n) => (progress.bytes += n),
          onWait: (line) => {
            log(line);
            progress.waiting = line;
            req.onProgress?.({ ...progress });
          },
          onAttemptFailed: streak.failed,
          onDownloaded: streak.ok,
        });
        const file = setFileName(hash, hit.entry.name, hit.entry.kind);
        await linkOrCopy(hit.file, path.join(staging, file));
        rows[i] = { hash, file, name: hit.entry.name, bytes: hit.entry.bytes, expected: expected.get(hash) ?? null, family: familyOfHash(hash) };
        if (hit.downloaded) progress.downloaded++;
        else progress.fromCache++;
        if (hit.resumed) resumed++;
      } catch (e) {
        if (stop.signal.aborted) return;
        failures.push({ hash, reason: (e as Error).message });
        log(`${hash}: ${(e as Error).message}`);
      }
      progress.done++;
      progress.last = hash;
      progress.waiting = null;
      req.onProgress?.({ ...progress });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(req.jobs, hashes.length)) }, worker));
  } finally {
    req.signal?.removeEventListener('abort', onCancel);
  }
  if (req.signal?.aborted)
    throw new Error(
      `fetch cancelled after ${progress.done} of ${hashes.length} instances; the verified ones are kept in the cache (${req.cache.dir}): run it again to go on`,
    );
  if (stop.signal.aborted) {
    const why = (stop.signal.reason as Error).message;
    throw new FetchIncomplete(
      `${why}: the fetch was given up after ${progress.done} of ${hashes.length} instances, so the set ${name} was not made (the verified ones and the partial downloads are kept in the cache; run the fetch again later)`,
      [...failures, ...streak.struck()],
    );
  }
  if (failures.length) {
    throw new FetchIncomplete(
      `${failures.length} of ${hashes.length} instances could not be fetched, so the set ${name} was not made (the ${hashes.length - failures.length} verified ones are kept in the cache; run the fetch again to retry):\n${failures.map((f) => `  ${f.hash}: ${f.reason}`).join('\n')}`,
      failures,
    );
  }
  const kept = rows.filter(Boolean);
  // A staging directory left by an earlier fetch of another query may hold files this set does not list.
  const listed = new Set([...kept.map((r) => r.file), 'meta.csv', SOURCE_FILE]);
  for (const e of await fs.readdir(staging)) if (!listed.has(e)) await fs.rm(path.join(staging, e), { recursive: true, force: true });
  // The server's answers are claims: no `proved` column.
  await writeFileAtomic(path.join(staging, 'meta.csv'), formatMeta(kept.map((r) => ({ instance: r.file, family: r.family, expected: r.expected }))));
  await writeJsonAtomic(path.join(staging, SOURCE_FILE), {
    server: req.server,
    query: req.query,
    fetched_at: new Date().toISOString(),
    answers,
    instances: kept,
    families: fromDb.said,
  } satisfies GbdSource);
  // Only whole sets: the staging directory becomes the set in one rename.
  if (await exists(req.dir)) await fs.rm(req.dir, { recursive: true, force: true });
  await fs.rename(staging, req.dir);
  const count = (e: 'SAT' | 'UNSAT' | null) => kept.filter((r) => r.expected === e).length;
  return {
    dir: req.dir,
    instances: kept.length,
    downloaded: progress.downloaded,
    fromCache: progress.fromCache,
    resumed,
    bytes: progress.bytes,
    seconds: (Date.now() - t0) / 1000,
    answers: { sat: count('SAT'), unsat: count('UNSAT'), unknown: count(null) },
  };
}

/**
 * Counts download attempts that failed with less than STRIKE_BYTES received, in a row over the whole
 * fetch (any verified file or an attempt that brought more resets it): at `max`, `giveUp` ends every
 * download with one message naming the server and the last failures.
 */
function stallStreak(max: number, server: string, giveUp: (why: string) => void) {
  let row: { hash: string; reason: string }[] = [];
  return {
    failed: (hash: string, e: Error, bytes: number) => {
      if (bytes >= STRIKE_BYTES) return void (row = []);
      row.push({ hash, reason: e.message });
      if (row.length === max) giveUp(`${server} stalled or failed ${max} download attempts in a row (gbd.max_stalls), the last: ${row.at(-1)!.reason}`);
    },
    ok: () => void (row = []),
    /** The attempts of the streak, a line per instance. */
    struck: () => [...new Map(row.map((r) => [r.hash, r])).values()],
  };
}

/** Known answers from the server's `result` attribute: the query asked again with `result=sat` and with `result=unsat`. */
async function answersOf(req: FetchRequest, wanted: ReadonlySet<string>): Promise<{ expected: Map<string, 'SAT' | 'UNSAT'>; answers: string }> {
  const expected = new Map<string, 'SAT' | 'UNSAT'>();
  try {
    for (const [value, answer] of [
      ['sat', 'SAT'],
      ['unsat', 'UNSAT'],
    ] as const) {
      for (const h of await queryHashes(req.server, `(${req.query}) and result=${value}`, req.bounds, req.signal)) {
        if (!wanted.has(h)) continue;
        if (expected.has(h) && expected.get(h) !== answer) throw new GbdServerError(`${h} is listed both as result=sat and as result=unsat`);
        expected.set(h, answer);
      }
    }
    return { expected, answers: 'from the result attribute: (QUERY) and result=sat / result=unsat' };
  } catch (e) {
    if (!(e instanceof GbdServerError)) throw e;
    req.log?.(`no known answers: ${e.message}`);
    return { expected: new Map(), answers: `none: ${e.message}` };
  }
}

/**
 * Each instance's family from a GBD database: the file the user named, else the server's
 * `familiesDatabase` (bounded by maxDbBytes). A server without it, or a database that cannot be read,
 * costs the families and not the fetch: the reason is logged and kept in gbd-source.json.
 */
async function familiesOf(req: FetchRequest, wanted: ReadonlySet<string>): Promise<{ families: Map<string, string>; said: string }> {
  const max = req.maxDbBytes ?? 256e6;
  const none = (why: string) => {
    req.log?.(`no families from a database: ${why}`);
    return { families: new Map<string, string>(), said: `none from a database: ${why}` };
  };
  let bytes: Uint8Array;
  let from: string;
  try {
    if (req.familiesFile) {
      from = req.familiesFile;
      const st = await fs.stat(req.familiesFile);
      if (!st.isFile()) return none(`${from} is not a regular file`);
      const size = st.size;
      if (size > max) return none(`${from} is ${mb(size)} MB, over the ${mb(max)} MB a database may have (gbd.max_db_mb)`);
      bytes = await fs.readFile(req.familiesFile);
    } else if (req.familiesDatabase) {
      from = `${req.server}/getdatabase/${req.familiesDatabase}`;
      const got = await downloadDatabase(req, req.familiesDatabase, max);
      if (typeof got === 'string') return none(got);
      bytes = got;
    } else return none('none asked (gbd.families_database is empty)');
    const read = await databaseFamilies(bytes, wanted);
    if (read.from === 'none') return none(`${from} has no family feature`);
    if (read.refused) req.log?.(`${read.refused} families in ${from} refused (not a family name, or two for one instance)`);
    return { families: read.families, said: `from ${from} (${read.from}): ${read.families.size} of ${wanted.size} instances` };
  } catch (e) {
    if (e instanceof GbdDatabaseError || e instanceof GbdServerError || (e as NodeJS.ErrnoException).code === 'ENOENT') return none((e as Error).message);
    throw e;
  }
}

/** The server's database NAME in memory, at most `max` bytes; why not as a string (no such database, refused). */
async function downloadDatabase(req: FetchRequest, name: string, max: number): Promise<Uint8Array | string> {
  const got = await boundedGet(
    req.server,
    `/getdatabase/${encodeURIComponent(name)}`,
    `the database ${name}`,
    req.bounds,
    req.signal ? { signal: req.signal } : {},
  );
  try {
    if (got.res.status === 404) return `${req.server} has no database ${name}`;
    if (!got.res.ok) return `${req.server} answered ${got.res.status} for the database ${name}`;
    const length = Number(got.res.headers.get('content-length') ?? NaN);
    if (Number.isFinite(length) && length > max) return `the database ${name} is ${mb(length)} MB, over the ${mb(max)} MB a database may have (gbd.max_db_mb)`;
    const chunks: Uint8Array[] = [];
    let n = 0;
    // Counted as it arrives (after any decoding): no reply holds more than `max` in memory.
    for await (const chunk of got.body) {
      n += chunk.length;
      if (n > max) return `the database ${name} is over the ${mb(max)} MB a database may have (gbd.max_db_mb)`;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  } finally {
    got.close();
  }
}

/**
 * The instance's file name in the set: `<hash>-<the server's name>` with the name cut to its last path
 * part and to safe characters, ending in the extension of what is stored; `<hash>.cnf.xz` without one.
 */
export function setFileName(hash: string, serverName: string | null, kind: 'xz' | 'gz' | 'plain'): string {
  const ext = { xz: '.cnf.xz', gz: '.cnf.gz', plain: '.cnf' }[kind];
  const base = (serverName ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/^[0-9a-f]{32}-/i, '')
    .replace(/\.(cnf|dimacs)?(\.(xz|gz|lzma|bz2))?$/i, '')
    .replace(/[^A-Za-z0-9._+-]/g, '_')
    .replace(/^[.]+/, '')
    .slice(0, 120);
  return base ? `${hash}-${base}${ext}` : `${hash}${ext}`;
}

/** A hard link to `from` (one copy on disk), or a copy where the two are on different file systems; `to` is replaced. */
export async function linkOrCopy(from: string, to: string): Promise<void> {
  await fs.rm(to, { force: true });
  try {
    await fs.link(from, to);
  } catch {
    const tmp = `${to}.tmp`;
    await fs.copyFile(from, tmp);
    await fs.rename(tmp, to);
  }
}

/** The family a conjunctive query names (`track=main_2024 and family=crypto`), else null. */
export function familyOf(query: string): string | null {
  if (/\bor\b|\bnot\b|[()]/.test(query)) return null;
  for (const term of query.split(/\band\b/)) {
    const m = /^\s*family\s*=\s*(\S+)\s*$/.exec(term);
    if (m && FAMILY_NAME.test(m[1]!)) return m[1]!;
  }
  return null;
}

/** Whether anything is at `p`. */
export const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );
