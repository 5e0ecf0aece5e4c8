// What an evaluator killed with SIGKILL leaves behind, removed by the next one: the cgroups of its
// runs and builds (limits.ts: memory, and with cgroup v1 cpuacct and pids too) with the solvers still
// running in them (also in a dead evaluator's transient systemd scope: cgroups.ts), and its run and build directories
// (runInstance.ts, buildSolver.ts). Every leftover names its owner (owner.ts), so only a dead owner's are
// touched: another evaluator running at the same time keeps everything. Two sweeps may run at once:
// each step tolerates the other having done it already.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownCgroups, prepareV2, SCOPE_NAME, SELF_LEAF_PREFIX } from './cgroups';
import { CGROUP_PREFIX } from './limits';
import { ownerAlive, OWNED_DIR_PREFIXES } from './owner';
import { proofRoot, sweepHolds } from './keptProof';

export interface SweepOptions {
  /** Where run directories are made: evaluation.scratch_dir and the system temp dir (the default). */
  scratchDirs?: readonly string[];
  /** Cgroups to look below; default: this process's own (memory, cpuacct, pids, unified: cgroups.ts), where limits.ts makes a run's cgroups. */
  cgroupBases?: readonly string[];
  /** A run directory named without its owner (older versions) goes once nothing in it changed this long. */
  legacyMaxAgeMs?: number;
}

export interface SweepReport {
  /** Pids sent SIGKILL (solvers of dead evaluators). */
  killed: number[];
  cgroups: string[];
  dirs: string[];
  /** What could not be removed, and why; a sweep never throws. */
  errors: string[];
}

/** Owner of a leftover from its name's tail: `<pid>-<start>-rest` or `<pid>-rest` (older names). */
interface Owner {
  pid: number;
  start?: string;
}

/** `<pid>-<start>-<seq>` (limits.ts), or `<pid>-<seq>` from versions before the start time. */
const CGROUP_NAME = /^(\d+)(?:-(\d+))?-\d+$/;
/** An evaluator's own leaf: `<pid>-<start>` (owner.ts's tag). */
const CGROUP_NAME_SELF = /^(\d+)(?:-(\d+))?$/;
/** `<pid>-<start>-XXXXXX` or `<pid>-XXXXXX`: mkdtemp's six letters and digits end the name. */
const DIR_NAME = /^(\d+)(?:-(\d+))?-[A-Za-z0-9]{6}$/;
/** `XXXXXX` alone: a run directory of a version that did not name its owner; only its age tells. */
const LEGACY_DIR_NAME = /^[A-Za-z0-9]{6}$/;
/** Far longer than any run with its checks: an unnamed run directory untouched this long is over. */
const DAY_MS = 24 * 3600 * 1000;

/** Pauses between kill rounds, letting killed processes leave the cgroup. */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The owner named by `rest` (a name without its prefix), or undefined when it names none. */
function ownerOf(rest: string, re: RegExp): Owner | undefined {
  const m = re.exec(rest);
  return m ? { pid: Number(m[1]), ...(m[2] ? { start: m[2] } : {}) } : undefined;
}

/** Removes a dead evaluator's leftovers; see SweepOptions for where it looks. */
export async function sweepLeftovers(o: SweepOptions = {}): Promise<SweepReport> {
  const report: SweepReport = { killed: [], cgroups: [], dirs: [], errors: [] };
  // Where this evaluator makes its runs' cgroups: in a transient scope, once it moved into one.
  const v2 = o.cgroupBases ? undefined : await prepareV2().catch(() => undefined);
  const own = ownCgroups();
  // Memory before cpuacct and pids: killing a run's solvers there empties its twins as well.
  const bases = o.cgroupBases ?? [own.memory, own.cpuacct, own.pids, own.v2].filter((b): b is string => !!b);
  // Cgroups first: their solvers may still be writing into the run directories.
  for (const base of new Set(bases)) await sweepCgroups(base, report);
  // A killed evaluator's scope stays while its solvers run: beside ours, its runs are killed; systemd then removes it.
  if (v2?.scope) await sweepScopes(path.dirname(v2.dir), report);
  for (const dir of new Set(o.scratchDirs ?? [os.tmpdir()])) {
    await sweepDirs(dir, o.legacyMaxAgeMs ?? DAY_MS, report);
    // Proofs kept for a dead evaluator's audits (keptProof.ts).
    report.dirs.push(...(await sweepHolds(proofRoot(dir), { owners: true })));
  }
  return report;
}

/** Empties and removes each cgroup right below `base` whose owner is dead. */
async function sweepCgroups(base: string, report: SweepReport): Promise<void> {
  for (const e of await fs.readdir(base, { withFileTypes: true }).catch(() => [])) {
    if (!e.isDirectory() || !e.name.startsWith(CGROUP_PREFIX)) continue;
    if (e.name.startsWith(SELF_LEAF_PREFIX)) {
      // A dead evaluator's own leaf (cgroups.ts): removed once empty; what runs in it is not a run's, and is left alone.
      const self = ownerOf(e.name.slice(SELF_LEAF_PREFIX.length), CGROUP_NAME_SELF);
      if (self && !ownerAlive(self.pid, self.start))
        await fs.rmdir(path.join(base, e.name)).then(
          () => report.cgroups.push(path.join(base, e.name)),
          () => undefined,
        );
      continue;
    }
    const owner = ownerOf(e.name.slice(CGROUP_PREFIX.length), CGROUP_NAME);
    if (!owner || ownerAlive(owner.pid, owner.start)) continue;
    const dir = path.join(base, e.name);
    await emptyCgroup(dir, e.name, report);
    const outcome = await removeCgroup(dir);
    // Another sweep that removed it first reports it: each leftover is reported once.
    if (outcome === 'removed') report.cgroups.push(dir);
    else if (outcome !== 'gone') report.errors.push(`${dir}: ${outcome}`);
  }
}

/** Empties the transient scopes (cgroups.ts) in `parent` whose evaluator is dead; the scope itself is systemd's to remove. */
async function sweepScopes(parent: string, report: SweepReport): Promise<void> {
  for (const e of await fs.readdir(parent, { withFileTypes: true }).catch(() => [])) {
    const m = SCOPE_NAME.exec(e.name);
    if (!e.isDirectory() || !m || ownerAlive(Number(m[1]), m[2])) continue;
    await emptyCgroup(path.join(parent, e.name), e.name, report);
  }
}

/** SIGKILLs every process in the cgroup (and in any cgroup a solver made below it) until none is left. */
async function emptyCgroup(dir: string, name: string, report: SweepReport): Promise<void> {
  for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (e.isDirectory()) {
      await emptyCgroup(path.join(dir, e.name), name, report);
      await removeCgroup(path.join(dir, e.name));
    }
  }
  // cgroup v2 (Linux 5.14+) kills the whole cgroup at once, forks in flight included; r+ never creates it.
  await fs.writeFile(path.join(dir, 'cgroup.kill'), '1', { flag: 'r+' }).catch(() => undefined);
  for (let round = 0; round < 250; round++) {
    const pids = (await fs.readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).map(Number);
    if (!pids.length) return;
    for (const pid of pids) {
      // Between reading the list and the kill a pid may die and be reused: kill it only if it is still there.
      if (!(await inCgroup(pid, name))) continue;
      try {
        process.kill(pid, 'SIGKILL');
        if (!report.killed.includes(pid)) report.killed.push(pid);
      } catch {
        // gone already (another sweep, or it ended)
      }
    }
    await sleep(20);
  }
}

/** True when /proc/<pid>/cgroup places the process in (or below) the cgroup called `name`. */
async function inCgroup(pid: number, name: string): Promise<boolean> {
  const text = await fs.readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
  return text.split('\n').some((line) =>
    line
      .slice(line.indexOf(':', line.indexOf(':') + 1) + 1)
      .split('/')
      .includes(name),
  );
}

/** rmdir, retried while the last processes finish exiting: `removed` here, `gone` already (another sweep), or the error when it stays. */
async function removeCgroup(dir: string): Promise<string> {
  let last = '';
  for (let i = 0; i < 100; i++) {
    try {
      await fs.rmdir(dir);
      return 'removed';
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
      last = (e as Error).message;
      await sleep(20);
    }
  }
  return last;
}

/** Removes the run and build directories in `scratch` whose owner is dead (or, unnamed, that are old). */
async function sweepDirs(scratch: string, legacyMaxAgeMs: number, report: SweepReport): Promise<void> {
  const uid = process.getuid?.();
  for (const name of await fs.readdir(scratch).catch(() => [] as string[])) {
    const prefix = OWNED_DIR_PREFIXES.find((p) => name.startsWith(p));
    if (!prefix) continue;
    const rest = name.slice(prefix.length);
    const owner = ownerOf(rest, DIR_NAME);
    if (!owner && !LEGACY_DIR_NAME.test(rest)) continue;
    const dir = path.join(scratch, name);
    // Only real directories of this user: never a link, never someone else's (root sweeps too).
    const st = await fs.lstat(dir).catch(() => undefined);
    if (!st?.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    if (owner ? ownerAlive(owner.pid, owner.start) : Date.now() - (await newestChange(dir, st.mtimeMs)) < legacyMaxAgeMs) continue;
    try {
      await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
      report.dirs.push(dir);
    } catch (e) {
      report.errors.push(`${dir}: ${(e as Error).message}`);
    }
  }
}

/** The latest mtime in a run directory and one level below (its proof/): a run still writing is young. */
async function newestChange(dir: string, mtimeMs: number, depth = 2): Promise<number> {
  let newest = mtimeMs;
  for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const st = await fs.lstat(path.join(dir, e.name)).catch(() => undefined);
    if (!st) continue;
    newest = Math.max(newest, st.mtimeMs);
    if (depth > 1 && st.isDirectory()) newest = Math.max(newest, await newestChange(path.join(dir, e.name), st.mtimeMs, depth - 1));
  }
  return newest;
}
