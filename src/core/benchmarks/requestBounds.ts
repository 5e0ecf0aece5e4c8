// Bounds on every request to a GBD server, which is untrusted: how long a request may take in all,
// how long it may send (next to) nothing, how much a query's list may hold, where a redirect may lead
// (the same origin only: scheme, host and port) and what it may send (the bytes themselves: an encoded
// body, which would grow past every bound as it is decoded, is refused). A bound broken ends the request
// with a message naming the server and what it did; nothing it sent is kept beyond the bytes already on disk.
import type { Config } from '../config/schema';

/** A GBD server's answer that is an error of its own, or a bound it broke (not worth retrying): a bad query, an unknown hash. */
export class GbdServerError extends Error {}

/** What a fetch allows a server (from satlution.yaml's `gbd`). */
export interface FetchBounds {
  /** A request that gets less than IDLE_BYTES in this many seconds is given up (and a download retried). */
  idleS: number;
  /** A request is given up after this many seconds in all, however it is going. */
  timeoutS: number;
  /** The most a query's reply may hold, bytes. */
  maxListBytes: number;
  /** The most instances a query may list. */
  maxInstances: number;
}

/** Bytes as megabytes with one decimal, for messages. */
export const mb = (n: number): string => (n / 1e6).toFixed(1);

/** Less than this in a whole idle window is a stall (a body trickling a byte now and then stalls too). */
export const IDLE_BYTES = 1024;

/** Redirects followed at most, each to the same origin. */
const MAX_REDIRECTS = 5;

/** The bounds of satlution.yaml's `gbd` section. */
export function fetchBounds(gbd: Config['gbd']): FetchBounds {
  return { idleS: gbd.idle_timeout_s, timeoutS: gbd.timeout_s, maxListBytes: gbd.max_list_mb * 1e6, maxInstances: gbd.max_instances };
}

/** A response whose body is read within the bounds; `close` must be called once done with it. */
export interface BoundedResponse {
  res: Response;
  /** The body, chunk by chunk; a broken bound ends it with the bound's error. */
  body: AsyncIterable<Uint8Array>;
  /** At most `max` bytes of the body as text (for an error's message). */
  text(max: number): Promise<string>;
  close(): void;
}

/**
 * GETs `route` of `server` (`what` names it in messages), following redirects to the same origin only,
 * within `bounds`. It asks for the identity encoding and refuses a reply with any other: fetch would
 * decode it before a byte is counted, so a few MB of gzip could write GBs.
 */
export async function boundedGet(
  server: string,
  route: string,
  what: string,
  bounds: FetchBounds,
  init: { headers?: Record<string, string>; signal?: AbortSignal },
): Promise<BoundedResponse> {
  const ctl = new AbortController();
  const outer = init.signal;
  const onOuter = () => ctl.abort(outer?.reason);
  if (outer?.aborted) onOuter();
  outer?.addEventListener('abort', onOuter, { once: true });
  // A window of at most idleS seconds in which IDLE_BYTES must arrive; each IDLE_BYTES that do start a new one.
  let windowStart = Date.now();
  let windowBytes = 0;
  const progress = (n: number) => {
    windowBytes += n;
    if (windowBytes >= IDLE_BYTES) [windowStart, windowBytes] = [Date.now(), 0];
  };
  const overall = setTimeout(
    () => ctl.abort(new GbdServerError(`${server} took more than ${bounds.timeoutS} s over ${what} (gbd.timeout_s): given up`)),
    bounds.timeoutS * 1000,
  );
  const idle = setInterval(
    () => {
      if (Date.now() - windowStart > bounds.idleS * 1000)
        ctl.abort(new Error(`${server} sent less than ${IDLE_BYTES} bytes in ${bounds.idleS} s over ${what} (gbd.idle_timeout_s): given up`));
    },
    Math.max(50, Math.min(1000, (bounds.idleS * 1000) / 4)),
  );
  const close = () => {
    clearTimeout(overall);
    clearInterval(idle);
    outer?.removeEventListener('abort', onOuter);
  };
  /** Our bound's error where it was ours that stopped the request, else the error as it came. */
  const why = (e: unknown): unknown => (ctl.signal.aborted && !outer?.aborted ? ctl.signal.reason : e);
  try {
    let url = new URL(base(server) + route);
    for (let hops = 0; ; hops++) {
      const res = await fetch(url, { redirect: 'manual', signal: ctl.signal, headers: { ...init.headers, 'accept-encoding': 'identity' } });
      progress(IDLE_BYTES);
      if (res.status < 300 || res.status >= 400 || res.status === 304) {
        const encoding = res.headers.get('content-encoding')?.trim().toLowerCase();
        if (encoding && encoding !== 'identity') {
          await res.body?.cancel().catch(() => undefined);
          throw new GbdServerError(`${server} sent ${what} encoded as ${encoding.slice(0, 40)} though only identity was asked: refused, nothing of it kept`);
        }
        const body = counted(res, progress, why);
        return {
          res,
          body,
          text: async (max) => {
            let out = '';
            for await (const chunk of body) {
              out += Buffer.from(chunk).toString('utf8');
              if (out.length >= max) break;
            }
            return out.slice(0, max);
          },
          close: () => {
            close();
            void res.body?.cancel().catch(() => undefined);
          },
        };
      }
      await res.body?.cancel().catch(() => undefined);
      const to = redirectTarget(server, url, res.headers.get('location'), what);
      if (hops >= MAX_REDIRECTS) throw new GbdServerError(`${server} redirected ${what} more than ${MAX_REDIRECTS} times: refused`);
      url = to;
    }
  } catch (e) {
    close();
    throw why(e);
  }
}

/** Where a redirect from `from` may go: the same origin (scheme, host and port); anything else is refused. */
export function redirectTarget(server: string, from: URL, location: string | null, what: string): URL {
  if (!location) throw new GbdServerError(`${server} redirected ${what} without saying where: refused`);
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    throw new GbdServerError(`${server} redirected ${what} to "${location.slice(0, 200)}", which is no URL: refused`);
  }
  if (to.protocol !== 'http:' && to.protocol !== 'https:')
    throw new GbdServerError(`${server} redirected ${what} to ${to.protocol} (${to.href.slice(0, 200)}): refused`);
  if (from.protocol === 'https:' && to.protocol === 'http:')
    throw new GbdServerError(`${server} redirected ${what} from https to http (${to.href.slice(0, 200)}): refused`);
  if (to.hostname !== from.hostname)
    throw new GbdServerError(`${server} redirected ${what} to another host (${to.host}): refused, only the server's own host is asked`);
  // The same host on another port or scheme is another server (a local service, say): never asked.
  if (to.origin !== from.origin)
    throw new GbdServerError(
      `${server} redirected ${what} to another origin (${to.origin}, not ${from.origin}): refused, only the server's own origin is asked`,
    );
  return to;
}

/** The body of `res`, each chunk counted as progress, its errors made the bound's where a bound stopped it. */
function counted(res: Response, progress: (n: number) => void, why: (e: unknown) => unknown): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      if (!res.body) return;
      try {
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          progress(chunk.length);
          yield chunk;
        }
      } catch (e) {
        throw why(e);
      }
    },
  };
}

const base = (server: string) => server.replace(/\/+$/, '');
