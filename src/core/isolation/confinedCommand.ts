// The isolation seam: every execution of candidate-controlled code (builds, solver runs, the coder's
// build and smoke tools, objective functions, the worker on SSH hosts and Slurm nodes) gets its
// command line here. Not to be confused with the agents' path `Sandbox` (agents/sandbox.ts), which
// confines an agent's file edits, or the objectives' process limits (objectives/objectiveRunner.ts).
import * as fs from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { bwrapArgs } from './bwrap';
import { type Confinement, isWithin } from './confinement';
import { bwrapSizesTmpfs, requireIsolation } from './probe';
import type { IsolationMode, IsolationSettings } from './settings';

/** A command ready to spawn: the program, its arguments, its environment and working directory. */
export interface Confined {
  cmd: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  mode: IsolationMode;
  /** The size the sandbox's /tmp and /var/tmp got (each); absent: unbounded by size, or no sandbox. */
  tmpBytes?: number;
}

/**
 * `cmd args` under `c`. With bubblewrap the sandbox is the command; with `off` the command runs
 * directly, but still with only the allow-listed environment. Throws IsolationUnavailable when the
 * settings ask for a sandbox this machine cannot make.
 */
export async function confine(settings: IsolationSettings, c: Confinement, cmd: string, args: string[]): Promise<Confined> {
  for (const d of [c.env.HOME, c.env.TMPDIR]) if (d && c.writable.some((w) => isWithin(d, w))) await fs.mkdir(d, { recursive: true });
  if (settings.mode === 'off') return { cmd, args, env: c.env, cwd: c.cwd, mode: 'off' };
  const bwrap = await requireIsolation(settings);
  // A bwrap older than 0.8.0 cannot bound a tmpfs: /tmp then takes what memory allows.
  const { tmpBytes, ...rest } = c;
  const sized = tmpBytes !== undefined && (await bwrapSizesTmpfs(bwrap)) ? { tmpBytes } : {};
  const full: Confinement = { ...rest, ...sized, readOnly: [...c.readOnly, ...settings.readOnly] };
  // bwrap itself needs no environment; the sandbox's is set by --setenv after --clearenv.
  return { cmd: bwrap, args: [...bwrapArgs(full), '--', cmd, ...args], env: { PATH: c.env.PATH ?? '/usr/bin:/bin' }, cwd: '/', mode: 'bwrap', ...sized };
}

/**
 * bubblewrap reports a command killed by a signal as exit code 128 + the signal's number; this turns
 * it back into the signal so a crash reads the same with and without the sandbox.
 */
export function exitOfConfined(
  mode: IsolationMode,
  code: number | null,
  signal: NodeJS.Signals | null,
): { code: number | null; signal: NodeJS.Signals | null } {
  if (mode !== 'bwrap' || signal !== null || code === null || code <= 128 || code > 128 + 64) return { code, signal };
  const name = (Object.keys(osConstants.signals) as NodeJS.Signals[]).find((s) => osConstants.signals[s] === code - 128);
  return name ? { code: null, signal: name } : { code, signal };
}
