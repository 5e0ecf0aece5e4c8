// Memory limits for one solver run, and the measured peak: a cgroup (v1 or v2) where this process
// may create one, else RLIMIT_AS through prlimit. A cgroup also lets us find and kill every process
// of a run, including one that left the process group.
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
  /** True when the kernel's OOM killer ended a process of the run. */
  oomKilled(): Promise<boolean>;
  /** Every process of the run still alive (cgroups only). */
  pids(): Promise<number[]>;
  dispose(): Promise<void>;
}

let seq = 0;

/**
 * A run's cgroup is `satlution-<pid>-<start>-<seq>` (owner.ts): the owner's pid and start time let
 * sweep.ts tell a dead evaluator's cgroups from a live one's, and a later process that gets the same
 * pid never collides with a leftover of the earlier one.
 */
export const CGROUP_PREFIX = 'satlution-';

/** This process's cgroup for each hierarchy: the run cgroups are made below it (and swept there). */
export function ownCgroup(): { v1?: string; v2?: string } {
  const text = existsSync('/proc/self/cgroup') ? readFileSync('/proc/self/cgroup', 'utf8') : '';
  const out: { v1?: string; v2?: string } = {};
  for (const line of text.split('\n')) {
    const [, ctrls, p] = line.split(':');
    if (ctrls === undefined || p === undefined) continue;
    if (ctrls.split(',').includes('memory')) out.v1 = path.join('/sys/fs/cgroup/memory', p);
    if (ctrls === '' && existsSync('/sys/fs/cgroup/cgroup.controllers')) out.v2 = path.join('/sys/fs/cgroup', p);
  }
  return out;
}

// The child joins the cgroup before exec, so it never allocates outside it. The script is a fixed
// string; the cgroup file and the command are passed as arguments, never interpolated.
const JOIN = 'echo $$ > "$0" && exec "$@"';

/** The files that differ between the two cgroup versions; everything else is shared. */
interface CgroupFiles {
  method: 'cgroup-v1' | 'cgroup-v2';
  limit: string;
  /** Keeps swap out of the way (best effort: not every kernel accounts it). */
  swap: [file: string, value: (limitBytes: number) => string];
  peak: string;
  oomKilled: (read: (f: string) => Promise<string>) => Promise<boolean>;
}

const V1: CgroupFiles = {
  method: 'cgroup-v1',
  limit: 'memory.limit_in_bytes',
  swap: ['memory.memsw.limit_in_bytes', (b) => String(b)],
  peak: 'memory.max_usage_in_bytes',
  oomKilled: async (read) => {
    const oom = /oom_kill (\d+)/.exec(await read('memory.oom_control'));
    return oom ? Number(oom[1]) > 0 : Number(await read('memory.failcnt')) > 0;
  },
};

const V2: CgroupFiles = {
  method: 'cgroup-v2',
  limit: 'memory.max',
  swap: ['memory.swap.max', () => '0'],
  peak: 'memory.peak',
  oomKilled: async (read) => Number(/oom_kill (\d+)/.exec(await read('memory.events'))?.[1] ?? 0) > 0,
};

async function tryCgroup(base: string, limitBytes: number, v: CgroupFiles): Promise<MemoryJail | undefined> {
  const dir = path.join(base, `${CGROUP_PREFIX}${ownerTag()}-${++seq}`);
  try {
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, v.limit), String(limitBytes));
  } catch {
    await fs.rmdir(dir).catch(() => undefined);
    return undefined;
  }
  await fs.writeFile(path.join(dir, v.swap[0]), v.swap[1](limitBytes)).catch(() => undefined);
  const read = (f: string) => fs.readFile(path.join(dir, f), 'utf8').catch(() => '');
  return {
    method: v.method,
    wrap: (cmd, args) => ['/bin/sh', ['-c', JOIN, path.join(dir, 'cgroup.procs'), cmd, ...args]],
    peakMb: async () => {
      const b = Number(await read(v.peak));
      return b > 0 ? b / 2 ** 20 : undefined;
    },
    oomKilled: () => v.oomKilled(read),
    pids: async () => (await read('cgroup.procs')).split('\n').filter(Boolean).map(Number),
    dispose: () => removeCgroup(dir),
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
    oomKilled: async () => false,
    pids: async () => [],
    dispose: async () => undefined,
  };
}

let preferred: 'cgroup-v1' | 'cgroup-v2' | 'rlimit' | undefined;

/** A jail for one run; `method` forces one (tests), otherwise the best that works here. */
export async function memoryJail(limitMb: number, method?: MemoryMethod): Promise<MemoryJail> {
  const bytes = Math.floor(limitMb * 2 ** 20);
  const own = ownCgroup();
  if ((method ?? preferred) !== 'rlimit') {
    if ((method === undefined || method === 'cgroup-v1') && own.v1 && preferred !== 'cgroup-v2') {
      const j = await tryCgroup(own.v1, bytes, V1);
      if (j) return (preferred = 'cgroup-v1'), j;
    }
    if ((method === undefined || method === 'cgroup-v2') && own.v2) {
      const j = await tryCgroup(own.v2, bytes, V2);
      if (j) return (preferred = 'cgroup-v2'), j;
    }
    if (method && method !== 'rlimit') throw new Error(`${method} memory limits are not available on this machine`);
  }
  if (method === undefined) preferred = 'rlimit';
  return rlimitJail(bytes);
}
