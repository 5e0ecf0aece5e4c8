// The one interface every runner implements (local pool, SSH host, Slurm cluster): the evaluator
// decides WHAT to run (instances not yet stored, longest first) and records each result; a runner
// decides WHERE and how runs execute. It calls onResult once per finished run, as soon as it ends,
// so a stopped or dropped evaluation keeps everything that finished and a re-run resumes from it.
import type { CheckerPolicy } from '../run/proof';
import type { InstanceResult } from '../run/result';
import type { RunSettings } from '../run/runInstance';
import type { Between } from './pool';

/** One instance run, prepared by the evaluator. */
export interface RunTask {
  /** The results-store key (solver, instance content, limits): unique per run. */
  key: string;
  /** The instance's name in results (may contain any character). */
  name: string;
  /** Plain DIMACS file on this machine. */
  cnf: string;
  /** Content hash of the plain DIMACS file: remote runners sync by it. */
  instanceHash: string;
  vars: number;
  emptyClause: boolean;
  family: string | null;
  expected: 'SAT' | 'UNSAT' | null;
  expectedFrom: 'meta' | 'claim' | 'vbs' | 'none';
  /** Where the run's log goes (runners that can write one locally). */
  logFile?: string;
  /** This run's time limit when lower than the batch's (racing's adaptive cap). */
  timeoutS?: number;
}

export interface RunBatch {
  settings: RunSettings;
  /** solverIdentity(settings.solverDir): remote runners keep one copy of each candidate by it. */
  solverHash: string;
  tasks: RunTask[];
  /** Parallel slots; a runner may use its own configured value instead. */
  jobs: number;
  /** The build time limit, for runners that build the candidate where they run. */
  buildTimeoutS?: number;
  signal?: AbortSignal;
  /** What the runner is doing besides finishing runs (syncing, queued jobs): for progress displays. */
  onStatus?: (message: string) => void;
  /** The evaluator's work for a slot between runs (the perf audit's checks): a runner whose slots are here takes it first; others leave it for later. */
  between?: Between;
}

/** One kept proof to check (run/keptProof.ts): the run that wrote it, by its key and result, and its instance. */
export interface ProofTask {
  /** The run's results-store key: names its proof in the hold. */
  key: string;
  name: string;
  /** Plain DIMACS file on this machine. */
  cnf: string;
  instanceHash: string;
  /** The run's result (an UNSAT answer with a kept proof). */
  result: InstanceResult;
}

/** Kept proofs of one hold, checked where their runs ran. */
export interface ProofBatch {
  hold: string;
  tasks: ProofTask[];
  /** drat-trim on this machine (a remote runner uses the host's). */
  dratTrim?: string;
  checkerTimeoutS: number;
  /** evaluation.checker: each check bounded relative to its run's solving time. */
  checker?: CheckerPolicy;
  maxProofMb: number;
  jobs: number;
  signal?: AbortSignal;
  onStatus?: (message: string) => void;
}

export interface Runner {
  readonly name: string;
  /** Runs every task; resolves when all ended, rejects on the first failure (finished runs were reported). */
  run(batch: RunBatch, onResult: (task: RunTask, result: InstanceResult) => Promise<void>): Promise<void>;
  /** Checks the proofs its runs kept (RunSettings.requireProofs), each against its instance; reports each run's result as its proof judges it. */
  checkKept(batch: ProofBatch, onResult: (task: ProofTask, result: InstanceResult) => Promise<void>): Promise<void>;
  /** Removes the proofs kept in `hold` (all, or only those of these runs); nothing kept is not an error. */
  release(hold: string, keys?: readonly string[]): Promise<void>;
}
