// The two routes of a GBD server (the Global Benchmark Database) this client needs, and nothing else:
// `GET /getinstances?query=Q&context=cnf` (one `/file/<hash>` URL per line) and `GET /file/<hash>` (the
// instance, xz-compressed, named by a Content-Disposition `<hash>-<filename>`). A server is untrusted
// input: its lines, names and files are checked, never used as paths or trusted by name, and every
// request is bounded (requestBounds.ts): what it may send, how slowly, and where it may redirect.
import * as fs from 'node:fs';
import { GBD_HASH } from '../instances/gbdHash';
import { boundedGet, GbdServerError, mb, type FetchBounds } from './requestBounds';

export { GbdServerError } from './requestBounds';

/** The GBD hashes a query selects, in the server's order, each once. */
export async function queryHashes(server: string, query: string, bounds: FetchBounds, signal?: AbortSignal): Promise<string[]> {
  const what = `the query "${query}"`;
  const got = await boundedGet(server, `/getinstances?query=${encodeURIComponent(query)}&context=cnf`, what, bounds, {
    headers: { accept: 'text/uri-list, text/plain' },
    ...(signal ? { signal } : {}),
  });
  try {
    if (!got.res.ok) throw new GbdServerError(`${server} answered ${got.res.status} to ${what}: ${oneLine(await got.text(4096))}`);
    const hashes: string[] = [];
    const seen = new Set<string>();
    let bytes = 0;
    let rest = '';
    const take = (line: string) => {
      const t = line.trim();
      if (!t || t.startsWith('#')) return;
      const hash = /\/file\/([^/?#\s]+)\/?(?:[?#].*)?$/.exec(t)?.[1]?.toLowerCase();
      if (!hash || !GBD_HASH.test(hash)) throw new GbdServerError(`${server} answered ${what} with a line that names no instance: ${oneLine(t)}`);
      if (seen.has(hash)) return;
      seen.add(hash);
      hashes.push(hash);
      if (hashes.length > bounds.maxInstances)
        throw new GbdServerError(`${server} lists more than ${bounds.maxInstances} instances for ${what} (gbd.max_instances): narrow the query`);
    };
    // Line by line as the reply streams: its size and its count are bounded, whatever the server sends.
    const decoder = new TextDecoder();
    for await (const chunk of got.body) {
      bytes += chunk.length;
      if (bytes > bounds.maxListBytes)
        throw new GbdServerError(`${server} sent more than ${mb(bounds.maxListBytes)} MB in answer to ${what} (gbd.max_list_mb): refused`);
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop()!;
      if (rest.length > 4096) throw new GbdServerError(`${server} answered ${what} with a line of more than 4096 characters: ${oneLine(rest.slice(0, 200))}`);
      for (const line of lines) take(line);
    }
    take(rest + decoder.decode());
    return hashes;
  } finally {
    got.close();
  }
}

/** What one download attempt got: the server's file name (from Content-Disposition), and whether it resumed a partial file. */
export interface Download {
  filename: string | null;
  resumed: boolean;
  bytes: number;
}

/**
 * Downloads `/file/<hash>` into `part`, resuming it with a Range request when it already holds some
 * bytes (a server that ignores the range sends the whole file again, and the part starts over).
 * Throws GbdServerError for an unknown hash, a file over `maxBytes` or a bound the server broke; any
 * other error (a dropped connection, a short body, a stall) leaves what arrived in `part` for the next attempt.
 */
export async function downloadFile(
  server: string,
  hash: string,
  part: string,
  o: { maxBytes: number; bounds: FetchBounds; signal?: AbortSignal; onBytes?: (n: number) => void },
): Promise<Download> {
  const have = await fs.promises.stat(part).then(
    (s) => s.size,
    () => 0,
  );
  const got = await boundedGet(server, `/file/${hash}`, hash, o.bounds, {
    ...(o.signal ? { signal: o.signal } : {}),
    headers: have > 0 ? { range: `bytes=${have}-` } : {},
  });
  try {
    const res = got.res;
    const filename = dispositionName(res.headers.get('content-disposition'));
    // Nothing after what we have: the part is the whole file (verified by its hash next).
    if (res.status === 416 && have > 0) return { filename, resumed: true, bytes: have };
    if (res.status === 404) throw new GbdServerError(`${server} has no instance ${hash}: ${oneLine(await got.text(4096))}`);
    if (res.status !== 200 && res.status !== 206) throw new Error(`${server} answered ${res.status} for ${hash}: ${oneLine(await got.text(4096))}`);
    const resumed = res.status === 206;
    const length = Number(res.headers.get('content-length') ?? NaN);
    const start = resumed ? have : 0;
    if (Number.isFinite(length) && start + length > o.maxBytes)
      throw new GbdServerError(`${hash} is ${mb(start + length)} MB, over the ${mb(o.maxBytes)} MB a file may have (--max-mb)`);
    // Each chunk is on disk before the next is read: what arrived before a dropped connection is kept for the resume.
    let n = 0;
    const fh = await fs.promises.open(part, resumed ? 'a' : 'w');
    try {
      for await (const chunk of got.body) {
        n += chunk.length;
        if (start + n > o.maxBytes) throw new GbdServerError(`${hash} is over the ${mb(o.maxBytes)} MB a file may have (--max-mb)`);
        await fh.write(chunk);
        o.onBytes?.(chunk.length);
      }
    } finally {
      await fh.close();
    }
    if (Number.isFinite(length) && n < length) throw new Error(`the connection ended after ${n} of ${length} bytes of ${hash}`);
    return { filename, resumed, bytes: start + n };
  } finally {
    got.close();
  }
}

/** The file name of a Content-Disposition header (`filename*=UTF-8''...` or `filename="..."`), or null. */
export function dispositionName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*[^']*'[^']*'([^;]+)/i.exec(header)?.[1];
  if (star) {
    try {
      return decodeURIComponent(star.trim());
    } catch {
      return null;
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;\s]+)/i.exec(header)?.[1] ?? null;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);
