// Where this process's cgroups are, on any layout: cgroup v1, pure v2 (a container, a current systemd
// desktop) and the hybrid layout's unified mount, found from /proc/self/mountinfo and /proc/self/cgroup
// rather than fixed paths. And, once per process, the v2 cgroup made ready for runs: where it is ours to
// write (root in a container, a systemd scope or service with Delegate=yes, a subtree chowned to the
// user), this process moves into a leaf of its own so that the memory and pids controllers can be
// handed down to the runs' cgroups. CPU time needs no controller: every v2 cgroup has cpu.stat.
// A normal user whose cgroup is not theirs (an ssh or tty session's scope belongs to root) is moved by
// their systemd user manager into a transient scope with Delegate=yes, as BenchExec does: the editor's
// evaluator and the CLI alike, with no restart.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ownerTag } from './owner';

/** The cgroups of this process, one per hierarchy that is mounted here (directories). */
export interface OwnCgroups {
  /** v1 memory hierarchy. */
  memory?: string;
  /** v1 CPU accounting hierarchy. */
  cpuacct?: string;
  /** v1 process-count hierarchy. */
  pids?: string;
  /** The unified (v2) hierarchy, whether it is the only one or the hybrid layout's second mount. */
  v2?: string;
}

/** One cgroup mount: its type, its v1 controllers (super options), where it is and what part of the hierarchy it shows. */
interface CgroupMount {
  v2: boolean;
  controllers: string[];
  mountPoint: string;
  root: string;
}

/** mountinfo escapes space, tab, newline and backslash in paths as \ooo. */
const decodeMountPath = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

/** The cgroup mounts of a mountinfo text (proc(5): `id parent dev root mountpoint opts [tags] - type source superopts`). */
export function cgroupMounts(mountinfo: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!pre || !post) continue;
    const f = pre.split(' ');
    const [type, , superOpts = ''] = post.split(' ');
    if ((type !== 'cgroup' && type !== 'cgroup2') || f[3] === undefined || f[4] === undefined) continue;
    out.push({
      v2: type === 'cgroup2',
      controllers: type === 'cgroup' ? superOpts.split(',') : [],
      mountPoint: decodeMountPath(f[4]),
      root: decodeMountPath(f[3]),
    });
  }
  return out;
}

/**
 * The directories of this process's cgroups, from the two texts: a hierarchy counts only where it is
 * mounted so that our cgroup is visible (the mount shows a part of the hierarchy that contains it).
 */
export function ownCgroupsOf(procCgroup: string, mountinfo: string): OwnCgroups {
  const mounts = cgroupMounts(mountinfo);
  const out: OwnCgroups = {};
  const dirIn = (m: CgroupMount, p: string): string | undefined => {
    const rel = path.posix.relative(m.root, p);
    return rel === '..' || rel.startsWith('../') || path.posix.isAbsolute(rel) ? undefined : path.join(m.mountPoint, rel);
  };
  // The last mount that shows the path wins, as a later mount hides an earlier one.
  const lastMountDir = (ms: CgroupMount[], p: string) =>
    ms
      .reverse()
      .map((m) => dirIn(m, p))
      .find((d) => d !== undefined);
  for (const line of procCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    const [, id, ctrls, p] = m as unknown as [string, string, string, string];
    if (id === '0' && ctrls === '') {
      const dir =
        out.v2 ??
        lastMountDir(
          mounts.filter((x) => x.v2),
          p,
        );
      if (dir) out.v2 = dir;
      continue;
    }
    const names = ctrls.split(',');
    for (const ctrl of ['memory', 'cpuacct', 'pids'] as const) {
      const dir = names.includes(ctrl)
        ? (out[ctrl] ??
          lastMountDir(
            mounts.filter((x) => !x.v2 && x.controllers.includes(ctrl)),
            p,
          ))
        : undefined;
      if (dir) out[ctrl] = dir;
    }
  }
  return out;
}

const readText = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');

let found: OwnCgroups | undefined;

/** The unified hierarchy's line of /proc/self/cgroup: it changes when this process is moved. */
const unifiedLine = () => /^0::(.*)$/m.exec(readText('/proc/self/cgroup'))?.[1];

/**
 * This process's cgroups, read once: after `prepareV2` moves this process into a leaf, its v2 cgroup
 * stays the one runs are made in (and swept in).
 */
export function ownCgroups(): OwnCgroups {
  found ??= ownCgroupsOf(readText('/proc/self/cgroup'), readText('/proc/self/mountinfo'));
  return found;
}

/** The leaf this process moves into: `satlution-self-<owner>`, never a run's name, removed by a later sweep once its owner is gone. */
export const SELF_LEAF_PREFIX = 'satlution-self-';

/** The transient systemd scope an evaluator moves into: `satlution-<owner>.scope` (owner.ts's tag), beside those of other evaluators. */
export const scopeUnit = (tag: string) => `satlution-${tag}.scope`;
/** A scope's name, with its owner's pid and start time. */
export const SCOPE_NAME = /^satlution-(\d+)-(\d+)\.scope$/;

/** The v2 cgroup made ready for runs: where, and what the runs' cgroups can do there. */
export interface V2Base {
  dir: string;
  /** Controllers handed down to the runs' cgroups (of memory and pids). */
  controllers: string[];
  /** Why memory or pids are not handed down, in words, where one of them is missing. */
  missing?: string;
  /** The transient systemd scope this process moved into for it, when it did. */
  scope?: string;
  /** Other processes share the cgroup, so the controllers that are there could not be handed down. */
  shared?: true;
}

/** What became of the move into a systemd scope, when one was tried: for the runners' health check. */
let scopeAttempt: string | undefined;

/** Why the move into a transient systemd scope failed, when it was tried and failed. */
export const scopeFailure = (): string | undefined => scopeAttempt;

/** `busctl --user` (systemd), with its error in words. */
function busctl(args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('busctl', ['--user', ...args], { timeout: 5000 }, (err, _out, stderr) => resolve(err ? (stderr.trim() || err.message).split('\n')[0] : undefined));
  });
}

/**
 * Asks the user's systemd to move this process into a new transient scope with Delegate=yes
 * (StartTransientUnit with its PID), where it is then the only process and the owner of the cgroup.
 * The scope's name, once this process is in it; undefined where that is not possible.
 */
async function enterDelegatedScope(): Promise<string | undefined> {
  const before = unifiedLine();
  const unit = scopeUnit(ownerTag());
  const err = await busctl([
    'call',
    'org.freedesktop.systemd1',
    '/org/freedesktop/systemd1',
    'org.freedesktop.systemd1.Manager',
    'StartTransientUnit',
    'ssa(sv)a(sa(sv))',
    unit,
    'fail',
    '3',
    'PIDs',
    'au',
    '1',
    String(process.pid),
    'Delegate',
    'b',
    'true',
    'CollectMode',
    's',
    'inactive-or-failed',
    '0',
  ]);
  if (err) {
    scopeAttempt = `no transient systemd scope (busctl --user: ${err})`;
    return undefined;
  }
  // The job moves the process soon after it is queued.
  for (let i = 0; i < 100 && unifiedLine() === before; i++) await new Promise((r) => setTimeout(r, 20));
  if (unifiedLine() === before) {
    scopeAttempt = `systemd started ${unit} but did not move this process into it`;
    return undefined;
  }
  found = undefined;
  return unit;
}

/** The controllers a run's cgroup needs beyond CPU time, which needs none. */
const WANTED = ['memory', 'pids'];

let prepared: Promise<V2Base | undefined> | undefined;

/**
 * The v2 cgroup runs are made in, once per process: undefined where there is none or it is not ours
 * to write. Where memory or pids are available but not handed down, and this process is the only one in
 * its cgroup, it moves into a leaf of its own (the kernel hands controllers down only from a cgroup
 * without processes) and enables them; another process in its cgroup is never moved. A normal user
 * whose cgroup is not theirs, or is shared, first asks systemd for a scope of their own (enterDelegatedScope).
 */
export function prepareV2(): Promise<V2Base | undefined> {
  prepared ??= (async () => {
    const first = await readyV2();
    // A normal user's cgroup that is not theirs, or that they share with other processes: a scope of their own, where systemd gives one.
    if (process.getuid?.() === 0 || process.platform !== 'linux' || !ownCgroups().v2 || (first && !first.shared)) return first;
    const scope = await enterDelegatedScope();
    const then = scope ? await readyV2() : undefined;
    return then ? { ...then, scope } : first;
  })();
  return prepared;
}

/** The v2 cgroup this process is in now, readied for runs (prepareV2), or undefined where it cannot be written. */
async function readyV2(): Promise<V2Base | undefined> {
  const dir = ownCgroups().v2;
  if (!dir) return undefined;
  const writable = await fs
    .access(path.join(dir, 'cgroup.procs'), fs.constants.W_OK)
    .then(() => fs.access(dir, fs.constants.W_OK))
    .then(
      () => true,
      () => false,
    );
  if (!writable) return undefined;
  const words = async (f: string) => (await fs.readFile(path.join(dir, f), 'utf8').catch(() => '')).split(/\s+/).filter(Boolean);
  const available = (await words('cgroup.controllers')).filter((c) => WANTED.includes(c));
  let enabled = (await words('cgroup.subtree_control')).filter((c) => WANTED.includes(c));
  const toEnable = available.filter((c) => !enabled.includes(c));
  let why: string | undefined;
  let shared = false;
  if (toEnable.length) {
    const enable = () =>
      fs.writeFile(path.join(dir, 'cgroup.subtree_control'), toEnable.map((c) => `+${c}`).join(' ')).then(
        () => true,
        () => false,
      );
    let ok = await enable();
    if (!ok) {
      const procs = (await words('cgroup.procs')).map(Number);
      if (procs.length === 1 && procs[0] === process.pid) {
        const leaf = path.join(dir, `${SELF_LEAF_PREFIX}${ownerTag()}`);
        await fs.mkdir(leaf).catch(() => undefined);
        ok =
          (await fs.writeFile(path.join(leaf, 'cgroup.procs'), String(process.pid)).then(
            () => true,
            () => false,
          )) && (await enable());
      } else {
        shared = true;
        why = `${dir} holds other processes than this one, so its controllers cannot be handed down (the kernel allows that only from a cgroup without processes)`;
      }
    }
    if (ok) enabled = (await words('cgroup.subtree_control')).filter((c) => WANTED.includes(c));
    else why ??= `${toEnable.join(' and ')} could not be enabled in ${path.join(dir, 'cgroup.subtree_control')}`;
  }
  const lacking = WANTED.filter((c) => !enabled.includes(c));
  const notThere = lacking.filter((c) => !available.includes(c));
  if (lacking.length && !why)
    why = `${notThere.join(' and ')} ${notThere.length > 1 ? 'are' : 'is'} not among the controllers of ${dir}${notThere.length < WANTED.length ? '' : ' (with cgroup v1 mounted too, they may be bound to v1)'}`;
  return { dir, controllers: enabled, ...(lacking.length ? { missing: why } : {}), ...(shared ? { shared: true as const } : {}) };
}
