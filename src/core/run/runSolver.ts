// Runs a solver once by the StarExec convention (bin/starexec_run_default CNF PROOFDIR) under a
// wall-clock limit (SIGTERM, then SIGKILL, to the whole process group and to every process of its
// cgroup) and a memory limit, measuring peak memory. Output is parsed as a stream and capped.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { RUN_SCRIPT } from '../layout';
import { memoryJail, type MemoryMethod } from './limits';
import { SolverOutputParser, type Answer } from './output';
import type { ModelBuilder } from './model';

export type { Answer } from './output';

export interface RunRequest {
  solverDir: string;
  cnf: string;
  proofDir?: string;
  timeoutS: number;
  memMb?: number;
  /** Force a memory-limit method (tests); default: the best available. */
  memoryMethod?: MemoryMethod;
  /** Grace between SIGTERM and SIGKILL. */
  killAfterS?: number;
  /** The formula's variable count (bounds the model; see ModelBuilder). */
  maxVar?: number;
  /** A run that writes more than this to stdout + stderr is stopped. */
  maxOutputMb?: number;
  signal?: AbortSignal;
}

export interface RunOutcome {
  /** The answer of the first `s` line, or null when there was none. */
  answer: Answer | null;
  /** Every `s` line's answer (the format allows exactly one). */
  answers: Answer[];
  badSLines: string[];
  model: ModelBuilder;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timeS: number;
  timedOut: boolean;
  memout: boolean;
  /** Stopped for writing more than maxOutputMb. */
  outputOverflow: boolean;
  aborted: boolean;
  peakMb: number | undefined;
  memoryMethod: MemoryMethod | 'none';
  stdout: string;
  stderr: string;
  outputBytes: number;
}

export async function runSolver(req: RunRequest): Promise<RunOutcome> {
  const script = path.join(req.solverDir, RUN_SCRIPT);
  const args = req.proofDir ? [req.cnf, req.proofDir] : [req.cnf];
  const jail = req.memMb ? await memoryJail(req.memMb, req.memoryMethod) : undefined;
  const [cmd, argv] = jail ? jail.wrap(script, args) : [script, args];
  const maxOutput = (req.maxOutputMb ?? 256) * 2 ** 20;
  const out = new SolverOutputParser(8192, req.maxVar);
  const err = new SolverOutputParser(4096, 0);
  try {
    return await new Promise<RunOutcome>((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = spawn(cmd, argv, { cwd: req.solverDir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let timedOut = false;
      let outputOverflow = false;
      let aborted = false;
      let killTimer: NodeJS.Timeout | undefined;
      let stopping = false;
      const killAll = async (sig: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, sig);
        } catch {
          /* the group is gone */
        }
        // Processes that left the group (setsid) are still in the cgroup.
        for (const pid of (await jail?.pids()) ?? [])
          try {
            process.kill(pid, sig);
          } catch {
            /* gone */
          }
      };
      const stop = () => {
        if (stopping) return;
        stopping = true;
        void killAll('SIGTERM');
        killTimer = setTimeout(() => void killAll('SIGKILL'), (req.killAfterS ?? 1) * 1000);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, req.timeoutS * 1000);
      // With RLIMIT_AS the peak is sampled from /proc while the solver runs.
      const sampler = jail?.method === 'rlimit' ? setInterval(() => void jail.peakMb(child.pid), 50) : undefined;
      const onAbort = () => {
        aborted = true;
        stop();
      };
      req.signal?.addEventListener('abort', onAbort, { once: true });
      const guard = () => {
        if (out.bytes + err.bytes > maxOutput && !outputOverflow) {
          outputOverflow = true;
          stop();
        }
      };
      child.stdout.on('data', (b: Buffer) => {
        out.push(b);
        guard();
      });
      child.stderr.on('data', (b: Buffer) => {
        err.push(b);
        guard();
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`cannot run ${script}: ${e.message}`));
      });
      child.on('close', (code, sig) => {
        const timeS = Number(process.hrtime.bigint() - t0) / 1e9;
        clearTimeout(timer);
        clearTimeout(killTimer);
        clearInterval(sampler);
        req.signal?.removeEventListener('abort', onAbort);
        void (async () => {
          await killAll('SIGKILL'); // leftovers of the group (e.g. a child that ignored SIGTERM)
          out.end();
          err.end();
          const peakMb = await jail?.peakMb(child.pid);
          const oom = (await jail?.oomKilled()) ?? false;
          const nearLimit = req.memMb !== undefined && peakMb !== undefined && peakMb >= 0.9 * req.memMb;
          const allocFailed = /out of memory|bad_alloc|cannot allocate|memory exhausted|allocation failed/i.test(err.excerpt() + out.excerpt());
          const abnormal = sig !== null || (code !== 0 && code !== 10 && code !== 20);
          resolve({
            answer: out.answers[0] ?? null,
            answers: out.answers,
            badSLines: out.badSLines,
            model: out.model,
            exitCode: code,
            signal: sig,
            timeS,
            timedOut,
            memout: !timedOut && (oom || (abnormal && (nearLimit || (jail?.method === 'rlimit' && allocFailed)))),
            outputOverflow,
            aborted,
            peakMb,
            memoryMethod: jail?.method ?? 'none',
            stdout: out.excerpt(),
            stderr: err.excerpt(),
            outputBytes: out.bytes + err.bytes,
          });
        })();
      });
    });
  } finally {
    await jail?.dispose();
  }
}
