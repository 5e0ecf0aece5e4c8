// Who owns a leftover: cgroups and run directories carry their creator's pid and, where /proc tells
// it, the process's start time (field 22 of /proc/<pid>/stat, in clock ticks since boot). A pid alone
// is reused after its process dies; pid and start time name one process for the whole boot, so a
// sweep can tell a dead evaluator's leftovers from a live one's (see sweep.ts).
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** A solver run's private directory (runInstance.ts, runSolver.ts). */
export const RUN_DIR_PREFIX = 'satlution-run-';
/** A build's scratch directory: its HOME and TMPDIR (buildSolver.ts). */
export const BUILD_DIR_PREFIX = 'satlution-build-';
/** The directories sweep.ts may remove once their owner is dead, named `<prefix><owner>-XXXXXX`. */
export const OWNED_DIR_PREFIXES = [RUN_DIR_PREFIX, BUILD_DIR_PREFIX] as const;

/** A fresh directory in `parent` named after this process, so a sweep can tell when its owner died. */
export function makeOwnedDir(parent: string, prefix: (typeof OWNED_DIR_PREFIXES)[number]): Promise<string> {
  return fs.mkdtemp(path.join(parent, `${prefix}${ownerTag()}-`));
}

/** A process's start time in clock ticks since boot; undefined when it is gone, a zombie, or there is no /proc. */
export function procStart(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and ')': the fields after the last ')' start at field 3.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (rest[0] === 'Z' || rest[0] === 'X') return undefined; // exited, not yet reaped: its work is over
  const start = rest[19];
  return start && /^\d+$/.test(start) ? start : undefined;
}

/** Whether /proc works here, looked up once. */
let procSeen: boolean | undefined;

/** True where /proc shows processes (Linux); elsewhere liveness falls back to kill(pid, 0). */
function hasProc(): boolean {
  return (procSeen ??= procStart(process.pid) !== undefined);
}

/** This process's tag, made once (its start time never changes). */
let selfTag: string | undefined;

/** This process as `<pid>-<start>` (or `<pid>` without /proc): the owner part of its leftovers' names. */
export function ownerTag(): string {
  if (selfTag === undefined) {
    const start = procStart(process.pid);
    selfTag = start ? `${process.pid}-${start}` : String(process.pid);
  }
  return selfTag;
}

/**
 * True while the process that made a leftover may still run: the pid is alive and, when the name
 * recorded a start time, it is the same process (not a later one that got the pid).
 */
export function ownerAlive(pid: number, start?: string): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (hasProc()) {
    const now = procStart(pid);
    return now !== undefined && (start === undefined || now === start);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
