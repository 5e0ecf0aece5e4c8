// Proofs kept for the audits (ARCHITECTURE.md, "The path of an evaluation"). In a stage that checks
// no proofs while it runs (perf), every UNSAT answer's run must write its proof, and that proof is
// moved out of the run's directory into a hold, `<root>/<hold>/<run key>.proof`, on the machine the run
// ran on, until the decisions that may check it are made; then whoever made the hold releases it. The
// audits check these proofs, the evidence of the very run that was measured, never a re-run: a solver
// cannot behave one way where it is timed and another where it is checked.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownerAlive, ownerTag } from './owner';
import { boundsFor, checkProof, solveSeconds, type CheckerPolicy, type ProofCheck } from './proof';
import type { CheckResult, InstanceResult } from './result';

/** The folder of holds in a remote workdir (the runner's own); here, below the scratch directory, one per user (proofRoot). */
export const PROOFS_DIR = 'satlution-proofs';

/**
 * Where this machine keeps its runs' proofs, below `scratch` (default: the system's temp directory, which
 * other users share): a folder of this user's own, private to it (keepProof makes it so).
 */
export const proofRoot = (scratch?: string): string => path.join(scratch ?? os.tmpdir(), `${PROOFS_DIR}-${process.getuid?.() ?? 'user'}`);

/** Whether `dir` is a real directory of this user's (not a link, not another user's): only then are proofs kept or removed there. */
async function ownDir(dir: string): Promise<boolean> {
  const st = await fs.lstat(dir).catch(() => undefined);
  return !!st && st.isDirectory() && (process.getuid === undefined || st.uid === process.getuid());
}

/** A hold's name: one path segment (a session name, or an evaluation's own hold). */
export const HOLD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;

/** A run's key (eval/resultsStore.ts runKey): hex. */
const RUN_KEY = /^[0-9a-f]{8,64}$/;

/** An evaluation's own hold is named after its process (`eval-<pid>-<start>-<random>`), so a local sweep can tell when it died. */
const EVAL_HOLD = /^eval-(\d+)(?:-(\d+))?-[0-9a-f]{8}$/;

/** A new hold for one evaluation, released when it ends (eval/service.ts). */
export const evaluationHold = (): string => `eval-${ownerTag()}-${randomBytes(4).toString('hex')}`;

/** Nothing that holds proofs lives this long: a hold untouched for two weeks was left by a process that died. */
export const HOLD_MAX_AGE_MS = 14 * 24 * 3600 * 1000;

/** The kept proof of run `key` in `hold` below `root`; a name that could leave the root is refused. */
export function keptProofPath(root: string, hold: string, key: string): string {
  if (!HOLD_NAME.test(hold)) throw new Error(`not a hold name: "${hold}"`);
  if (!RUN_KEY.test(key)) throw new Error(`not a run key: "${key}"`);
  return path.join(root, hold, `${key}.proof`);
}

/**
 * Moves a finished run's proof into its hold (`dest`, keptProofPath): a rename on one filesystem, else a
 * copy. The root of holds is made private to this user; one that is a link or another user's is refused,
 * so nobody else can choose where proofs go or swap one that waits for its check.
 */
export async function keepProof(file: string, dest: string): Promise<void> {
  const root = path.dirname(path.dirname(dest));
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  if (!(await ownDir(root))) throw new Error(`${root} is not a directory of this user's, so no proof is kept there: remove it, or set evaluation.scratch_dir`);
  await fs.mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
  try {
    await fs.rename(file, dest);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await fs.copyFile(file, `${dest}.part`);
    await fs.rename(`${dest}.part`, dest);
  }
}

/** Removes a hold, or only the proofs of these runs in it. */
export async function releaseHold(root: string, hold: string, keys?: readonly string[]): Promise<void> {
  if (!HOLD_NAME.test(hold) || !(await ownDir(root))) return;
  if (!keys) return fs.rm(path.join(root, hold), { recursive: true, force: true });
  for (const k of keys) if (RUN_KEY.test(k)) await fs.rm(keptProofPath(root, hold, k), { force: true });
}

/**
 * Removes what a dead holder left below `root`: a hold untouched for HOLD_MAX_AGE_MS, and with `owners`
 * (on the machine where holds are made) an evaluation's hold whose process is gone. A remote host
 * cannot tell whether an evaluator elsewhere lives, so it goes by age alone. Never throws.
 */
export async function sweepHolds(root: string, o: { owners: boolean; maxAgeMs?: number }): Promise<string[]> {
  const removed: string[] = [];
  const now = Date.now();
  if (!(await ownDir(root))) return removed;
  for (const e of await fs.readdir(root, { withFileTypes: true }).catch(() => [])) {
    if (!e.isDirectory() || !HOLD_NAME.test(e.name)) continue;
    const dir = path.join(root, e.name);
    const m = o.owners ? EVAL_HOLD.exec(e.name) : null;
    const dead = m !== null && !ownerAlive(Number(m[1]), m[2]);
    const st = await fs.stat(dir).catch(() => undefined);
    if (!st || (!dead && now - st.mtimeMs < (o.maxAgeMs ?? HOLD_MAX_AGE_MS))) continue;
    await fs.rm(dir, { recursive: true, force: true }).then(
      () => removed.push(dir),
      () => undefined,
    );
  }
  return removed;
}

/** What checking a kept proof needs: the run's result, its instance and the checker's limits. */
export interface KeptProofCheck {
  result: InstanceResult;
  /** The instance as the run was given it (plain DIMACS, untouched). */
  cnf: string;
  /** The kept proof (keptProofPath). */
  proof: string;
  dratTrim: string;
  /** The longest a check may take, whatever the solving time (evaluation.checker_timeout_s). */
  checkerTimeoutS: number;
  maxProofMb: number;
  /** evaluation.checker: the check's bounds relative to the run's solving time (default DEFAULT_CHECKER). */
  checker?: CheckerPolicy;
  signal?: AbortSignal;
}

/** Checks a kept proof with drat-trim, bounded by its run's solving time, and returns the run's result as the proof judges it (judgeKeptProof). */
export async function checkKeptProof(r: KeptProofCheck): Promise<InstanceResult> {
  const pc = await checkProof({
    dratTrim: r.dratTrim,
    cnf: r.cnf,
    proof: r.proof,
    bounds: boundsFor(r, solveSeconds(r.result)),
    ...(r.signal ? { signal: r.signal } : {}),
  });
  if (pc.outcome === 'error') throw new Error(pc.detail);
  return judgeKeptProof(r.result, pc);
}

/**
 * A run's UNSAT answer judged by the proof it wrote: verified, it is proved; rejected, it was a lie
 * (invalid_proof, which fails the candidate). Anything else proves nothing, and an answer counts only
 * when proved: a check that did not finish (time, memory, a crash of the checker), a proof too large to
 * read, or one that is gone makes the answer unsolved (`unknown`, PAR-2 2T), never neutral.
 */
export function judgeKeptProof(result: InstanceResult, pc: ProofCheck): InstanceResult {
  const check = (ok: boolean | null, detail: string): CheckResult => ({ kind: 'drat', ok, time_s: pc.timeS, detail });
  const unsolved = (why: string): InstanceResult => ({
    ...result,
    status: 'unknown',
    check: check(null, why),
    detail: `UNSAT claimed on ${result.instance}, but ${why}: not proved, counted as unsolved`,
  });
  switch (pc.outcome) {
    case 'verified':
      return { ...result, status: 'solved', check: check(true, pc.detail), detail: '' };
    case 'rejected':
      return {
        ...result,
        status: 'invalid_proof',
        check: check(false, pc.detail),
        detail: `UNSAT claimed on ${result.instance}, ${pc.detail} (the proof its own run wrote)`,
      };
    case 'missing':
      return unsolved(`the proof its run wrote is no longer kept (${pc.detail})`);
    case 'too_large':
    case 'timeout':
    case 'memout':
    case 'crashed':
    case 'error':
      return unsolved(`its proof was not verified: ${pc.detail}`);
  }
  return pc.outcome satisfies never;
}
