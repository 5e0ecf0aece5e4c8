// Memory limits for one solver run, and the measured peak: a cgroup (v1 or v2) where this process
// may create one, else RLIMIT_AS through prlimit. A cgroup also lets us find and kill every process
// of a run, including one that left the process group, and measures the CPU time of the whole run:
// rusage cannot, since the sandbox's pid namespace hides the solver's processes from our wait().
// Asked for, it also caps the processes of a run or a build (pids.max): RLIMIT_NPROC cannot stand in
// for it, as it counts all of a user's processes and does not bind root.
import { existsSync, readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ownerTag } from './owner';

export type MemoryMethod = 'cgroup-v1' | 'cgroup-v2' | 'rlimit';

export interface MemoryJail {
  method: MemoryMethod;
  /** The command to spawn instead of `cmd args` (it joins the jail, then execs the command). */
  wrap(cmd: string, args: string[]): [string, string[]];
  /** Peak memory of the run in MiB, when known. */
  peakMb(pid: number | undefined): Promise<number | undefined>;
  /**
   * User + system CPU seconds of every process that ran in the jail (cgroups only; undefined
   * without one). Final once the run's processes are gone: it waits a moment for the last to exit.
   */
  cpuS(): Promise<number | undefined>;
  /** True when the kernel's OOM killer ended a process of the run. */
  oomKilled(): Promise<boolean>;
  /** Every process of the run still alive (cgroups only), in any of its cgroups. */
  pids(): Promise<number[]>;
  /** The pids.max in force, or undefined where no cgroup caps the processes (none asked, or none possible). */
  processesMax: number | undefined;
  /** True once a fork or clone failed for reaching processesMax. */
  processLimitHit(): Promise<boolean>;
  dispose(): Promise<void>;
}

let seq = 0;

/**
 * A run's cgroup is `satlution-<pid>-<start>-<seq>` (owner.ts): the owner's pid and start time let
 * sweep.ts tell a dead evaluator's cgroups from a live one's, and a later process that gets the same
 * pid never collides with a leftover of the earlier one.
 */
export const CGROUP_PREFIX = 'satlution-';

/**
 * This process's cgroup for each hierarchy: the run cgroups are made below it (and swept there).
 * `v1` is the v1 memory hierarchy's, `cpuacct` the v1 CPU accounting hierarchy's, `pids` the v1
 * process-count hierarchy's, `v2` the unified one's.
 */
export function ownCgroup(): { v1?: string; cpuacct?: string; pids?: string; v2?: string } {
  const text = existsSync('/proc/self/cgroup') ? readFileSync('/proc/self/cgroup', 'utf8') : '';
  const out: { v1?: string; cpuacct?: string; pids?: string; v2?: string } = {};
  for (const line of text.split('\n')) {
    const [, ctrls, p] = line.split(':');
    if (ctrls === undefined || p === undefined) continue;
    if (ctrls.split(',').includes('memory')) out.v1 = path.join('/sys/fs/cgroup/memory', p);
    if (ctrls.split(',').includes('cpuacct')) out.cpuacct = path.join('/sys/fs/cgroup/cpuacct', p);
    if (ctrls.split(',').includes('pids')) out.pids = path.join('/sys/fs/cgroup/pids', p);
    if (ctrls === '' && existsSync('/sys/fs/cgroup/cgroup.controllers')) out.v2 = path.join('/sys/fs/cgroup', p);
  }
  return out;
}

// The child joins its cgroups (v1: memory, cpuacct and pids) before exec, so it never allocates or
// computes outside them. The script is a fixed string; the cgroup files, then `--`, then the command
// are passed as arguments, never interpolated. `for f` reads the arguments once, before any shift.
const JOIN = 'for f; do shift; [ "$f" = -- ] && exec "$@"; echo $$ > "$f" || exit; done; exit 127';

/** The files that differ between the two cgroup versions; everything else is shared. */
interface CgroupFiles {
  method: 'cgroup-v1' | 'cgroup-v2';
  limit: string;
  /** What `limit` takes for "no limit": a run without a memory limit still gets a cgroup, for its CPU time. */
  unlimited: string;
  /** Keeps swap out of the way (best effort: not every kernel accounts it). */
  swap: [file: string, value: (limitBytes: number) => string];
  peak: string;
  oomKilled: (read: (f: string) => Promise<string>) => Promise<boolean>;
  /** The file of CPU time, and its value in seconds (undefined when unreadable). */
  cpu: [file: string, seconds: (text: string) => number | undefined];
}

/** A number read from a cgroup file, or undefined: an unreadable file reads as '', which Number() takes for 0. */
const num = (text: string | undefined): number | undefined => (text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : undefined);

const V1: CgroupFiles = {
  method: 'cgroup-v1',
  limit: 'memory.limit_in_bytes',
  unlimited: '-1',
  swap: ['memory.memsw.limit_in_bytes', (b) => String(b)],
  peak: 'memory.max_usage_in_bytes',
  oomKilled: async (read) => {
    const oom = /oom_kill (\d+)/.exec(await read('memory.oom_control'));
    return oom ? Number(oom[1]) > 0 : Number(await read('memory.failcnt')) > 0;
  },
  // Nanoseconds, user + system (cpuacct.stat splits them, but in coarse USER_HZ ticks).
  cpu: ['cpuacct.usage', (t) => {
    const ns = num(t);
    return ns === undefined ? undefined : ns / 1e9;
  }],
};

const V2: CgroupFiles = {
  method: 'cgroup-v2',
  limit: 'memory.max',
  unlimited: 'max',
  swap: ['memory.swap.max', () => '0'],
  peak: 'memory.peak',
  oomKilled: async (read) => Number(/oom_kill (\d+)/.exec(await read('memory.events'))?.[1] ?? 0) > 0,
  // cpu.stat is there whether or not the cpu controller is enabled; usage_usec is user + system.
  cpu: ['cpu.stat', (t) => {
    const us = num(/^usage_usec (\d+)$/m.exec(t)?.[1]);
    return us === undefined ? undefined : us / 1e6;
  }],
};

/** Where a v1 jail's twins go: the cpuacct and pids hierarchies' cgroups of this process (v2 has one hierarchy). */
interface TwinBases {
  cpu?: string | undefined;
  pids?: string | undefined;
}

/**
 * The cgroup whose pids.max is `max`, made beside the run's `dir`: with v1 a twin of the same name in
 * `pidsBase`; with v2 `dir` itself, once its parent hands the pids controller down (asked here, best
 * effort). Undefined where neither works: the caller then counts processes another way.
 */
async function pidsCgroup(v: CgroupFiles, dir: string, pidsBase: string | undefined, max: number): Promise<string | undefined> {
  if (v.method === 'cgroup-v2') {
    if (!existsSync(path.join(dir, 'pids.max'))) await fs.writeFile(path.join(path.dirname(dir), 'cgroup.subtree_control'), '+pids').catch(() => undefined);
    return fs.writeFile(path.join(dir, 'pids.max'), String(max)).then(() => dir, () => undefined);
  }
  if (!pidsBase) return undefined;
  const twin = path.join(pidsBase, path.basename(dir));
  try {
    await fs.mkdir(twin);
    await fs.writeFile(path.join(twin, 'pids.max'), String(max));
    return twin;
  } catch {
    await fs.rmdir(twin).catch(() => undefined);
    return undefined;
  }
}

/**
 * A run's cgroup in `base` with the given limit (none: `v.unlimited`, so that writing it still proves
 * the controller usable). With v1, CPU is accounted in a second cgroup of the same name in `twins.cpu`,
 * unless the memory hierarchy carries cpuacct itself; without one, CPU time stays unknown. With
 * `processes`, pids.max caps the processes (pidsCgroup).
 */
async function tryCgroup(v: CgroupFiles, base: string, limitBytes: number | undefined, twins: TwinBases, processes: number | undefined): Promise<MemoryJail | undefined> {
  const name = `${CGROUP_PREFIX}${ownerTag()}-${++seq}`;
  const dir = path.join(base, name);
  try {
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, v.limit), limitBytes === undefined ? v.unlimited : String(limitBytes));
  } catch {
    await fs.rmdir(dir).catch(() => undefined);
    return undefined;
  }
  if (limitBytes !== undefined) await fs.writeFile(path.join(dir, v.swap[0]), v.swap[1](limitBytes)).catch(() => undefined);
  const cpuBase = twins.cpu;
  const cpuDir = existsSync(path.join(dir, v.cpu[0])) ? dir : cpuBase && (await fs.mkdir(path.join(cpuBase, name)).then(() => path.join(cpuBase, name), () => undefined));
  const pidsDir = processes === undefined ? undefined : await pidsCgroup(v, dir, twins.pids, processes);
  const dirs = [...new Set([dir, cpuDir, pidsDir].filter((d): d is string => !!d))];
  const read = (f: string, d = dir) => fs.readFile(path.join(d, f), 'utf8').catch(() => '');
  const procs = async (d: string) => (await read('cgroup.procs', d)).split('\n').filter(Boolean).map(Number);
  return {
    method: v.method,
    wrap: (cmd, args) => ['/bin/sh', ['-c', JOIN, 'satlution-join', ...dirs.map((d) => path.join(d, 'cgroup.procs')), '--', cmd, ...args]],
    peakMb: async () => {
      const b = Number(await read(v.peak));
      return b > 0 ? b / 2 ** 20 : undefined;
    },
    cpuS: async () => {
      if (!cpuDir) return undefined;
      // A process SIGKILLed a moment ago may still be exiting, and still adding to the count.
      for (let i = 0; i < 50 && (await procs(cpuDir)).length; i++) await new Promise((r) => setTimeout(r, 20));
      return v.cpu[1](await read(v.cpu[0], cpuDir));
    },
    oomKilled: () => v.oomKilled(read),
    // Every twin's: a process that moved itself out of one (root can, without the sandbox) is still found in the others.
    pids: async () => [...new Set((await Promise.all(dirs.map(procs))).flat())],
    processesMax: pidsDir ? processes : undefined,
    processLimitHit: async () => !!pidsDir && Number(/^max (\d+)$/m.exec(await read('pids.events', pidsDir))?.[1] ?? 0) > 0,
    dispose: async () => {
      for (const d of dirs) await removeCgroup(d);
    },
  };
}

async function removeCgroup(dir: string): Promise<void> {
  // A cgroup can be removed once its last process is gone; that may take a moment after SIGKILL.
  for (let i = 0; i < 50; i++) {
    try {
      await fs.rmdir(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

function rlimitJail(limitBytes: number): MemoryJail {
  let peakKb = 0;
  return {
    method: 'rlimit',
    wrap: (cmd, args) => ['prlimit', [`--as=${limitBytes}`, '--', cmd, ...args]],
    // VmHWM of the (exec'd) solver process: sampled by the caller while it runs.
    peakMb: async (pid) => {
      if (pid !== undefined) {
        const m = /VmHWM:\s+(\d+) kB/.exec(await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      }
      return peakKb > 0 ? peakKb / 1024 : undefined;
    },
    // RLIMIT_AS knows nothing of CPU, and rusage does not cross the sandbox's pid namespace.
    cpuS: async () => undefined,
    oomKilled: async () => false,
    pids: async () => [],
    processesMax: undefined,
    processLimitHit: async () => false,
    dispose: async () => undefined,
  };
}

let preferred: 'cgroup-v1' | 'cgroup-v2' | 'rlimit' | undefined;

/** The best cgroup jail here (or the one `method` names, which throws where it is not available); undefined when none. */
async function cgroupJail(limitBytes: number | undefined, method: MemoryMethod | undefined, processes: number | undefined): Promise<MemoryJail | undefined> {
  if ((method ?? preferred) === 'rlimit') return undefined;
  const own = ownCgroup();
  if ((method === undefined || method === 'cgroup-v1') && own.v1 && preferred !== 'cgroup-v2') {
    const j = await tryCgroup(V1, own.v1, limitBytes, { cpu: own.cpuacct, pids: own.pids }, processes);
    if (j) return (preferred = 'cgroup-v1'), j;
  }
  if ((method === undefined || method === 'cgroup-v2') && own.v2) {
    const j = await tryCgroup(V2, own.v2, limitBytes, {}, processes);
    if (j) return (preferred = 'cgroup-v2'), j;
  }
  if (method) throw new Error(`${method} memory limits are not available on this machine`);
  preferred = 'rlimit';
  return undefined;
}

/**
 * A jail for one run; `method` forces one (tests), otherwise the best that works here. With
 * `processes`, its cgroup also caps the processes where it can (see `processesMax`).
 */
export async function memoryJail(limitMb: number, method?: MemoryMethod, processes?: number): Promise<MemoryJail> {
  const bytes = Math.floor(limitMb * 2 ** 20);
  return (await cgroupJail(bytes, method, processes)) ?? rlimitJail(bytes);
}

/**
 * A jail without a memory limit, for a run that has none and for builds: its cgroup still measures
 * CPU time and peak memory, finds every process of the run, and with `processes` caps them. Undefined
 * where no cgroup can be made (or `method` is `rlimit`): there is nothing to measure with.
 */
export async function accountingJail(method?: MemoryMethod, processes?: number): Promise<MemoryJail | undefined> {
  return cgroupJail(undefined, method, processes);
}
