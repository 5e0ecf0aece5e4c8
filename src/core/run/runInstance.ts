// One instance, end to end: run the solver under its limits, check what it claims (the SAT model
// against the formula, the UNSAT proof with drat-trim, the answer against the known one), and
// classify the run with a detail a person can act on.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkModel } from './model';
import { checkProof } from './proof';
import type { CheckResult, InstanceResult, RunStatus } from './result';
import { formatRunLog, writeRunLog } from './runLog';
import { runSolver, type RunOutcome } from './runSolver';
import type { MemoryMethod } from './limits';
import { RUN_SCRIPT } from '../layout';

export interface InstanceRunRequest extends RunSettings {
  /** The instance's name in results, e.g. `smoke/add8.cnf`. */
  name: string;
  /** Plain DIMACS file to give the solver. */
  cnf: string;
  vars: number;
  /** The formula contains the empty clause: an UNSAT answer needs no proof. */
  emptyClause?: boolean;
  family: string | null;
  expected: 'SAT' | 'UNSAT' | null;
  expectedFrom: 'meta' | 'vbs' | 'none';
  /** Where to write this run's log (command, limits, outcome, output excerpts); none when absent. */
  logFile?: string;
}

/** The limits and checks of a run, the same for every instance of a stage. */
export interface RunSettings {
  solverDir: string;
  timeoutS: number;
  memMb: number;
  checkProofs: boolean;
  dratTrim?: string;
  maxProofMb: number;
  checkerTimeoutS: number;
  /** A run that writes more than this to stdout and stderr is stopped and counted as a crash (evaluation.output_max_mb). */
  maxOutputMb?: number;
  memoryMethod?: MemoryMethod;
  /** Where proofs are written (they can be large); default: the system's temp directory. */
  scratchDir?: string;
  signal?: AbortSignal;
}

export class EvaluationAborted extends Error {
  override name = 'EvaluationAborted';
}

const SIGNALS: Record<string, string> = {
  SIGSEGV: 'segfault (SIGSEGV)',
  SIGABRT: 'abort (SIGABRT), e.g. a failed assertion',
  SIGFPE: 'arithmetic error (SIGFPE)',
  SIGBUS: 'bus error (SIGBUS)',
  SIGILL: 'illegal instruction (SIGILL)',
  SIGKILL: 'killed (SIGKILL)',
  SIGTERM: 'terminated (SIGTERM)',
};

const secs = (t: number) => `${t < 10 ? t.toFixed(2) : t.toFixed(1)} s`;

/**
 * Runs the solver on a private copy of the instance, in a fresh directory of its own that is removed
 * afterwards (the proof goes there too); the checks read `r.cnf`, which the solver is never handed, so
 * a solver that rewrites its input into an easier formula cannot get that formula's model or proof
 * accepted. (Isolation from everything else is the sandbox's job.)
 */
export async function runInstance(r: InstanceRunRequest): Promise<InstanceResult> {
  const runDir = await fs.mkdtemp(path.join(r.scratchDir ?? os.tmpdir(), 'satlution-run-'));
  const proofDir = r.checkProofs ? path.join(runDir, 'proof') : undefined;
  // A neutral name: the solver learns nothing from it about which benchmark it is.
  const given = path.join(runDir, 'instance.cnf');
  try {
    await fs.copyFile(r.cnf, given);
    if (proofDir) await fs.mkdir(proofDir);
    const out = await runSolver({
      solverDir: r.solverDir,
      cnf: given,
      timeoutS: r.timeoutS,
      memMb: r.memMb,
      maxVar: r.vars,
      ...(r.maxOutputMb ? { maxOutputMb: r.maxOutputMb } : {}),
      ...(proofDir ? { proofDir } : {}),
      ...(r.memoryMethod ? { memoryMethod: r.memoryMethod } : {}),
      ...(r.signal ? { signal: r.signal } : {}),
    });
    if (out.aborted) throw new EvaluationAborted('evaluation stopped');
    const res = await judge(r, out, proofDir);
    if (r.logFile)
      await writeRunLog(
        r.logFile,
        formatRunLog({
          result: res,
          command: [path.join(r.solverDir, RUN_SCRIPT), given, ...(proofDir ? [proofDir] : [])],
          timeoutS: r.timeoutS,
          memMb: r.memMb,
          memoryMethod: out.memoryMethod,
          output: { stdout: out.stdout, stderr: out.stderr, bytes: out.outputBytes },
          at: new Date().toISOString(),
        }),
      );
    return res;
  } finally {
    await fs.rm(runDir, { recursive: true, force: true });
  }
}

/** Checks what a finished run claims and classifies it. */
async function judge(r: InstanceRunRequest, out: RunOutcome, proofDir: string | undefined): Promise<InstanceResult> {
  const base = {
    instance: r.name,
    family: r.family,
    expected: r.expected,
    expected_from: r.expectedFrom,
    answer: out.answer,
    time_s: out.timeS,
    mem_mb: out.peakMb === undefined ? null : Math.round(out.peakMb * 10) / 10,
    exit_code: out.exitCode,
    signal: out.signal,
  };
  const none: CheckResult = { kind: 'none', ok: null, time_s: 0, detail: '' };
  const result = (status: RunStatus, detail: string, check: CheckResult = none): InstanceResult => ({ ...base, status, detail, check });
  const early = classifyRun(r, out);
  if (early) return result(early.status, early.detail);

  const answer = out.answer!;
  if (r.expected && answer !== r.expected)
    return result('wrong', `${answer} claimed on ${r.name}, but it is ${r.expected} (${r.expectedFrom === 'meta' ? 'meta.csv' : 'the baselines say so'})`);
  if (answer === 'SAT') {
    const mc = await checkModel(r.cnf, out.model);
    const check: CheckResult = { kind: 'model', ok: mc.ok, time_s: mc.timeS, detail: mc.detail };
    return mc.ok ? result('solved', '', check) : result('invalid_model', `SAT claimed on ${r.name}, model rejected: ${mc.detail}`, check);
  }
  // Nothing to prove (solvers write an empty proof), and drat-trim would exit 1 on it ("trivial UNSAT").
  if (r.emptyClause) return result('solved', '', { kind: 'none', ok: true, time_s: 0, detail: 'the formula contains the empty clause' });
  if (!r.checkProofs) return result('solved', '');
  if (!r.dratTrim) throw new Error('proof checking is on but no drat-trim binary is configured (scripts/setup-sat-tools.sh builds one)');
  const pc = await checkProof({ dratTrim: r.dratTrim, cnf: r.cnf, proof: path.join(proofDir!, 'proof.out'), timeoutS: r.checkerTimeoutS, maxProofMb: r.maxProofMb, ...(r.signal ? { signal: r.signal } : {}) });
  const check: CheckResult = { kind: 'drat', ok: pc.outcome === 'timeout' ? null : pc.ok, time_s: pc.timeS, detail: pc.detail };
  switch (pc.outcome) {
    case 'verified':
      return result('solved', '', check);
    case 'missing':
      return result('missing_proof', `UNSAT claimed on ${r.name} without a proof: ${pc.detail}`, check);
    case 'rejected':
    case 'too_large':
      return result('invalid_proof', `UNSAT claimed on ${r.name}, ${pc.detail}`, check);
    case 'timeout':
      // Not the solver's lie, but not a verified answer either: it counts as unsolved.
      return result('unknown', `UNSAT claimed on ${r.name}; the proof could not be checked in time (${pc.detail})`, check);
    case 'error':
      throw new Error(pc.detail);
  }
  return pc.outcome satisfies never;
}

/** Classifies a run that ended without an answer worth checking; undefined when it must be checked. */
export function classifyRun(r: Pick<InstanceRunRequest, 'name' | 'timeoutS' | 'memMb'>, out: RunOutcome): { status: RunStatus; detail: string } | undefined {
  const on = `on ${r.name} after ${secs(out.timeS)}`;
  if (out.timedOut) return { status: 'timeout', detail: `no answer within ${r.timeoutS} s on ${r.name}` };
  if (out.memout) return { status: 'memout', detail: `exceeded ${r.memMb} MB ${on}${out.peakMb ? ` (peak ${out.peakMb.toFixed(0)} MB)` : ''}` };
  if (out.outputOverflow) return { status: 'crash', detail: `wrote more than ${(out.outputBytes / 2 ** 20).toFixed(0)} MB of output ${on}` };
  if (out.signal) return { status: 'crash', detail: `${SIGNALS[out.signal] ?? out.signal} ${on}${out.answer ? ` (after printing s ${out.answer})` : ''}` };
  if (new Set(out.answers.filter((a) => a !== 'UNKNOWN')).size > 1) return { status: 'wrong', detail: `printed both s SATISFIABLE and s UNSATISFIABLE on ${r.name}` };
  if (out.answers.length > 1) return { status: 'crash', detail: `printed ${out.answers.length} s lines on ${r.name} (exactly one is allowed)` };
  if (out.badSLines.length) return { status: 'crash', detail: `malformed answer line "${out.badSLines[0]!.slice(0, 40)}" on ${r.name}` };
  const want = out.answer === 'SAT' ? 10 : out.answer === 'UNSAT' ? 20 : undefined;
  if (want === undefined) {
    if (out.exitCode !== 0 && out.exitCode !== 10 && out.exitCode !== 20)
      return { status: 'crash', detail: `exited with code ${out.exitCode} without an answer ${on}${lastLine(out.stderr)}` };
    return { status: 'unknown', detail: `no answer (s UNKNOWN or no s line) ${on}` };
  }
  if (out.exitCode !== want) return { status: 'crash', detail: `printed s ${out.answer} but exited with code ${out.exitCode} (expected ${want}) ${on}` };
  return undefined;
}

function lastLine(text: string): string {
  const l = text.trim().split('\n').pop()?.trim();
  return l ? `: ${l.slice(0, 160)}` : '';
}
