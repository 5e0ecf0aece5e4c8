// Slurm's client commands, run as argument arrays (never a shell line built from data), with the
// caller's environment so SLURM_CONF and friends reach them.
import { spawn } from 'node:child_process';

export interface CmdResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export type SlurmExec = (argv: readonly string[], opts?: { stdin?: string }) => Promise<CmdResult>;

export function localExec(env: NodeJS.ProcessEnv = process.env): SlurmExec {
  return (argv, opts = {}) =>
    new Promise((resolve) => {
      const [cmd, ...args] = argv;
      if (!cmd) throw new Error('empty command');
      const p = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      // A missing command is a result (code null) the caller explains, not a crash.
      p.on('error', (e) => resolve({ code: null, stdout, stderr: stderr + e.message }));
      p.on('close', (code) => resolve({ code, stdout, stderr }));
      p.stdin.on('error', () => {}); // the command may exit before reading stdin
      p.stdin.end(opts.stdin ?? '');
    });
}
