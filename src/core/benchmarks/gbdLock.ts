// The lock one fetch holds on one hash of the shared GBD cache (`partial/<hash>.lock`) while it
// downloads it. The file names its holder: pid, the process's start time (run/owner.ts: pid and start
// time name one process for the whole boot) and host, and the holder touches it every few seconds. A lock
// whose holder is not that live process (a crash, a reboot, a pid since reused by something else), or
// that nobody has touched for a minute (a holder on another host of a cache shared over NFS, a frozen
// one), is no live fetch of this cache and is taken over, so a lock can never hang a fetch for good.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { ownerAlive, procStart } from '../run/owner';

/** What a lock file says of its holder. */
export const LockHolder = z.object({
  pid: z.number().int().positive(),
  /** The holder's start time in clock ticks since boot, where /proc tells it. */
  start: z.string().optional(),
  host: z.string(),
  /** When it took the lock (ISO). */
  since: z.string(),
});
export type LockHolder = z.infer<typeof LockHolder>;

/** How often a holder touches its lock. */
export const HEARTBEAT_MS = 10_000;
/** A lock untouched this long has no live holder, whatever it says. */
export const STALE_MS = 60_000;

/** A lock taken: `release` removes it if it is still this process's. */
export interface HeldLock {
  release(): Promise<void>;
}

/** Someone else's lock, alive: who holds it, where known. */
export interface BusyLock {
  holder: LockHolder | undefined;
  /** "pid 123 on host h since 2026-...", for messages. */
  said: string;
}

/** This process as a lock's holder. */
function self(): LockHolder {
  const start = procStart(process.pid);
  return { pid: process.pid, ...(start ? { start } : {}), host: os.hostname(), since: new Date().toISOString() };
}

/** The lock as its file says, and when it was last touched; undefined when there is none. */
async function readLock(file: string): Promise<{ text: string; holder: LockHolder | undefined; touchedMs: number } | undefined> {
  try {
    const [text, st] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    let holder: LockHolder | undefined;
    try {
      holder = LockHolder.parse(JSON.parse(text));
    } catch {
      holder = undefined; // an older version's bare pid, or garbage: judged by its age and pid below
    }
    return { text, holder, touchedMs: st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Whether a lock is held by a live fetch: touched lately, and on this host by the very process it names. */
function isLive(lock: { text: string; holder: LockHolder | undefined; touchedMs: number }): boolean {
  if (Date.now() - lock.touchedMs > STALE_MS) return false;
  if (!lock.holder) {
    const pid = Number(lock.text.trim());
    return Number.isSafeInteger(pid) && pid > 0 && ownerAlive(pid);
  }
  if (lock.holder.host !== os.hostname()) return true; // its heartbeat is all that can be seen from here
  return ownerAlive(lock.holder.pid, lock.holder.start);
}

/** "pid 123 on host h since ...", or what the file holds. */
function describe(lock: { text: string; holder: LockHolder | undefined }): string {
  const h = lock.holder;
  return h ? `pid ${h.pid} on ${h.host} since ${h.since}` : `"${lock.text.trim().slice(0, 60)}"`;
}

/**
 * Takes the lock `file` now, or says who holds it alive. A stale lock is moved aside under a name of
 * this process's own (one taker wins) and, if what was moved is a lock taken in the meantime, put back.
 */
export async function tryCacheLock(file: string): Promise<HeldLock | BusyLock> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const me = self();
  const text = JSON.stringify(me) + '\n';
  for (let attempt = 0; attempt < 5; attempt++) {
    // Written whole under a private name, then linked into place: the lock never exists half written.
    const tmp = `${file}.${process.pid}.new`;
    await fs.writeFile(tmp, text);
    try {
      await fs.link(tmp, file);
      return holding(file, text);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      await fs.rm(tmp, { force: true });
    }
    const theirs = await readLock(file);
    if (!theirs) continue;
    if (isLive(theirs)) return { holder: theirs.holder, said: describe(theirs) };
    const aside = `${file}.${process.pid}.stale`;
    try {
      await fs.rename(file, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // another taker moved it first
      throw e;
    }
    const moved = await fs.readFile(aside, 'utf8').catch(() => '');
    // Not the stale lock judged but one a faster taker made since: back where it was (link fails if a third made one).
    if (moved !== theirs.text) await fs.link(aside, file).catch(() => undefined);
    await fs.rm(aside, { force: true });
  }
  const now = await readLock(file);
  return { holder: now?.holder, said: now ? describe(now) : 'a lock that keeps changing hands' };
}

/** A held lock: touched every HEARTBEAT_MS, removed on release only while it is still ours. */
function holding(file: string, text: string): HeldLock {
  const beat = setInterval(() => {
    const t = new Date();
    void fs.utimes(file, t, t).catch(() => undefined);
  }, HEARTBEAT_MS);
  beat.unref();
  return {
    release: async () => {
      clearInterval(beat);
      if ((await fs.readFile(file, 'utf8').catch(() => '')) === text) await fs.rm(file, { force: true });
    },
  };
}

/** Whether the lock `file` is held by a live fetch now (for a sweep deciding what it may remove). */
export async function lockLive(file: string): Promise<boolean> {
  const lock = await readLock(file);
  return lock !== undefined && isLive(lock);
}
