// DRAT proof checking with drat-trim (text and binary DRAT are told apart by drat-trim itself).
// A proof is untrusted input to its checker: drat-trim prints back a comment line it cannot read (so a
// proof chooses some of the words in its output), exits 0 when an allocation fails or a literal is
// out of range, and can be made slow to check. So a proof is verified only when drat-trim exited 0 and
// its output holds exactly one status line, `s VERIFIED`, and no memory-out report; every bound is the
// harness's own (CPU time and memory by the kernel's limits on the checker, wall time by our clock, the
// proof's size before it is read), never a word in the output. Each bound scales with the solving time.
import * as fs from 'node:fs/promises';
import { z } from 'zod';
import { DEFAULT_CHECKER } from '../config/schema';
import { runCaptured } from './captured';

/** Why a proof check ended: only `verified` proves the answer; `rejected` says the proof is wrong (a lie); the rest prove nothing. */
export type ProofOutcome =
  /** drat-trim exited 0 with exactly one status line, `s VERIFIED`, and no memory-out report. */
  | 'verified'
  /** No proof file, or an empty one. */
  | 'missing'
  /** drat-trim finished and did not verify it (s NOT VERIFIED, a derivation only, a literal out of range, a line it cannot read). */
  | 'rejected'
  /** Over the checker's CPU time (the kernel's limit) or wall time (the harness's clock). */
  | 'timeout'
  /** drat-trim ran out of its memory limit (it says MEMOUT and exits 0, or dies of it). */
  | 'memout'
  /** Larger than the proof may be for its solving time: never read. */
  | 'too_large'
  /** drat-trim died of a signal the harness did not send. */
  | 'crashed'
  /** drat-trim (or prlimit) could not be started: a setup error, not a verdict. */
  | 'error';

export interface ProofCheck {
  ok: boolean;
  outcome: ProofOutcome;
  detail: string;
  timeS: number;
  proofMb: number;
}

/** The bounds of one proof check (checkerBounds): the checker's CPU seconds and MB, and the largest proof it reads. */
export interface CheckerBounds {
  cpuS: number;
  memMb: number;
  maxProofMb: number;
}

/**
 * How a proof check is bounded, relative to the run that wrote the proof (evaluation.checker): CPU time
 * `timeFactor` times the solving time, at least `timeMinS` and at most `timeMaxS`; memory `memMb`; a
 * proof of at most `proofMbPerS` MB per second of solving, at least `proofMinMb` and at most `proofMaxMb`.
 * A solver cannot write a proof faster than it runs, and drat-trim rarely needs ten times a solver's time.
 */
export interface CheckerLimits {
  timeFactor: number;
  timeMinS: number;
  timeMaxS: number;
  memMb: number;
  proofMbPerS: number;
  proofMinMb: number;
  proofMaxMb: number;
}

/** What evaluation.checker sets, as the worker's `--checker` flag carries it; the stage gives the rest (checker_timeout_s, proof_max_mb). */
export const CheckerPolicy = z
  .object({
    timeFactor: z.number().positive(),
    timeMinS: z.number().positive(),
    memMb: z.number().positive(),
    proofMbPerS: z.number().positive(),
    proofMinMb: z.number().positive(),
  })
  .strict();
export type CheckerPolicy = z.infer<typeof CheckerPolicy>;

/** The limits of a stage's proof checks: its policy (default DEFAULT_CHECKER) under the stage's absolute caps. */
export const checkerLimits = (policy: CheckerPolicy | undefined, timeMaxS: number, proofMaxMb: number): CheckerLimits => ({
  ...DEFAULT_CHECKER,
  ...policy,
  timeMaxS,
  proofMaxMb,
});

/** The time a run took to solve, as its proof's bounds scale with: CPU time where measured, else wall time. */
export const solveSeconds = (r: { cpu_s: number | null; time_s: number }): number => r.cpu_s ?? r.time_s;

/** The bounds of checking the proof of a run that took `solveS` seconds (its CPU time where measured, else wall). */
export function checkerBounds(l: CheckerLimits, solveS: number): CheckerBounds {
  const s = Number.isFinite(solveS) && solveS > 0 ? solveS : 0;
  return {
    cpuS: Math.min(l.timeMaxS, Math.max(l.timeMinS, l.timeFactor * s)),
    memMb: l.memMb,
    maxProofMb: Math.min(l.proofMaxMb, Math.max(l.proofMinMb, l.proofMbPerS * s)),
  };
}

/** The bounds of checking a proof a run wrote in `solveS` seconds, under a stage's settings (evaluation.checker, checker_timeout_s, proof_max_mb). */
export const boundsFor = (s: { checker?: CheckerPolicy | undefined; checkerTimeoutS: number; maxProofMb: number }, solveS: number): CheckerBounds =>
  checkerBounds(checkerLimits(s.checker, s.checkerTimeoutS, s.maxProofMb), solveS);

/** The wall time a check may take: its CPU bound with room for a busy machine (a third of a core), never less than a minute. */
export const wallBoundS = (cpuS: number): number => Math.max(60, 3 * cpuS + 10);

export interface ProofCheckRequest {
  dratTrim: string;
  cnf: string;
  proof: string;
  bounds: CheckerBounds;
  signal?: AbortSignal;
}

/** Checks a proof with drat-trim under its bounds; `error` only when drat-trim cannot be run at all. */
export async function checkProof(r: ProofCheckRequest): Promise<ProofCheck> {
  const t0 = Date.now();
  const done = (outcome: ProofOutcome, detail: string, proofMb = 0): ProofCheck => ({
    ok: outcome === 'verified',
    outcome,
    detail,
    proofMb,
    timeS: (Date.now() - t0) / 1000,
  });
  const file = await proofFile(r.proof);
  if (file.missing) return done('missing', `UNSAT claimed without a proof (${file.missing})`);
  const mb = file.bytes / 2 ** 20;
  const b = r.bounds;
  if (mb > b.maxProofMb)
    return done('too_large', `the proof is ${proofSize(file.bytes)}, over the ${fmt(b.maxProofMb)} MB its check may read (evaluation.checker)`, mb);
  const cpu = Math.max(1, Math.ceil(b.cpuS));
  const wall = wallBoundS(cpu);
  // The kernel bounds drat-trim's CPU time (SIGXCPU, then SIGKILL a second later) and address space
  // (its allocations fail: it says MEMOUT); our clock bounds the wall time. No -t: drat-trim's own
  // timer would only print a word in its output.
  const run = await runCaptured('prlimit', [`--cpu=${cpu}:${cpu + 1}`, `--as=${Math.ceil(b.memMb * 2 ** 20)}`, '--', r.dratTrim, r.cnf, r.proof], {
    timeoutS: wall,
    keepBytes: 4000,
    ...(r.signal ? { signal: r.signal } : {}),
  });
  if (run.spawnError) return done('error', `cannot run drat-trim (${r.dratTrim}) under prlimit (util-linux): ${run.spawnError}`, mb);
  const v = readVerdict(run);
  if (v.outcome === 'error') return done('error', `cannot run drat-trim (${r.dratTrim}): ${v.detail}`, mb);
  const details: Record<Exclude<ProofOutcome, 'error'>, string> = {
    verified: 'drat-trim: s VERIFIED',
    missing: '',
    too_large: '',
    rejected: `proof rejected by drat-trim (${v.detail})`,
    timeout: run.timedOut
      ? `drat-trim did not finish within ${wall} s of wall time (its bound for a ${cpu} s check)`
      : `drat-trim did not finish within its ${cpu} s of CPU time (evaluation.checker)`,
    memout: `drat-trim ran out of its ${fmt(b.memMb)} MB of memory (evaluation.checker.mem_mb): ${v.detail}`,
    crashed: `drat-trim died of ${v.detail}`,
  };
  return done(v.outcome, details[v.outcome], mb);
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/**
 * What a finished drat-trim run says, from the harness's side first: our clock, then the signal that
 * ended it, then its exit status; only then its words. Exit 0 is not enough (drat-trim exits 0 on
 * MEMOUT and on a literal out of range): verified needs exactly one status line, `s VERIFIED`, and no
 * memory-out report. The one place a proof's own text reaches the output (a comment line too long to
 * read, echoed) ends with exit 80, so words a proof chose never decide.
 */
export function readVerdict(run: { code: number | null; signal?: NodeJS.Signals | null; timedOut: boolean; output: string }): {
  outcome: Exclude<ProofOutcome, 'missing' | 'too_large'>;
  detail: string;
} {
  if (run.timedOut) return { outcome: 'timeout', detail: 'the wall-time bound' };
  // SIGXCPU at the soft CPU limit, SIGKILL at the hard one (or the kernel's OOM killer).
  if (run.signal === 'SIGXCPU' || run.signal === 'SIGKILL') return { outcome: 'timeout', detail: run.signal };
  if (run.signal) return { outcome: 'crashed', detail: run.signal };
  const lines = run.output
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter(Boolean);
  const last = lines.at(-1)?.slice(0, 200) ?? '';
  // prlimit's own failures (127: drat-trim not found, 126: not executable).
  if (run.code === 127 || run.code === 126) return { outcome: 'error', detail: last || `exit ${run.code}` };
  const status = lines.filter((l) => /^s /.test(l));
  const rejected = () => ({ outcome: 'rejected' as const, detail: `exit ${run.code}: ${status.pop() ?? last}`.slice(0, 300) });
  // 80: a line drat-trim cannot read (a comment over 64 KiB, echoed: the proof's words), or a hard warning.
  if (run.code === HARD_WARNING) return rejected();
  const memout = lines.find((l) => /^c MEMOUT|^c failed to reallocate|^s MEMORY ALLOCATION ERROR/.test(l));
  if (memout) return { outcome: 'memout', detail: memout.slice(0, 200) };
  if (run.code !== 0) return rejected();
  if (status.length === 1 && status[0] === 's VERIFIED') return { outcome: 'verified', detail: '' };
  return {
    outcome: 'rejected',
    detail: `exit 0, ${status.length ? `status ${status.map((s) => `"${s.slice(0, 40)}"`).join(', ')}` : `no status line: ${last}`}`,
  };
}

/** drat-trim's exit status for a line it cannot read or a warning it treats as an error. */
const HARD_WARNING = 80;

/**
 * A proof file as written: its size, or why there is none. Only a regular file counts (a link is not
 * followed, a FIFO or device is never opened): a solver's proof.out is untrusted.
 */
export async function proofFile(file: string): Promise<{ bytes: number; missing?: string }> {
  const st = await fs.lstat(file).catch(() => undefined);
  if (!st) return { bytes: 0, missing: 'no proof.out written' };
  if (!st.isFile()) return { bytes: 0, missing: 'proof.out is not a regular file' };
  return st.size === 0 ? { bytes: 0, missing: 'proof.out is empty' } : { bytes: st.size };
}

/** A proof's size in words. */
export const proofSize = (bytes: number): string => (bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(0)} MB` : `${Math.ceil(bytes / 1024)} KB`);
