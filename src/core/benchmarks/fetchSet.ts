// `satlution benchmarks fetch QUERY --set NAME`: the instances a GBD query selects, fetched through
// the shared cache (gbdCache.ts: each read strictly, verified by its GBD hash and kept in canonical
// form), become the benchmark set NAME of a workspace: linked into `benchmarks/.NAME.fetching/`, which is
// renamed to `benchmarks/NAME` only once every instance is there, with `meta.csv` (the server's `result`
// attribute, asked as `(QUERY) and result=sat` / `unsat`: claims, which no answer is judged by alone;
// run/runInstance.ts) and `gbd-source.json` (where each instance came from). Every request is bounded
// (requestBounds.ts). A killed or failed fetch leaves no set, only verified files in the cache and the
// staging directory: run it again.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config/schema';
import { writeFileAtomic, writeJsonAtomic } from '../store/atomic';
import { queryHashes, GbdServerError } from './gbdRoutes';
import type { GbdCache } from './gbdCache';
import { fetchBounds, type FetchBounds } from './requestBounds';
import { formatMeta } from '../instances/metaCsv';

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
  /** What the server's requests may take (fetchLimits). */
  bounds: FetchBounds;
  /** Attempts again after a dropped or stalled download (default 5). */
  retries?: number;
  /** The family for meta.csv: given, else the query's `family=X` when it has one. */
  family?: string;
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
}

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
export function fetchLimits(gbd: Config['gbd']): Pick<FetchRequest, 'maxBytes' | 'maxCnfBytes' | 'bounds'> {
  return { maxBytes: gbd.max_mb * 1e6, maxCnfBytes: gbd.max_cnf_mb * 1e6, bounds: fetchBounds(gbd) };
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
  const family = req.family ?? familyOf(req.query);
  if (family !== null && !FAMILY.test(family)) throw new GbdServerError(`a family name may use letters, digits and . _ + - only: ${family}`);
  const staging = path.join(path.dirname(req.dir), `.${name}.fetching`);
  await fs.mkdir(staging, { recursive: true });

  const rows: GbdSource['instances'] = [];
  const failures: { hash: string; reason: string }[] = [];
  const progress = { done: 0, of: hashes.length, downloaded: 0, fromCache: 0, bytes: 0, last: '' };
  let resumed = 0;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < hashes.length; i = next++) {
      if (req.signal?.aborted) return;
      const hash = hashes[i]!;
      try {
        const hit = await req.cache.fetch(req.server, hash, {
          maxBytes: req.maxBytes,
          maxCnfBytes: req.maxCnfBytes,
          bounds: req.bounds,
          ...(req.retries !== undefined ? { retries: req.retries } : {}),
          ...(req.signal ? { signal: req.signal } : {}),
          onBytes: (n) => (progress.bytes += n),
        });
        const file = setFileName(hash, hit.entry.name, hit.entry.kind);
        await linkOrCopy(hit.file, path.join(staging, file));
        rows[i] = { hash, file, name: hit.entry.name, bytes: hit.entry.bytes, expected: expected.get(hash) ?? null, family };
        if (hit.downloaded) progress.downloaded++;
        else progress.fromCache++;
        if (hit.resumed) resumed++;
      } catch (e) {
        if (req.signal?.aborted) return;
        failures.push({ hash, reason: (e as Error).message });
        log(`${hash}: ${(e as Error).message}`);
      }
      progress.done++;
      progress.last = hash;
      req.onProgress?.({ ...progress });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(req.jobs, hashes.length)) }, worker));
  if (req.signal?.aborted)
    throw new Error(
      `fetch cancelled after ${progress.done} of ${hashes.length} instances; the verified ones are kept in the cache (${req.cache.dir}): run it again to go on`,
    );
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

/** Family names that go into meta.csv as they are. */
const FAMILY = /^[A-Za-z0-9_.+-]+$/;

/** The family a conjunctive query names (`track=main_2024 and family=crypto`), else null. */
export function familyOf(query: string): string | null {
  if (/\bor\b|\bnot\b|[()]/.test(query)) return null;
  for (const term of query.split(/\band\b/)) {
    const m = /^\s*family\s*=\s*(\S+)\s*$/.exec(term);
    if (m && FAMILY.test(m[1]!)) return m[1]!;
  }
  return null;
}

/** Whether anything is at `p`. */
export const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );
