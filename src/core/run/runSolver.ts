// Runs a solver once by the StarExec convention (bin/starexec_run_default CNF PROOFDIR) in its
// sandbox (isolation/), under a wall-clock limit (SIGTERM, then SIGKILL, to the whole process group
// and to every process of its cgroup), a memory limit and the limits of candidate code (processes,
// scratch space: resourceGuard.ts), measuring peak memory and CPU time. Output is parsed as
// a stream and capped. A run ends when its process exits, not when its output closes: a child that
// keeps stdout open cannot stretch a finished run into a timeout.
import { existsSync } from 'node:fs';
import { makeOwnedDir, RUN_DIR_PREFIX } from './owner';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { confine, exitOfConfined } from '../isolation/confinedCommand';
import { solverRunConfinement } from '../isolation/confinement';
import { DEFAULT_ISOLATION, type IsolationMode, type IsolationSettings, limitsOf } from '../isolation/settings';
import { RUN_SCRIPT } from '../layout';
import { accountingJail, memoryJail, type MemoryMethod } from './limits';
import { boundsInWords, processTree, startGuard, treeBytes } from './resourceGuard';
import { KILL_ROUNDS, killTree } from './killTree';
import { SolverOutputParser, type Answer } from './output';
import type { ModelBuilder } from './modelCheck';

export type { Answer } from './output';

export interface RunRequest {
  solverDir: string;
  /** The instance (plain DIMACS). The solver is handed `<runDir>/instance.cnf`: a read-only view of it in the sandbox, a copy without. */
  cnf: string;
  /** The run's private, fresh directory: the only place the solver may write besides proofDir. Made and removed here when absent. */
  runDir?: string;
  /** Where the solver writes its proof (inside runDir, or another private directory). */
  proofDir?: string;
  /** Stop the run once proofDir holds more than this (evaluation.proof_max_mb); unbounded when absent. */
  maxProofMb?: number;
  /** How the solver is confined (default: bubblewrap). */
  isolation?: IsolationSettings;
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
  /** Pin the run to this CPU (taskset), so two runs meant to be compared meet the same core (measureTogether.ts). */
  cpu?: number;
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
  /** Wall-clock seconds from spawn to exit. */
  timeS: number;
  /**
   * User + system CPU seconds of the run's whole process tree, from its cgroup (limits.ts); undefined
   * without one (RLIMIT_AS), as rusage does not cross the sandbox's pid namespace.
   */
  cpuS: number | undefined;
  timedOut: boolean;
  memout: boolean;
  /** Stopped for writing more than maxOutputMb. */
  outputOverflow: boolean;
  /** Stopped because its proof grew past maxProofMb. */
  proofOverflow: boolean;
  /** The limit of candidate code the run went over (processes, scratch space), in words; absent when none. */
  overLimit?: string;
  /** How its processes and scratch were bounded, in words for the run log. */
  limits?: string;
  aborted: boolean;
  peakMb: number | undefined;
  /** How the memory limit was enforced; `none` without one (the run may still have had a cgroup, for CPU time). */
  memoryMethod: MemoryMethod | 'none';
  isolation: IsolationMode;
  stdout: string;
  stderr: string;
  outputBytes: number;
}

/** taskset (util-linux), for pinned runs; without it runs are not pinned. */
const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((f) => existsSync(f));

/** How often a run's proof directory is measured against evaluation.proof_max_mb. */
const PROOF_WATCH_MS = 250;

/** The solver's view of its instance: a neutral name that says nothing of which benchmark it is. */
export const GIVEN_INSTANCE = 'instance.cnf';

export async function runSolver(req: RunRequest): Promise<RunOutcome> {
  const own = req.runDir ? undefined : await makeOwnedDir(os.tmpdir(), RUN_DIR_PREFIX);
  try {
    return await runIn(req, req.runDir ?? own!);
  } finally {
    if (own) await fs.rm(own, { recursive: true, force: true });
  }
}

async function runIn(req: RunRequest, runDir: string): Promise<RunOutcome> {
  const script = path.join(req.solverDir, RUN_SCRIPT);
  const isolation = req.isolation ?? DEFAULT_ISOLATION;
  const given = path.join(runDir, GIVEN_INSTANCE);
  if (isolation.mode === 'off') await fs.copyFile(req.cnf, given);
  const args = req.proofDir ? [given, req.proofDir] : [given];
  const limits = limitsOf(isolation);
  const confinement = solverRunConfinement({
    solverDir: path.resolve(req.solverDir),
    instance: isolation.mode === 'off' ? given : path.resolve(req.cnf),
    given,
    runDir,
    proofDir: req.proofDir,
    readOnly: [],
  });
  const confined = await confine(isolation, { ...confinement, tmpBytes: Math.floor(limits.diskMaxMb * 2 ** 20) }, script, args);
  // The affinity is inherited by bwrap and everything it starts.
  const boxed = req.cpu !== undefined && TASKSET ? { ...confined, cmd: TASKSET, args: ['-c', String(req.cpu), confined.cmd, ...confined.args] } : confined;
  // Without a memory limit the run still gets a cgroup where one can be made: CPU time needs it.
  const jail = req.memMb ? await memoryJail(req.memMb, req.memoryMethod, limits.processesMax) : await accountingJail(req.memoryMethod, limits.processesMax);
  const [cmd, argv] = jail ? jail.wrap(boxed.cmd, boxed.args) : [boxed.cmd, boxed.args];
  // Everything it writes counts but the proof (proof_max_mb bounds that) and the instance (a copy without the sandbox).
  const scratch = { dirs: [runDir], skip: [given, ...(req.proofDir ? [path.resolve(req.proofDir)] : [])] };
  const limitGuard = startGuard({
    what: 'the run',
    limits,
    jail,
    scratch,
    ...(confined.tmpBytes ? { tmpfs: { mounts: ['/tmp', '/var/tmp'], bytes: confined.tmpBytes } } : {}),
  });
  const maxOutput = (req.maxOutputMb ?? 256) * 2 ** 20;
  const out = new SolverOutputParser(8192, req.maxVar);
  const err = new SolverOutputParser(4096, 0);
  try {
    return await new Promise<RunOutcome>((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const child = spawn(cmd, argv, { cwd: boxed.cwd, env: boxed.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let timedOut = false;
      let outputOverflow = false;
      let proofOverflow = false;
      let overLimit: string | undefined;
      let aborted = false;
      let killTimer: NodeJS.Timeout | undefined;
      let stopping = false;
      // SIGKILL goes on while the cgroup refills; SIGTERM once.
      const killAll = (sig: NodeJS.Signals) => killTree(child.pid, jail, sig, sig === 'SIGKILL' ? KILL_ROUNDS : 1);
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
      if (child.pid !== undefined)
        limitGuard.start(child.pid, (reason) => {
          overLimit = reason;
          stop();
        });
      // With RLIMIT_AS the peak is sampled from /proc while the solver runs, over its whole process
      // tree (the sandbox and the run script are parents of the solver proper).
      const sample = async () => {
        for (const pid of await processTree(child.pid)) await jail?.peakMb(pid);
      };
      const sampler = jail?.method === 'rlimit' ? setInterval(() => void sample(), 50) : undefined;
      // The proof is the one thing a run may write without the scratch limit: it has its own, checked as often.
      const proofDir = req.proofDir;
      const proofMax = req.maxProofMb === undefined ? undefined : req.maxProofMb * 2 ** 20;
      const proofWatch =
        proofDir && proofMax !== undefined
          ? setInterval(() => {
              void treeBytes([proofDir], [], proofMax).then((b) => {
                if (b > proofMax && !proofOverflow) {
                  proofOverflow = true;
                  stop();
                }
              });
            }, PROOF_WATCH_MS)
          : undefined;
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
      let exited: { code: number | null; sig: NodeJS.Signals | null; timeS: number } | undefined;
      let reaped: Promise<void> = Promise.resolve();
      let finished = false;
      const finish = () => {
        if (finished || !exited) return;
        finished = true;
        const { code, signal: sig } = exitOfConfined(boxed.mode, exited.code, exited.sig);
        const timeS = exited.timeS;
        clearTimeout(timer);
        clearTimeout(killTimer);
        clearTimeout(closeTimer);
        clearInterval(sampler);
        clearInterval(proofWatch);
        req.signal?.removeEventListener('abort', onAbort);
        // A run that outlived its limit (the timer fired late on a busy event loop) is a timeout.
        if (timeS > req.timeoutS) timedOut = true;
        void (async () => {
          await reaped;
          overLimit ??= await limitGuard.end();
          out.end();
          err.end();
          // After the kills above: the count is final only once every process of the run is gone.
          const cpuS = await jail?.cpuS();
          const peakMb = await jail?.peakMb(undefined);
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
            cpuS,
            timedOut,
            memout: !timedOut && (oom || (abnormal && (nearLimit || (jail?.method === 'rlimit' && allocFailed)))),
            outputOverflow,
            proofOverflow,
            ...(overLimit ? { overLimit } : {}),
            limits: boundsInWords(limits, jail, boxed),
            aborted,
            peakMb,
            memoryMethod: req.memMb && jail ? jail.method : 'none',
            isolation: boxed.mode,
            stdout: out.excerpt(),
            stderr: err.excerpt(),
            outputBytes: out.bytes + err.bytes,
          });
        })();
      };
      let closeTimer: NodeJS.Timeout | undefined;
      child.on('exit', (code, sig) => {
        exited = { code, sig, timeS: Number(process.hrtime.bigint() - t0) / 1e9 };
        reaped = (async () => {
          if (jail?.method === 'rlimit') await sample();
          // Leftovers of the group or cgroup (a child that ignored SIGTERM, a daemon holding stdout).
          await killAll('SIGKILL');
        })();
        void reaped.then(() => {
          // What is still buffered in the pipes arrives before 'close'; a pipe held open by a process
          // we could not reach is given up on after a moment.
          if (!finished)
            closeTimer = setTimeout(() => {
              child.stdout.destroy();
              child.stderr.destroy();
              finish();
            }, 2000);
        });
      });
      child.on('close', finish);
    });
  } finally {
    await limitGuard.end();
    await jail?.dispose();
  }
}
