// Which cores runs are pinned to. Every run on a local runner, and each lane of a side-by-side
// session, gets one core of its own where there are enough: a run sees the same one-CPU mask whether
// it is measured in a race, a perf evaluation or anything else (a solver cannot tell them apart by
// it), and two runs meant to be compared meet the same core.
import { readFileSync } from 'node:fs';
import * as os from 'node:os';

/** The CPUs this process may run on (its affinity, from /proc/self/status), ascending; 0..n-1 where /proc does not say. */
export function allowedCpus(): number[] {
  try {
    const line = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (line) {
      const cpus = line.split(',').flatMap((part) => {
        const [a, b] = part.trim().split('-').map(Number);
        if (a === undefined || !Number.isInteger(a)) return [];
        return b === undefined ? [a] : Number.isInteger(b) && b >= a ? Array.from({ length: b - a + 1 }, (_, i) => a + i) : [];
      });
      if (cpus.length) return cpus;
    }
  } catch {
    // not Linux: fall through
  }
  return Array.from({ length: os.availableParallelism() }, (_, i) => i);
}

/** The CPU slot `slot` of `slots` runs on: the slot-th allowed CPU when every slot has a core of its own, else none (slots would share cores). */
export function slotCpu(slot: number, slots: number): number | undefined {
  const cpus = allowedCpus();
  return slots <= cpus.length ? cpus[slot] : undefined;
}
