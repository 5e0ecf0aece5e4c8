// The two routes of a GBD server (the Global Benchmark Database) this client needs, and nothing else:
// `GET /getinstances?query=Q&context=cnf` (one `/file/<hash>` URL per line) and `GET /file/<hash>` (the
// instance, xz-compressed, named by a Content-Disposition `<hash>-<filename>`). A server is untrusted
// input: its lines, names and files are checked, never used as paths or trusted by name.
import * as fs from 'node:fs';
import { GBD_HASH } from '../instances/gbdHash';

/** A GBD server's answer that is an error of its own (not worth retrying): a bad query, an unknown hash. */
export class GbdServerError extends Error {}

/** The GBD hashes a query selects, in the server's order, each once. */
export async function queryHashes(server: string, query: string, signal?: AbortSignal): Promise<string[]> {
  const url = `${base(server)}/getinstances?query=${encodeURIComponent(query)}&context=cnf`;
  const res = await fetch(url, { ...(signal ? { signal } : {}), headers: { accept: 'text/uri-list, text/plain' } });
  const body = await res.text();
  if (!res.ok) throw new GbdServerError(`${server} answered ${res.status} to the query "${query}": ${oneLine(body)}`);
  const hashes: string[] = [];
  for (const line of body.split(/\r?\n/)) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const hash = /\/file\/([^/?#\s]+)\/?(?:[?#].*)?$/.exec(t)?.[1]?.toLowerCase();
    if (!hash || !GBD_HASH.test(hash)) throw new GbdServerError(`${server} answered the query "${query}" with a line that names no instance: ${oneLine(t)}`);
    if (!hashes.includes(hash)) hashes.push(hash);
  }
  return hashes;
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
 * Throws GbdServerError for an unknown hash or a file over `maxBytes`; any other error (a dropped
 * connection, a short body) leaves what arrived in `part` for the next attempt.
 */
export async function downloadFile(
  server: string,
  hash: string,
  part: string,
  o: { maxBytes: number; signal?: AbortSignal; onBytes?: (n: number) => void },
): Promise<Download> {
  const have = await fs.promises.stat(part).then(
    (s) => s.size,
    () => 0,
  );
  const res = await fetch(`${base(server)}/file/${hash}`, { ...(o.signal ? { signal: o.signal } : {}), headers: have > 0 ? { range: `bytes=${have}-` } : {} });
  const filename = dispositionName(res.headers.get('content-disposition'));
  if (res.status === 416 && have > 0) {
    // Nothing after what we have: the part is the whole file (verified by its hash next).
    await res.body?.cancel();
    return { filename, resumed: true, bytes: have };
  }
  if (res.status === 404) throw new GbdServerError(`${server} has no instance ${hash}: ${oneLine(await res.text())}`);
  if (res.status !== 200 && res.status !== 206) throw new Error(`${server} answered ${res.status} for ${hash}: ${oneLine(await res.text())}`);
  const resumed = res.status === 206;
  const length = Number(res.headers.get('content-length') ?? NaN);
  const start = resumed ? have : 0;
  if (Number.isFinite(length) && start + length > o.maxBytes) {
    await res.body?.cancel();
    throw new GbdServerError(`${hash} is ${mb(start + length)} MB, over the ${mb(o.maxBytes)} MB a file may have (--max-mb)`);
  }
  if (!res.body) throw new Error(`${server} sent no body for ${hash}`);
  // Each chunk is on disk before the next is read: what arrived before a dropped connection is kept for the resume.
  let got = 0;
  const fh = await fs.promises.open(part, resumed ? 'a' : 'w');
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      got += chunk.length;
      if (start + got > o.maxBytes) throw new GbdServerError(`${hash} is over the ${mb(o.maxBytes)} MB a file may have (--max-mb)`);
      await fh.write(chunk);
      o.onBytes?.(chunk.length);
    }
  } finally {
    await fh.close();
  }
  if (Number.isFinite(length) && got < length) throw new Error(`the connection ended after ${got} of ${length} bytes of ${hash}`);
  return { filename, resumed, bytes: start + got };
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

const base = (server: string) => server.replace(/\/+$/, '');
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 300);
const mb = (n: number) => (n / 1e6).toFixed(1);
