// The processes and disk limits of one build or solver run while it runs (evaluation.processes_max,
// evaluation.disk_max_mb): a check a few times a second that names the limit gone over, so the caller
// stops it, and the last word once it ended. Processes: the jail's pids.max where a cgroup holds it (a
// fork there fails; one failed fork ends the build or run), else the process tree counted each tick,
// which a burst between two ticks can outrun. Disk: the apparent size of the watched directories (a
// sparse file counts whole), walked at most a 100th of the time, plus the used bytes of the sandbox's
// bounded tmpfs mounts while it lives.
import { readlinkSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ResourceLimits } from '../isolation/settings';
import type { MemoryJail } from './limits';

/** What one guard watches. */
export interface GuardSpec {
  /** Who is watched, for the reasons: `the build`, `the run`. */
  what: string;
  limits: ResourceLimits;
  jail: MemoryJail | undefined;
  /** A directory that may hold at most the disk limit while it runs (a build's candidate). */
  tree?: string;
  /** The host directories of its scratch (HOME, TMPDIR), and paths in them that do not count (the proof, the instance). */
  scratch: { dirs: string[]; skip: string[] };
  /** The sandbox's tmpfs mounts (/tmp, /var/tmp) when bounded, and their size: their use counts as scratch. */
  tmpfs?: { mounts: string[]; bytes: number };
}

export interface Guard {
  /** Starts watching the spawned program `pid`; `stop` hears the first limit it goes over, once. */
  start(pid: number, stop: (reason: string) => void): void;
  /**
   * Stops watching (once; later calls return the same). The reason the build or run went over a
   * limit, if it did: the one heard while it ran, else what shows once it ended (a fork refused at
   * the limit, scratch left over the limit).
   */
  end(): Promise<string | undefined>;
}

/** How often processes are counted; the disk is walked at most this often too. */
const TICK_MS = 250;
/**
 * The disk watch takes at most about 1% of a core (the next walk waits a hundred times the last one,
 * and at least WALK_EVERY_MS), so it slows a build by less than that; one file cannot outgrow the limit
 * meanwhile (RLIMIT_FSIZE), only many, and the check after the build sees what they left.
 */
const WALK_SHARE = 100;
/** The shortest wait between two walks of a build's tree (a run's scratch is small: walked each tick). */
const WALK_EVERY_MS = 2000;
/** statfs's f_type of a tmpfs. */
const TMPFS_MAGIC = 0x01021994;

/** The limits' reasons in words, the same for builds and runs, local and in the worker. */
export const limitReason = {
  processes: (what: string, max: number) => `${what} hit its limit of ${max} processes (evaluation.processes_max)`,
  tree: (what: string, mb: number) => `${what} filled its directory past its limit of ${mb} MB (evaluation.disk_max_mb)`,
  scratch: (what: string, mb: number) => `${what} wrote more than ${mb} MB to its scratch space (HOME, TMPDIR, /tmp; evaluation.disk_max_mb)`,
};

export function startGuard(spec: GuardSpec): Guard {
  const maxBytes = spec.limits.diskMaxMb * 2 ** 20;
  const ownMnt = mountNamespace('self');
  let reason: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let tick: Promise<void> = Promise.resolve();
  let ended = false;
  let final: Promise<string | undefined> | undefined;
  let nextWalk = 0;
  /** A process inside the sandbox, whose /proc root shows its tmpfs mounts. */
  let inside: number | undefined;
  const sandboxed = (pid: number) => {
    const m = mountNamespace(String(pid));
    return m !== undefined && m !== ownMnt;
  };

  const processesOver = async (pid: number): Promise<boolean> => {
    if (spec.jail?.processesMax !== undefined) return spec.jail.processLimitHit();
    let tasks = 0;
    for (const p of await processTree(pid)) tasks += (await fs.readdir(`/proc/${p}/task`).catch(() => [])).length;
    return tasks > spec.limits.processesMax;
  };
  /** The bytes in the sandbox's tmpfs mounts; Infinity when one is full (it refused a write). */
  const tmpfsBytes = async (pid: number): Promise<number> => {
    if (!spec.tmpfs) return 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      inside ??= (await processTree(pid)).find(sandboxed);
      if (inside === undefined) return 0;
      let used = 0;
      let seen = true;
      for (const m of spec.tmpfs.mounts) {
        const st = await fs.statfs(`/proc/${inside}/root${m}`).catch(() => undefined);
        // Ours only: a tmpfs of the size we asked for (before bwrap mounts it, the path is the host's).
        if (!st) seen = false;
        else if (st.type === TMPFS_MAGIC && Math.abs(st.blocks * st.bsize - spec.tmpfs.bytes) < 1 << 16)
          used += st.bfree === 0 ? Infinity : (st.blocks - st.bfree) * st.bsize;
      }
      if (seen) return used;
      inside = undefined; // that process is gone: look for another
    }
    return 0;
  };
  const check = async (pid: number): Promise<string | undefined> => {
    if (await processesOver(pid)) return limitReason.processes(spec.what, spec.limits.processesMax);
    if (Date.now() < nextWalk) return undefined;
    const t0 = Date.now();
    try {
      if (spec.tree !== undefined && (await treeBytes([spec.tree], [], maxBytes)) > maxBytes) return limitReason.tree(spec.what, spec.limits.diskMaxMb);
      if ((await tmpfsBytes(pid)) + (await treeBytes(spec.scratch.dirs, spec.scratch.skip, maxBytes)) > maxBytes)
        return limitReason.scratch(spec.what, spec.limits.diskMaxMb);
    } finally {
      nextWalk = Date.now() + Math.max(spec.tree !== undefined ? WALK_EVERY_MS : TICK_MS, WALK_SHARE * (Date.now() - t0));
    }
    return undefined;
  };
  return {
    start(pid, stop) {
      const loop = () => {
        timer = setTimeout(() => {
          tick = check(pid).then(
            (r) => {
              reason ??= r;
              if (ended) return;
              if (r) stop(r);
              else loop();
            },
            () => (ended ? undefined : loop()),
          );
        }, TICK_MS);
      };
      loop();
    },
    end() {
      return (final ??= (async () => {
        ended = true;
        clearTimeout(timer);
        await tick;
        if (reason) return reason;
        if (await spec.jail?.processLimitHit()) return limitReason.processes(spec.what, spec.limits.processesMax);
        if ((await treeBytes(spec.scratch.dirs, spec.scratch.skip, maxBytes)) > maxBytes) return limitReason.scratch(spec.what, spec.limits.diskMaxMb);
        return undefined;
      })());
    },
  };
}

/** How a run's processes and scratch are bounded here, and what is not, in words for its log. */
export function boundsInWords(limits: ResourceLimits, jail: MemoryJail | undefined, sandbox: { mode: 'bwrap' | 'off'; tmpBytes?: number }): string {
  const processes =
    jail?.processesMax !== undefined
      ? `${jail.cgroup} pids.max`
      : jail?.cgroup
        ? `no pids controller in its ${jail.cgroup}: counted a few times a second`
        : 'no cgroup: counted a few times a second';
  const tmp = sandbox.tmpBytes
    ? '/tmp and /var/tmp tmpfs of that size'
    : sandbox.mode === 'bwrap'
      ? '/tmp and /var/tmp unbounded: this bwrap has no --size'
      : "/tmp is the host's, unbounded";
  return `${limits.processesMax} processes (${processes}), ${limits.diskMaxMb} MB of scratch (HOME and TMPDIR watched, ${tmp})`;
}

/** The mount namespace of /proc/<pid> (`self` for this process), or undefined when it is gone. */
function mountNamespace(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return undefined;
  }
}

/**
 * Apparent bytes of the regular files below `dirs` (links not followed, `skip` left out), stopping
 * early once past `stopAbove`: the caller needs only to know that.
 */
export async function treeBytes(dirs: readonly string[], skip: readonly string[], stopAbove = Infinity): Promise<number> {
  let bytes = 0;
  const todo = [...dirs];
  while (todo.length && bytes <= stopAbove) {
    const dir = todo.pop()!;
    for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(dir, e.name);
      if (skip.includes(p)) continue;
      if (e.isDirectory()) todo.push(p);
      else if (e.isFile()) bytes += (await fs.lstat(p).catch(() => undefined))?.size ?? 0;
    }
  }
  return bytes;
}

/** `root` and its descendants, from /proc (empty when the tree is gone). */
export async function processTree(root: number | undefined): Promise<number[]> {
  if (root === undefined) return [];
  const out: number[] = [];
  const todo = [root];
  while (todo.length && out.length < 4096) {
    const pid = todo.pop()!;
    out.push(pid);
    const kids = await fs.readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    for (const k of kids.split(' ')) if (k.trim()) todo.push(Number(k));
  }
  return out;
}
