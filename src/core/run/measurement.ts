// How this host measures and limits a run, found by making the jail a run would get: where its CPU
// time comes from (or why there is none, and what fixes that), how its memory and processes are
// bounded. The local health check shows it; the worker prints it for SSH hosts and Slurm nodes.
import { z } from 'zod';
import { ownCgroups, prepareV2, scopeFailure } from './cgroups';
import { memoryJail } from './limits';

/** What a host can measure of a run, in words a person can act on. */
export const Measurement = z.object({
  /** Where CPU time comes from, or null where it is not measured. */
  cpu: z.enum(['cgroup-v1', 'cgroup-v2']).nullable(),
  cpu_detail: z.string(),
  /** What to do to get CPU time, where it is missing. */
  cpu_fix: z.string().optional(),
  memory: z.enum(['cgroup-v1', 'cgroup-v2', 'rlimit']),
  memory_detail: z.string(),
});
export type Measurement = z.infer<typeof Measurement>;

/** What gives a run CPU time where none is measured now: the one command or setting for this situation. */
export function cpuFix(): string {
  const own = ownCgroups();
  if (!own.v2 && !own.cpuacct)
    return 'no cgroup hierarchy is mounted here: mount cgroup2 at /sys/fs/cgroup (a container: run it with its own cgroup namespace, `docker run --cgroupns=private`)';
  if (process.getuid?.() === 0)
    return `this process cannot write its cgroup ${own.v2 ?? own.cpuacct}: mount the cgroup filesystem read-write (a container: \`docker run --cgroupns=private\`, not a read-only /sys/fs/cgroup)`;
  const tried = scopeFailure();
  return `start VS Code, or the satlution command, in a cgroup of your own: \`systemd-run --user --scope -p Delegate=yes code\` (or \`... satlution ...\`); without a systemd user manager, an administrator can chown a cgroup-v2 subtree to you, as Delegate=yes does${tried ? ` (moving into a scope by itself failed here: ${tried})` : ''}`;
}

/** How runs on this host are measured: found by making (and removing) the jail a run with a memory limit and a process cap gets. */
export async function measurementHere(): Promise<Measurement> {
  const jail = await memoryJail(64, undefined, 1024);
  await jail.dispose();
  const v2 = await prepareV2();
  // A v1 jail reads CPU from cpuacct, or from the unified hierarchy where cpuacct is not mounted (limits.ts).
  const base = jail.cpu === 'cgroup-v2' ? v2?.dir : ownCgroups().cpuacct;
  const cpuFile = jail.cpu === 'cgroup-v2' ? 'cpu.stat' : 'cpuacct.usage';
  return {
    cpu: jail.cpu ?? null,
    cpu_detail: jail.cpu
      ? `user + system of each run's whole process tree, orphans included, from ${cpuFile} of its own cgroup (${jail.cpu}, below ${base}${v2?.scope ? `, in the transient systemd scope ${v2.scope}` : ''})`
      : 'not measured: no cgroup this user can write here, and rusage misses processes that leave the run; decisions and figures use wall time',
    ...(jail.cpu ? {} : { cpu_fix: cpuFix() }),
    memory: jail.method,
    memory_detail:
      jail.method === 'rlimit'
        ? `RLIMIT_AS on each process${jail.cgroup ? ` (its ${jail.cgroup} has no memory controller${v2?.missing ? `: ${v2.missing}` : ''})` : ''}; peak memory sampled from /proc`
        : `memory limit and peak from each run's ${jail.method}`,
  };
}

let here: Promise<Measurement> | undefined;

/** Whether runs on this machine get a CPU time (measurementHere, found once per process): what the rule in force may call its basis. */
export async function cpuMeasuredHere(): Promise<boolean> {
  here ??= measurementHere();
  return (await here.catch(() => undefined))?.cpu != null;
}
