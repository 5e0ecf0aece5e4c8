// Runs a solver once by the StarExec convention (bin/starexec_run_default CNF PROOFDIR) under a
// wall-clock limit: SIGTERM, then SIGKILL, to the whole process group so helper processes die too.
// Output is read as a stream (the `s` line is found without holding all of stdout) and capped.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { RUN_SCRIPT } from '../workspace/layout';

export type Answer = 'SAT' | 'UNSAT' | 'UNKNOWN' | null;

export interface RunRequest {
  solverDir: string;
  cnf: string;
  proofDir?: string;
  timeoutS: number;
  /** Grace between SIGTERM and SIGKILL. */
  killAfterS?: number;
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

export interface RunOutcome {
  answer: Answer;
  /** More than one `s` line was printed. */
  conflictingAnswers: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timeS: number;
  timedOut: boolean;
  stdoutTail: string;
  stderrTail: string;
  outputTruncated: boolean;
}

const S_LINE = /^s\s+(SATISFIABLE|UNSATISFIABLE|UNKNOWN)\s*$/;
const ANSWERS: Record<string, Answer> = { SATISFIABLE: 'SAT', UNSATISFIABLE: 'UNSAT', UNKNOWN: 'UNKNOWN' };

/** The answer of an `s` line, or undefined for any other line. */
export function parseSLine(line: string): Answer | undefined {
  const m = S_LINE.exec(line);
  return m ? ANSWERS[m[1]!] : undefined;
}

export function runSolver(req: RunRequest): Promise<RunOutcome> {
  const script = path.join(req.solverDir, RUN_SCRIPT);
  const cap = req.maxOutputBytes ?? 1 << 20;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(script, req.proofDir ? [req.cnf, req.proofDir] : [req.cnf], {
      cwd: req.solverDir,
      detached: true, // its own process group, killed as a whole
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const answers: Answer[] = [];
    let outBytes = 0;
    let truncated = false;
    let pending = '';
    let stdoutTail = '';
    let stderrTail = '';
    let timedOut = false;
    const keep = (tail: string, chunk: string) => (tail + chunk).slice(-4096);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      outBytes += chunk.length;
      if (outBytes > cap) truncated = true;
      stdoutTail = keep(stdoutTail, chunk);
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      if (pending.length > 65536) pending = pending.slice(-16); // a line this long is a `v` line, not `s`
      for (const l of lines) {
        const a = parseSLine(l);
        if (a) answers.push(a);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderrTail = keep(stderrTail, chunk)));
    const killGroup = (sig: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        /* already gone */
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      killTimer = setTimeout(() => killGroup('SIGKILL'), (req.killAfterS ?? 2) * 1000);
    };
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, req.timeoutS * 1000);
    const onAbort = () => stop();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${script}: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      killGroup('SIGKILL'); // orphans left in the group
      req.signal?.removeEventListener('abort', onAbort);
      const last = parseSLine(pending);
      if (last) answers.push(last);
      resolve({
        answer: answers[0] ?? null,
        conflictingAnswers: answers.length > 1, // the format allows exactly one `s` line
        exitCode: code,
        signal: sig,
        timeS: Number(process.hrtime.bigint() - t0) / 1e9,
        timedOut,
        stdoutTail,
        stderrTail,
        outputTruncated: truncated,
      });
    });
  });
}
