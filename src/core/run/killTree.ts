// Ending everything a build or a run started: its process group, and every process of its jail (its
// cgroup), which also holds those that left the group (setsid).

/** What killTree needs of a jail: its processes, and where the kernel can do it, a kill of the whole cgroup. */
export interface Killable {
  pids(): Promise<number[]>;
  /** cgroup v2's cgroup.kill: every process of the cgroup at once, forks in flight included; false where there is none. */
  killAll?(): Promise<boolean>;
}

/**
 * Sends `sig` to the group `groupPid` and to each process of the jail. With `rounds` > 1 (SIGKILL) it
 * goes on while new processes appear in the jail (a fork bomb forks between reading and killing);
 * processes already sent the signal are only dying, and are not waited for.
 */
export async function killTree(groupPid: number | undefined, jail: Killable | undefined, sig: NodeJS.Signals, rounds = 1): Promise<void> {
  const sent = new Set<number>();
  for (let round = 0; round < rounds; round++) {
    if (groupPid !== undefined)
      try {
        process.kill(-groupPid, sig);
      } catch {
        /* the group is gone */
      }
    if (sig === 'SIGKILL') await jail?.killAll?.();
    const fresh = ((await jail?.pids()) ?? []).filter((pid) => !sent.has(pid));
    for (const pid of fresh) {
      sent.add(pid);
      try {
        process.kill(pid, sig);
      } catch {
        /* gone */
      }
    }
    if (!fresh.length) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Kill rounds before giving up on a jail that keeps refilling (pids.max bounds each round). */
export const KILL_ROUNDS = 50;
