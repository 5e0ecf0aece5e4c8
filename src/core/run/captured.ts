// Runs a helper program (a build, a proof checker) in its own process group with a time limit,
// keeping the tail of its combined output; the whole group is killed on timeout or abort, and with a
// jail every process of the jail too (also those that left the group), then and once the program exits.
import { spawn } from 'node:child_process';
import { KILL_ROUNDS, killTree, type Killable } from './killTree';

export interface Captured {
  code: number | null;
  /** The signal that ended the program, if one did (a CPU-time limit's SIGXCPU, a kill). */
  signal?: NodeJS.Signals | null;
  timedOut: boolean;
  /** The last `keepBytes` of stdout and stderr, interleaved as they arrived. */
  output: string;
  timeS: number;
  /** Set when the program could not be started at all. */
  spawnError?: string;
}

export interface CaptureOptions {
  cwd?: string;
  env?: Record<string, string>;
  timeoutS: number;
  keepBytes: number;
  signal?: AbortSignal;
  /** The program's jail (its cgroup), whose processes are killed with its group; a program with a jail leaves nothing behind when it exits. */
  jail?: Killable;
  /** Hears the program's pid once it started. */
  started?: (pid: number) => void;
}

export function runCaptured(cmd: string, args: string[], o: CaptureOptions): Promise<Captured> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: o.cwd, ...(o.env ? { env: o.env } : {}), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) o.started?.(child.pid);
    let output = '';
    const keep = (d: string) => (output = (output + d).slice(-o.keepBytes));
    // setEncoding decodes UTF-8 across chunk boundaries (compilers print ‘quotes’).
    child.stdout.setEncoding('utf8').on('data', keep);
    child.stderr.setEncoding('utf8').on('data', keep);
    let timedOut = false;
    const kill = () => killTree(child.pid, o.jail, 'SIGKILL', o.jail ? KILL_ROUNDS : 1);
    const stop = () => void kill();
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, o.timeoutS * 1000);
    o.signal?.addEventListener('abort', stop, { once: true });
    // What the program left running (a daemon holding its output open) goes with it.
    if (o.jail) child.on('exit', stop);
    const finish = (c: Omit<Captured, 'timeS' | 'output' | 'timedOut'>) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', stop);
      resolve({ ...c, output, timedOut, timeS: (Date.now() - t0) / 1000 });
    };
    child.on('error', (e) => finish({ code: null, spawnError: e.message }));
    child.on('close', (code, sig) => finish({ code, signal: sig }));
  });
}
