// A confinement as a bubblewrap command line. Every namespace is new (user, pid, mount, net, ipc, uts,
// cgroup), all capabilities are dropped, the process dies with its parent, and the filesystem is a
// fresh tmpfs with the system directories read-only and only the confinement's paths bound in.
import { lstatSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';
import { type Confinement, isWithin } from './confinement';

/** System directories bound read-only (or recreated as the symlinks they are on merged-/usr systems). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt'];

/**
 * The files of /etc that programs and compilers need. Not all of /etc: as root, host keys and
 * shadow files there would be readable.
 */
const ETC_FILES = [
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'passwd',
  'group',
  'nsswitch.conf',
  'localtime',
  'timezone',
  'os-release',
  'debian_version',
  'lsb-release',
  'mime.types',
  'perl',
  'python3',
  'gcc',
  'hosts',
  'host.conf',
  'gai.conf',
  'protocols',
  'services',
  'resolv.conf',
  'ssl/certs',
  'ca-certificates',
  'ca-certificates.conf',
  'environment',
  'locale.alias',
];

/** The `bwrap` arguments (before `--` and the command) that set up `c`. */
export function bwrapArgs(c: Confinement): string[] {
  const a = ['--unshare-all', ...(c.network ? ['--share-net'] : []), '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--clearenv'];
  for (const [k, v] of Object.entries(c.env)) a.push('--setenv', k, v);
  for (const d of SYSTEM_DIRS) {
    const st = lstatOrUndefined(d);
    if (!st) continue;
    if (st.isSymbolicLink()) a.push('--symlink', readlinkSync(d), d);
    else if (st.isDirectory()) a.push('--ro-bind', d, d);
  }
  for (const f of ETC_FILES) a.push('--ro-bind-try', `/etc/${f}`, `/etc/${f}`);
  // Single-threaded get_nprocs() reads this; nothing else of /sys (no cgroup files to escape through).
  a.push('--ro-bind-try', '/sys/devices/system/cpu', '/sys/devices/system/cpu');
  const size = c.tmpBytes === undefined ? [] : ['--size', String(c.tmpBytes)];
  a.push('--proc', '/proc', '--dev', '/dev', ...size, '--tmpfs', '/tmp', ...size, '--tmpfs', '/var/tmp');
  // Parents before children, so a writable run directory under a read-only tree still binds.
  const mounts: [string, string, string][] = [
    ...c.readOnly.filter((p) => !SYSTEM_DIRS.some((d) => isWithin(p, d))).map((p): [string, string, string] => ['--ro-bind', p, p]),
    ...c.writable.map((p): [string, string, string] => ['--bind', p, p]),
    ...c.files.map((f): [string, string, string] => ['--ro-bind', f.from, f.to]),
  ];
  mounts.sort((x, y) => depth(x[2]) - depth(y[2]));
  for (const m of mounts) a.push(...m);
  a.push('--chdir', c.cwd);
  return a;
}

const depth = (p: string) => path.resolve(p).split('/').length;

function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}
