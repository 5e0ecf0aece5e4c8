// Runs a helper program (a build, a proof checker) in its own process group with a time limit,
// keeping the tail of its combined output; the whole group is killed on timeout or abort.
import { spawn } from 'node:child_process';

export interface Captured {
  code: number | null;
  timedOut: boolean;
  /** The last `keepBytes` of stdout and stderr, interleaved as they arrived. */
  output: string;
  timeS: number;
  /** Set when the program could not be started at all. */
  spawnError?: string;
}

export function runCaptured(cmd: string, args: string[], o: { cwd?: string; env?: Record<string, string>; timeoutS: number; keepBytes: number; signal?: AbortSignal }): Promise<Captured> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: o.cwd, ...(o.env ? { env: o.env } : {}), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (d: string) => (output = (output + d).slice(-o.keepBytes));
    // setEncoding decodes UTF-8 across chunk boundaries (compilers print ‘quotes’).
    child.stdout.setEncoding('utf8').on('data', keep);
    child.stderr.setEncoding('utf8').on('data', keep);
    let timedOut = false;
    const kill = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, o.timeoutS * 1000);
    o.signal?.addEventListener('abort', kill, { once: true });
    const finish = (c: Omit<Captured, 'timeS' | 'output' | 'timedOut'>) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', kill);
      resolve({ ...c, output, timedOut, timeS: (Date.now() - t0) / 1000 });
    };
    child.on('error', (e) => finish({ code: null, spawnError: e.message }));
    child.on('close', (code) => finish({ code }));
  });
}
