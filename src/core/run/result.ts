// Per-instance results and their on-disk form (part of the evaluation document, eval/evalDoc.ts; ARCHITECTURE.md, "Contracts").
import { z } from 'zod';

export const RunStatus = z.enum(['solved', 'timeout', 'memout', 'crash', 'unknown', 'wrong', 'invalid_model', 'invalid_proof', 'missing_proof']);
export type RunStatus = z.infer<typeof RunStatus>;

/** Statuses that prove the solver is broken or lying; a single one fails the candidate. */
export const FATAL: ReadonlySet<RunStatus> = new Set(['crash', 'wrong', 'invalid_model', 'invalid_proof', 'missing_proof']);

export const Expected = z.enum(['SAT', 'UNSAT']).nullable();

export const CheckResult = z.object({
  kind: z.enum(['model', 'drat', 'none']),
  ok: z.boolean().nullable(),
  time_s: z.number(),
  detail: z.string(),
});
export type CheckResult = z.infer<typeof CheckResult>;

/**
 * The proof an UNSAT answer's run wrote in a stage that checks proofs later (RunSettings.requireProofs):
 * its size, and where it is kept for the audits until the decisions that may check it are made.
 */
export const ProofRef = z.object({
  bytes: z.number().int().nonnegative(),
  /** The run that wrote it (its results-store key), the runner it ran on, and the hold it is kept under (run/keptProof.ts); absent when it was not kept. */
  kept: z.object({ run: z.string(), runner: z.string(), hold: z.string() }).optional(),
});
export type ProofRef = z.infer<typeof ProofRef>;

export const InstanceResult = z.object({
  instance: z.string(),
  family: z.string().nullable(),
  expected: Expected,
  /**
   * Where `expected` came from: meta.csv with how it was proved here (`meta`), meta.csv without (`claim`:
   * a GBD server's `result`, a person's note; it judges no answer alone), the baselines' checked runs
   * (`vbs`), or nowhere.
   */
  expected_from: z.enum(['meta', 'claim', 'vbs', 'none']).default('none'),
  answer: z.enum(['SAT', 'UNSAT', 'UNKNOWN']).nullable(),
  status: RunStatus,
  time_s: z.number(),
  /**
   * User + system CPU seconds of the run's whole process tree, read from its cgroup (run/limits.ts);
   * null when unknown (no cgroup: rusage does not cross the sandbox), and in results stored before it was measured.
   */
  cpu_s: z.number().nonnegative().nullable().default(null),
  mem_mb: z.number().nullable(),
  exit_code: z.number().nullable(),
  signal: z.string().nullable(),
  check: CheckResult,
  /** One line a person can act on when the status is not `solved`. */
  detail: z.string(),
  /** The proof of an UNSAT answer in a stage that requires proofs; absent elsewhere and in results stored before it. */
  proof: ProofRef.optional(),
  /** This run proved the opposite of the set's claim (its model checked, or its proof verified): the claim, and how the answer was proved. */
  disputed: z.object({ claim: z.enum(['SAT', 'UNSAT']), by: z.enum(['model', 'drat', 'empty clause']) }).optional(),
});
export type InstanceResult = z.infer<typeof InstanceResult>;

/** A stored run: the result plus the key that makes re-running it unnecessary. */
export const StoredRun = z.object({
  key: z.string(),
  solver_hash: z.string(),
  instance_hash: z.string(),
  at: z.string(),
  result: InstanceResult,
});
export type StoredRun = z.infer<typeof StoredRun>;
