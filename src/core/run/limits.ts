// Memory limits for one solver run, and the measured peak: a cgroup (v1 or v2) where this process
// may create one with the memory controller, else RLIMIT_AS through prlimit (inside a v2 cgroup without
// that controller, which still counts CPU: cgroups.ts finds the hierarchies). A cgroup also lets us find and kill every process
// of a run, including one that left the process group, and measures the CPU time of the whole run:
// rusage cannot, since the sandbox's pid namespace hides the solver's processes from our wait().
// Asked for, it also caps the processes of a run or a build (pids.max): RLIMIT_NPROC cannot stand in
// for it, as it counts all of a user's processes and does not bind root.
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ownCgroups, prepareV2 } from './cgroups';
import type { Killable } from './killTree';
import { ownerTag } from './owner';

export type MemoryMethod = 'cgroup-v1' | 'cgroup-v2' | 'rlimit';

/** The kind of cgroup a jail made: where its CPU time, processes and peak memory are read. */
export type CgroupKind = 'cgroup-v1' | 'cgroup-v2';

export interface MemoryJail extends Killable {
  /** How the memory limit is enforced: by the cgroup, or by RLIMIT_AS where no cgroup has the memory controller. */
  method: MemoryMethod;
  /** The cgroup the run is in, when there is one (it may have no memory controller: cgroup v2 without it still counts CPU). */
  cgroup: CgroupKind | undefined;
  /** Where the run's CPU time is read (cpuacct.usage or cpu.stat), or undefined where it cannot be. */
  cpu: CgroupKind | undefined;
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
  cpu: [
    'cpuacct.usage',
    (t) => {
      const ns = num(t);
      return ns === undefined ? undefined : ns / 1e9;
    },
  ],
};

const V2: CgroupFiles = {
  method: 'cgroup-v2',
  limit: 'memory.max',
  unlimited: 'max',
  swap: ['memory.swap.max', () => '0'],
  peak: 'memory.peak',
  oomKilled: async (read) => Number(/oom_kill (\d+)/.exec(await read('memory.events'))?.[1] ?? 0) > 0,
  // cpu.stat is there whether or not the cpu controller is enabled; usage_usec is user + system.
  cpu: [
    'cpu.stat',
    (t) => {
      const us = num(/^usage_usec (\d+)$/m.exec(t)?.[1]);
      return us === undefined ? undefined : us / 1e6;
    },
  ],
};

/** Where CPU time is read in a cgroup of a kind: its file, and its value in seconds. */
const CPU_FILES: Record<CgroupKind, CgroupFiles['cpu']> = { 'cgroup-v1': V1.cpu, 'cgroup-v2': V2.cpu };

/** Where a v1 jail's twins go: the CPU accounting (v1 cpuacct, else the hybrid layout's unified v2) and pids hierarchies' cgroups of this process (v2 has one hierarchy). */
interface TwinBases {
  cpu?: { base: string; kind: CgroupKind } | undefined;
  pids?: string | undefined;
}

/**
 * The cgroup whose pids.max is `max`, made beside the run's `dir`: with v1 a twin of the same name in
 * `pidsBase`; with v2 `dir` itself, where its parent hands the pids controller down (cgroups.ts).
 * Undefined where neither works: the caller then counts processes another way.
 */
async function pidsCgroup(v: CgroupFiles, dir: string, pidsBase: string | undefined, max: number): Promise<string | undefined> {
  if (v.method === 'cgroup-v2')
    return fs.writeFile(path.join(dir, 'pids.max'), String(max)).then(
      () => dir,
      () => undefined,
    );
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
 * unless the memory hierarchy carries cpuacct itself; without one, CPU time stays unknown. A v2 cgroup
 * without the memory controller is kept all the same, for its CPU time (cpu.stat is in every v2 cgroup),
 * its processes and cgroup.kill; its memory limit is then RLIMIT_AS. With `processes`, pids.max caps the
 * processes (pidsCgroup).
 */
async function tryCgroup(
  v: CgroupFiles,
  base: string,
  limitBytes: number | undefined,
  twins: TwinBases,
  processes: number | undefined,
): Promise<MemoryJail | undefined> {
  const name = `${CGROUP_PREFIX}${ownerTag()}-${++seq}`;
  const dir = path.join(base, name);
  let memoryHere: boolean;
  try {
    await fs.mkdir(dir);
    memoryHere = v.method === 'cgroup-v1' || existsSync(path.join(dir, v.limit));
    if (memoryHere) await fs.writeFile(path.join(dir, v.limit), limitBytes === undefined ? v.unlimited : String(limitBytes));
    else if (!existsSync(path.join(dir, v.cpu[0]))) throw new Error('a v2 cgroup without cpu.stat');
  } catch {
    await fs.rmdir(dir).catch(() => undefined);
    return undefined;
  }
  if (memoryHere && limitBytes !== undefined) await fs.writeFile(path.join(dir, v.swap[0]), v.swap[1](limitBytes)).catch(() => undefined);
  const twin = twins.cpu;
  const [cpuDir, cpuKind] = existsSync(path.join(dir, v.cpu[0]))
    ? [dir, v.method]
    : twin
      ? [
          await fs.mkdir(path.join(twin.base, name)).then(
            () => path.join(twin.base, name),
            () => undefined,
          ),
          twin.kind,
        ]
      : [undefined, undefined];
  const pidsDir = processes === undefined ? undefined : await pidsCgroup(v, dir, twins.pids, processes);
  const dirs = [...new Set([dir, cpuDir, pidsDir].filter((d): d is string => !!d))];
  const read = (f: string, d = dir) => fs.readFile(path.join(d, f), 'utf8').catch(() => '');
  const procs = async (d: string) => (await read('cgroup.procs', d)).split('\n').filter(Boolean).map(Number);
  // Without the memory controller: RLIMIT_AS inside the cgroup, and the peak sampled as rlimitJail does.
  const rlimit = memoryHere ? undefined : rlimitJail(limitBytes);
  const cpuFile = cpuKind && CPU_FILES[cpuKind];
  return {
    method: rlimit ? 'rlimit' : v.method,
    cgroup: v.method,
    cpu: cpuDir ? cpuKind : undefined,
    wrap: (cmd, args) => {
      const [c, a] = rlimit ? rlimit.wrap(cmd, args) : [cmd, args];
      return ['/bin/sh', ['-c', JOIN, 'satlution-join', ...dirs.map((d) => path.join(d, 'cgroup.procs')), '--', c, ...a]];
    },
    peakMb: async (pid) => {
      if (rlimit) return rlimit.peakMb(pid);
      const b = Number(await read(v.peak));
      return b > 0 ? b / 2 ** 20 : undefined;
    },
    cpuS: async () => {
      if (!cpuDir || !cpuFile) return undefined;
      // A process SIGKILLed a moment ago may still be exiting, and still adding to the count.
      for (let i = 0; i < 50 && (await procs(cpuDir)).length; i++) await new Promise((r) => setTimeout(r, 20));
      return cpuFile[1](await read(cpuFile[0], cpuDir));
    },
    oomKilled: () => (rlimit ? Promise.resolve(false) : v.oomKilled(read)),
    // Every twin's: a process that moved itself out of one (root can, without the sandbox) is still found in the others.
    pids: async () => [...new Set((await Promise.all(dirs.map(procs))).flat())],
    // r+ never creates the file: v1 cgroups and kernels before 5.14 have none.
    killAll: async () =>
      (
        await Promise.all(
          dirs.map((d) =>
            fs.writeFile(path.join(d, 'cgroup.kill'), '1', { flag: 'r+' }).then(
              () => true,
              () => false,
            ),
          ),
        )
      ).some(Boolean),
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

/** RLIMIT_AS through prlimit (none without `limitBytes`), and the peak sampled from /proc while the run runs. */
function rlimitJail(limitBytes: number | undefined): MemoryJail {
  let peakKb = 0;
  return {
    method: 'rlimit',
    cgroup: undefined,
    cpu: undefined,
    wrap: (cmd, args) => (limitBytes === undefined ? [cmd, args] : ['prlimit', [`--as=${limitBytes}`, '--', cmd, ...args]]),
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

/** The kind of cgroup that worked last, tried first next time; 'none' once none could be made. */
let preferred: CgroupKind | 'none' | undefined;

/** The best cgroup jail here (or the one `method` names, which throws where it is not available); undefined when none. */
async function cgroupJail(limitBytes: number | undefined, method: MemoryMethod | undefined, processes: number | undefined): Promise<MemoryJail | undefined> {
  if (method === 'rlimit' || (method === undefined && preferred === 'none')) return undefined;
  const own = ownCgroups();
  const v2 = await prepareV2();
  if ((method === undefined || method === 'cgroup-v1') && own.memory && preferred !== 'cgroup-v2') {
    // CPU time from v1's cpuacct, else from the hybrid layout's unified hierarchy.
    const cpu = own.cpuacct ? { base: own.cpuacct, kind: 'cgroup-v1' as const } : v2 ? { base: v2.dir, kind: 'cgroup-v2' as const } : undefined;
    const j = await tryCgroup(V1, own.memory, limitBytes, { cpu, pids: own.pids }, processes);
    if (j) return ((preferred = 'cgroup-v1'), j);
  }
  if ((method === undefined || method === 'cgroup-v2') && v2) {
    const j = await tryCgroup(V2, v2.dir, limitBytes, {}, processes);
    // A forced cgroup-v2 must limit memory itself.
    if (j && method === 'cgroup-v2' && limitBytes !== undefined && j.method !== 'cgroup-v2') await j.dispose();
    else if (j) return ((preferred = 'cgroup-v2'), j);
  }
  if (method) throw new Error(`${method} memory limits are not available on this machine`);
  preferred = 'none';
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
