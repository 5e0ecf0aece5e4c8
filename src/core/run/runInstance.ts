// One instance, end to end: run the solver under its limits, check what it claims (the SAT model
// against the formula, the UNSAT proof with drat-trim, the answer against the known one), and
// classify the run with a detail a person can act on.
import { makeOwnedDir, RUN_DIR_PREFIX } from './owner';
import { hashFile } from '../instances/instances';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkModel } from './modelCheck';
import { boundsFor, checkProof, proofFile, proofSize, type CheckerPolicy } from './proof';
import { keepProof } from './keptProof';
import type { CheckResult, InstanceResult, RunStatus } from './result';
import { formatRunLog, writeRunLog } from './runLog';
import { GIVEN_INSTANCE, runSolver, type RunOutcome } from './runSolver';
import type { MemoryMethod } from './limits';
import { RUN_SCRIPT } from '../layout';
import type { IsolationSettings } from '../isolation/settings';

export interface InstanceRunRequest extends RunSettings {
  /** The instance's name in results, e.g. `smoke/add8.cnf`. */
  name: string;
  /** Plain DIMACS file to give the solver. */
  cnf: string;
  /** Its content hash: without the sandbox, the file is hashed again before the checks read it. */
  instanceHash?: string;
  vars: number;
  /** The formula contains the empty clause: an UNSAT answer needs no proof. */
  emptyClause?: boolean;
  family: string | null;
  expected: 'SAT' | 'UNSAT' | null;
  expectedFrom: 'meta' | 'claim' | 'vbs' | 'none';
  /** Where to write this run's log (command, limits, outcome, output excerpts); none when absent. */
  logFile?: string;
  /** Where to keep the proof of an UNSAT answer for the audits (run/keptProof.ts), when the stage keeps proofs. */
  keepAs?: string;
}

/** The limits and checks of a run, the same for every instance of a stage. */
export interface RunSettings {
  solverDir: string;
  timeoutS: number;
  memMb: number;
  checkProofs: boolean;
  /**
   * In a stage that checks no proofs while it runs (perf): every UNSAT answer must come with the proof
   * its run wrote (else missing_proof), kept in `hold` for the audits (run/keptProof.ts), or removed with
   * the run when `hold` is null (the champion's side of a race: nothing checks it). Absent: answers are
   * taken as they are (proofs turned off).
   */
  requireProofs?: { hold: string | null };
  dratTrim?: string;
  /** A run whose proof grows past this is stopped (its answer counts as unsolved); a larger proof is never checked. */
  maxProofMb: number;
  /** The longest one proof check may take, whatever the solving time (evaluation.checker_timeout_s). */
  checkerTimeoutS: number;
  /** evaluation.checker: a proof check's bounds relative to the run's solving time (default DEFAULT_CHECKER). */
  checker?: CheckerPolicy;
  /** A run that writes more than this to stdout and stderr is stopped and counted as a crash (evaluation.output_max_mb). */
  maxOutputMb?: number;
  memoryMethod?: MemoryMethod;
  /** How the solver is confined (default: bubblewrap; `off` only where the configuration says so). */
  isolation?: IsolationSettings;
  /** Where proofs are written (they can be large); default: the system's temp directory. */
  scratchDir?: string;
  /** Pin the solver to this CPU (a duel's lane); null: not pinned; absent: the runner decides (the local pool pins each slot to a core). */
  cpu?: number | null;
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
 * Runs the solver on its instance in a fresh directory of its own that is removed afterwards (the
 * proof goes there too). In the sandbox the instance is the pristine file bound read-only under a
 * neutral name; without it, a private copy. The checks read `r.cnf`, which the solver is never
 * handed, so a solver that rewrites its input into an easier formula cannot get that formula's model
 * or proof accepted.
 */
export async function runInstance(r: InstanceRunRequest): Promise<InstanceResult> {
  const runDir = await makeOwnedDir(r.scratchDir ?? os.tmpdir(), RUN_DIR_PREFIX);
  // Every run gets a proof directory, checked or not: a solver cannot tell an audited re-run (perf's
  // UNSAT sample, re-run with proofs checked) from the run it audits, and so cannot dodge the audit.
  const proofDir = path.join(runDir, 'proof');
  try {
    await fs.mkdir(proofDir);
    const out = await runSolver({
      solverDir: r.solverDir,
      cnf: r.cnf,
      runDir,
      ...(r.isolation ? { isolation: r.isolation } : {}),
      timeoutS: r.timeoutS,
      memMb: r.memMb,
      maxVar: r.vars,
      ...(r.maxOutputMb ? { maxOutputMb: r.maxOutputMb } : {}),
      proofDir,
      maxProofMb: r.maxProofMb,
      ...(r.memoryMethod ? { memoryMethod: r.memoryMethod } : {}),
      ...(typeof r.cpu === 'number' ? { cpu: r.cpu } : {}),
      ...(r.signal ? { signal: r.signal } : {}),
    });
    if (out.aborted) throw new EvaluationAborted('evaluation stopped');
    const res = await judge(r, out, proofDir);
    if (r.logFile)
      await writeRunLog(
        r.logFile,
        formatRunLog({
          result: res,
          command: [path.join(r.solverDir, RUN_SCRIPT), path.join(runDir, GIVEN_INSTANCE), proofDir],
          timeoutS: r.timeoutS,
          memMb: r.memMb,
          memoryMethod: out.memoryMethod,
          isolation: out.isolation,
          ...(out.limits ? { limits: out.limits } : {}),
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
async function judge(r: InstanceRunRequest, out: RunOutcome, proofDir: string): Promise<InstanceResult> {
  const base = {
    instance: r.name,
    family: r.family,
    expected: r.expected,
    expected_from: r.expectedFrom,
    answer: out.answer,
    time_s: out.timeS,
    cpu_s: out.cpuS === undefined ? null : Math.round(out.cpuS * 1000) / 1000,
    mem_mb: out.peakMb === undefined ? null : Math.round(out.peakMb * 10) / 10,
    exit_code: out.exitCode,
    signal: out.signal,
  };
  const none: CheckResult = { kind: 'none', ok: null, time_s: 0, detail: '' };
  const result = (status: RunStatus, detail: string, check: CheckResult = none): InstanceResult => ({ ...base, status, detail, check });
  // Unconfined, a solver can rewrite its instance into an easier formula that its answer then fits.
  if ((r.isolation?.mode ?? 'bwrap') === 'off' && r.instanceHash !== undefined && (await hashFile(r.cnf).catch(() => '')) !== r.instanceHash)
    return result('wrong', `the instance ${r.name} was changed during the run (without the sandbox a solver can write to it); its answer is not checked`);
  const early = classifyRun(r, out);
  if (early) return result(early.status, early.detail);

  // Evidence first: a checked model or a verified proof settles the answer, whatever meta.csv or an
  // earlier run says (they can be wrong). Without evidence, a contradiction of a proved answer (meta.csv
  // `proved`, or the baselines' checked runs) is wrong; of a claim (a server's `result`, a person's
  // note), the answer is checked where it can be (the run's own proof) and otherwise decides nothing:
  // unsolved, not failed.
  const answer = out.answer!;
  const claim = r.expectedFrom === 'claim';
  const source = r.expectedFrom === 'meta' ? 'meta.csv' : claim ? "meta.csv's claim" : 'the baselines say so';
  const contradicts = r.expected !== null && answer !== r.expected;
  const disputes = contradicts && claim;
  const wrong = (check?: CheckResult) => result('wrong', `${answer} claimed on ${r.name}, but it is ${r.expected} (${source})`, check);
  const unsettled = (why: string, check?: CheckResult) =>
    result('unknown', `${answer} claimed on ${r.name}, against meta.csv's unproved claim ${r.expected}; ${why}: counted as unsolved`, check);
  const proven = (check: CheckResult, by: 'model' | 'drat' | 'empty clause') => ({
    ...result(
      'solved',
      contradicts
        ? `${answer} proven on ${r.name} (${check.kind === 'model' ? 'the model checks' : by === 'empty clause' ? 'the formula contains the empty clause' : 'drat-trim verified the proof'}), although ${source === 'the baselines say so' ? 'an earlier run said' : 'meta.csv says'} ${r.expected}${disputes ? ': the claim is marked disputed in meta.csv' : ': fix the expected answer'}`
        : '',
      check,
    ),
    ...(disputes ? { disputed: { claim: r.expected!, by } } : {}),
  });
  if (answer === 'SAT') {
    const mc = await checkModel(r.cnf, out.model);
    const check: CheckResult = { kind: 'model', ok: mc.ok, time_s: mc.timeS, detail: mc.detail };
    if (mc.ok) return proven(check, 'model');
    return contradicts && !claim ? wrong(check) : result('invalid_model', `SAT claimed on ${r.name}, model rejected: ${mc.detail}`, check);
  }
  // Nothing to prove (solvers write an empty proof), and drat-trim would exit 1 on it ("trivial UNSAT").
  if (r.emptyClause) return proven({ kind: 'none', ok: true, time_s: 0, detail: 'the formula contains the empty clause' }, 'empty clause');
  const proof = path.join(proofDir, 'proof.out');
  const { bytes, missing } = await proofFile(proof);
  // Over the proof limit: stopped or not, a proof that large is never checked, so the answer counts as unsolved.
  if (bytes > r.maxProofMb * 2 ** 20)
    return contradicts && !claim
      ? wrong()
      : result(
          'unknown',
          `UNSAT claimed on ${r.name}, but its proof is ${proofSize(bytes)}, over the ${r.maxProofMb} MB limit (evaluation.proof_max_mb): not checked, counted as unsolved`,
        );
  // A stage that checks no proofs while it runs checks this one where it disputes a claim: the claim must not decide.
  const checkNow = r.checkProofs || (disputes && !missing && !!r.dratTrim);
  if (!checkNow && r.requireProofs) {
    // The SAT Competition's rule: an UNSAT answer counts only with the proof of the run that gave it.
    if (missing)
      return contradicts && !claim
        ? wrong()
        : result(
            'missing_proof',
            `UNSAT claimed on ${r.name} without a proof (${missing}): every UNSAT answer in this stage must come with the DRAT proof its own run writes`,
          );
    if (contradicts && !claim) return wrong();
    if (disputes) return unsettled('no drat-trim here to check its proof');
    if (r.keepAs) await keepProof(proof, r.keepAs);
    return { ...result('solved', ''), proof: { bytes } };
  }
  if (!checkNow)
    return contradicts ? (claim ? unsettled(missing ? 'it wrote no proof to check' : 'no drat-trim here to check its proof') : wrong()) : result('solved', '');
  if (!r.dratTrim) throw new Error('proof checking is on but no drat-trim binary is configured (scripts/setup-sat-tools.sh builds one)');
  const pc = await checkProof({
    dratTrim: r.dratTrim,
    cnf: r.cnf,
    proof,
    bounds: boundsFor(r, out.cpuS ?? out.timeS),
    ...(r.signal ? { signal: r.signal } : {}),
  });
  const check: CheckResult = {
    kind: 'drat',
    ok: pc.outcome === 'verified' ? true : pc.outcome === 'rejected' ? false : null,
    time_s: pc.timeS,
    detail: pc.detail,
  };
  if (pc.outcome === 'error') throw new Error(pc.detail);
  if (pc.outcome === 'verified') return proven(check, 'drat');
  if (contradicts && !claim) return wrong(check);
  switch (pc.outcome) {
    case 'missing':
      return result('missing_proof', `UNSAT claimed on ${r.name} without a proof: ${pc.detail}`, check);
    case 'rejected':
      return result('invalid_proof', `UNSAT claimed on ${r.name}, ${pc.detail}`, check);
    case 'too_large':
    case 'timeout':
    case 'memout':
    case 'crashed':
      // Not shown to be a lie, but not proved either: an answer counts only when proved, so it is unsolved.
      return result('unknown', `UNSAT claimed on ${r.name}, but its proof was not verified: ${pc.detail}: not proved, counted as unsolved`, check);
  }
  return pc.outcome satisfies never;
}

/** Classifies a run that ended without an answer worth checking; undefined when it must be checked. */
export function classifyRun(
  r: Pick<InstanceRunRequest, 'name' | 'timeoutS' | 'memMb' | 'maxOutputMb' | 'maxProofMb'>,
  out: RunOutcome,
): { status: RunStatus; detail: string } | undefined {
  const on = `on ${r.name} after ${secs(out.timeS)}`;
  if (out.overLimit) return { status: 'crash', detail: `${out.overLimit} ${on}` };
  // A resource limit, as time and memory are: the run is unsolved, not a failure of the solver.
  if (out.proofOverflow) return { status: 'unknown', detail: `stopped: its proof grew past the ${r.maxProofMb} MB limit (evaluation.proof_max_mb) ${on}` };
  if (out.timedOut) return { status: 'timeout', detail: `no answer within ${r.timeoutS} s on ${r.name}` };
  if (out.memout) return { status: 'memout', detail: `exceeded ${r.memMb} MB ${on}${out.peakMb ? ` (peak ${out.peakMb.toFixed(0)} MB)` : ''}` };
  if (out.outputOverflow) return { status: 'crash', detail: `wrote more than ${r.maxOutputMb ?? 256} MB of output ${on}` };
  if (out.signal) return { status: 'crash', detail: `${SIGNALS[out.signal] ?? out.signal} ${on}${out.answer ? ` (after printing s ${out.answer})` : ''}` };
  if (new Set(out.answers.filter((a) => a !== 'UNKNOWN')).size > 1)
    return { status: 'wrong', detail: `printed both s SATISFIABLE and s UNSATISFIABLE on ${r.name}` };
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
