// What the runners that start dist/worker.js elsewhere (SSH host, Slurm node) share: the worker's
// command line, so a remote run gets exactly the limits and checks of a local one, and the naming
// of what it returns.
import { type IsolationSettings, limitsOf } from '../isolation/settings';
import { keptProofPath, PROOFS_DIR } from '../run/keptProof';
import { slotCpu } from '../run/cpus';
import type { CheckerPolicy } from '../run/proof';
import type { InstanceResult } from '../run/result';
import type { ProofBatch, ProofTask, RunBatch, RunTask } from './runner';

/** The worker's slot on its host as `<slot>/<slots>`: it pins the run to that slot's core (run/cpus.ts), as the local runner does. */
export const CPU_SLOT_ENV = 'SATLUTION_CPU_SLOT';

/** The core a run in the slot `<slot>/<slots>` is pinned to, or null (no slot given, or not a core for each slot). */
export function cpuOfSlot(value: string | undefined): number | null {
  const m = /^(\d+)\/(\d+)$/.exec(value ?? '');
  if (!m) return null;
  const [slot, slots] = [Number(m[1]), Number(m[2])];
  return slot < slots ? (slotCpu(slot, slots) ?? null) : null;
}

/** The worker's exit codes that a runner explains (its `--build` mode, and a host that cannot sandbox). */
export const WORKER_EXIT = { buildFailed: 5, buildTimeout: 124, noIsolation: 6 } as const;

/** Arguments after `node worker.js`; paths as the remote side sees them. */
export function workerArgs(settings: RunBatch['settings'], task: RunTask, at: { solver: string; cnf: string; dratTrim: string }): string[] {
  return [
    `--solver=${at.solver}`,
    `--cnf=${at.cnf}`,
    // `--name=VALUE` in one word: a name starting with '-' is still a value, never an option.
    `--name=${task.name}`,
    `--timeout=${task.timeoutS ?? settings.timeoutS}`,
    `--mem=${settings.memMb}`,
    ...(settings.maxOutputMb ? [`--max-output-mb=${settings.maxOutputMb}`] : []),
    `--max-proof-mb=${settings.maxProofMb}`,
    ...(settings.checkProofs
      ? ['--proofs', `--drat-trim=${at.dratTrim}`, `--checker-timeout=${settings.checkerTimeoutS}`, ...checkerArg(settings.checker)]
      : []),
    // The proof is kept in the workdir (the worker's working directory there), for the audits to check.
    ...(settings.requireProofs
      ? ['--require-proofs', ...(settings.requireProofs.hold ? [`--keep-proof=${remoteKeptProof(settings.requireProofs.hold, task.key)}`] : [])]
      : []),
    ...(task.expected ? [`--expected=${task.expected}`] : []),
    // An unproved claim judges nothing alone: the worker checks a contradicting UNSAT answer's own proof, where it has drat-trim.
    ...(task.expected && task.expectedFrom === 'claim' ? ['--claim', ...(at.dratTrim && !settings.checkProofs ? [`--drat-trim=${at.dratTrim}`] : [])] : []),
    // The worker sandboxes by default; only an explicit `sandbox: off` turns that off there.
    ...(settings.isolation?.mode === 'off' ? ['--sandbox=off'] : []),
    ...limitArgs(settings.isolation),
  ];
}

/** The worker's flags for the processes and disk limits (evaluation.processes_max, disk_max_mb): its runs and builds there get the limits of ours. */
export function limitArgs(isolation: IsolationSettings | undefined): string[] {
  const l = limitsOf(isolation ?? {});
  return [`--disk-mb=${l.diskMaxMb}`, `--processes=${l.processesMax}`];
}

/** The worker knows only what it was told; names and where the expected answer came from are ours. */
export function asTaskResult(r: InstanceResult, task: Pick<RunTask, 'name' | 'family' | 'expected' | 'expectedFrom'>): InstanceResult {
  return { ...r, instance: task.name, family: task.family, expected: task.expected, expected_from: task.expectedFrom };
}

/** A kept proof's path in a remote workdir (relative to it: the worker runs there). */
export const remoteKeptProof = (hold: string, key: string): string => keptProofPath(PROOFS_DIR, hold, key);

/** The worker's arguments to check one kept proof (its `--check-kept` mode); paths as the remote side sees them. */
export function checkArgs(batch: ProofBatch, task: ProofTask, at: { cnf: string; dratTrim: string }): string[] {
  return [
    `--check-kept=${remoteKeptProof(batch.hold, task.key)}`,
    `--cnf=${at.cnf}`,
    `--drat-trim=${at.dratTrim}`,
    `--checker-timeout=${batch.checkerTimeoutS}`,
    ...checkerArg(batch.checker),
    `--max-proof-mb=${batch.maxProofMb}`,
    `--result=${JSON.stringify(task.result)}`,
  ];
}

/** The worker's `--checker` flag: evaluation.checker as JSON (the worker's defaults are DEFAULT_CHECKER). */
const checkerArg = (policy: CheckerPolicy | undefined): string[] => (policy ? [`--checker=${JSON.stringify(policy)}`] : []);
