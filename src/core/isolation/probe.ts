// Is isolation available here? Finds bubblewrap and tries it once per process (a sandbox that cannot
// start says why: not installed, no user namespaces, not Linux), with the command that fixes it.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { IsolationSettings } from './settings';

/** Why a sandbox cannot be made somewhere, and the command or setting that fixes it. */
export interface IsolationProblem {
  ok: false;
  problem: string;
  fix: string;
}

/** Whether a host can sandbox: yes, or the problem (what runners and health checks carry). */
export type SandboxFacts = { ok: true } | IsolationProblem;

/** The outcome of the probe here: the bwrap to use, or what is missing and how to get it. */
export type IsolationProbe = { ok: true; bwrap: string } | IsolationProblem;

/** Thrown where candidate code would run without the isolation the configuration asks for. */
export class IsolationUnavailable extends Error {
  override name = 'IsolationUnavailable';
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}. ${fix}`);
  }
}

const OFF_HINT =
  'To measure without isolation anyway (evolved code then runs with your full authority), set `sandbox: off` in satlution.yaml or on the runner.';

/** The arguments of the smallest sandbox the real ones need (new user, pid and mount namespaces). */
export const PROBE_ARGS = ['--unshare-all', '--die-with-parent', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'];

/** The package managers bubblewrap is known under, and the command that installs it with each (typed for a person, never run unseen). */
export const BWRAP_INSTALL: readonly { manager: string; command: string }[] = [
  { manager: 'apt-get', command: 'sudo apt-get install -y bubblewrap' },
  { manager: 'dnf', command: 'sudo dnf install -y bubblewrap' },
  { manager: 'pacman', command: 'sudo pacman -S bubblewrap' },
];

/** bubblewrap is not on `where` (a host name): what is missing and the commands that install it. */
export function bwrapMissing(where: string): { problem: string; fix: string } {
  return {
    problem: `bubblewrap (bwrap) is not installed on ${where}`,
    fix: `Install it there: \`sudo apt-get install bubblewrap\` (Debian/Ubuntu), \`sudo dnf install bubblewrap\` (Fedora), \`sudo pacman -S bubblewrap\` (Arch). ${OFF_HINT}`,
  };
}

/** bubblewrap is there but could not make a sandbox; `stderr` is what it said. */
export function bwrapBroken(where: string, stderr: string, code: number | null): { problem: string; fix: string } {
  const why = stderr.trim().split('\n').pop() || `exit ${code}`;
  const userns = /namespace|uid map|Operation not permitted|Permission denied/i.test(stderr);
  return {
    problem: `bubblewrap cannot create a sandbox on ${where} (${why})`,
    fix: userns
      ? `Unprivileged user namespaces are disabled: \`sudo sysctl -w kernel.unprivileged_userns_clone=1\` (Debian), or on Ubuntu 23.10+ \`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\` (or an AppArmor profile for bwrap); inside a container, allow user namespaces. ${OFF_HINT}`
      : OFF_HINT,
  };
}

/** This machine, named so a message read on another machine is still clear. */
const here = () => `this machine (${os.hostname()})`;

/** Finds an executable on PATH (or checks an explicit path). */
export function findExecutable(name: string, searchPath = process.env.PATH ?? ''): string | undefined {
  const candidates = name.includes('/')
    ? [name]
    : searchPath
        .split(':')
        .filter(Boolean)
        .map((d) => path.join(d, name));
  for (const c of candidates)
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* next */
    }
  return undefined;
}

const cache = new Map<string, Promise<IsolationProbe>>();

/** Whether `settings` can be honoured on this machine; cached per bwrap path for the process's life. */
export function probeIsolation(
  settings: Pick<IsolationSettings, 'mode' | 'bwrap'>,
  o: { platform?: NodeJS.Platform; searchPath?: string } = {},
): Promise<IsolationProbe> {
  if (settings.mode === 'off') return Promise.resolve({ ok: true, bwrap: '' });
  const platform = o.platform ?? process.platform;
  if (platform !== 'linux')
    return Promise.resolve({
      ok: false,
      problem: `isolation uses Linux namespaces (bubblewrap), which ${platform === 'darwin' ? 'macOS' : platform} does not have`,
      fix: `Run the evaluation on a Linux runner (SSH or Slurm). ${OFF_HINT}`,
    });
  const bwrap = findExecutable(settings.bwrap ?? 'bwrap', o.searchPath);
  if (!bwrap) {
    const m = bwrapMissing(here());
    return Promise.resolve({
      ok: false,
      problem: settings.bwrap ? `sandbox.bwrap names ${settings.bwrap}, which is not an executable` : m.problem,
      fix: m.fix,
    });
  }
  let p = cache.get(bwrap);
  if (!p) cache.set(bwrap, (p = tryBwrap(bwrap)));
  return p;
}

/** Starts the smallest sandbox the real ones need and reads why it failed. */
function tryBwrap(bwrap: string): Promise<IsolationProbe> {
  return new Promise((resolve) => {
    const child = spawn(bwrap, PROBE_ARGS, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', (e) => resolve({ ok: false, problem: `bubblewrap (${bwrap}) cannot be started: ${e.message}`, fix: OFF_HINT }));
    child.on('close', (code) => resolve(code === 0 ? { ok: true, bwrap } : { ok: false, ...bwrapBroken(here(), err, code) }));
  });
}

const sizes = new Map<string, Promise<boolean>>();

/** Whether `bwrap` takes `--size` (0.8.0 and later), so its tmpfs mounts can be bounded; cached per path. */
export function bwrapSizesTmpfs(bwrap: string): Promise<boolean> {
  let p = sizes.get(bwrap);
  if (!p)
    sizes.set(
      bwrap,
      (p = new Promise((resolve) => {
        const child = spawn(bwrap, ['--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('error', () => resolve(false));
        child.on('close', () => resolve(/^\s*--size\b/m.test(out)));
      })),
    );
  return p;
}

/** Throws IsolationUnavailable unless `settings` can be honoured; returns the bwrap to use ('' when off). */
export async function requireIsolation(settings: Pick<IsolationSettings, 'mode' | 'bwrap'>): Promise<string> {
  const p = await probeIsolation(settings);
  if (!p.ok) throw new IsolationUnavailable(p.problem, p.fix);
  return p.bwrap;
}
