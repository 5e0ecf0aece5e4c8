// What the runners that start dist/worker.js elsewhere (SSH host, Slurm node) share: the worker's
// command line, so a remote run gets exactly the limits and checks of a local one, and the naming
// of what it returns.
import { type IsolationSettings, limitsOf } from '../isolation/settings';
import type { InstanceResult } from '../run/result';
import type { RunBatch, RunTask } from './runner';

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
    ...(settings.checkProofs ? ['--proofs', `--drat-trim=${at.dratTrim}`, `--max-proof-mb=${settings.maxProofMb}`, `--checker-timeout=${settings.checkerTimeoutS}`] : []),
    ...(task.expected ? [`--expected=${task.expected}`] : []),
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
export function asTaskResult(r: InstanceResult, task: RunTask): InstanceResult {
  return { ...r, instance: task.name, family: task.family, expected: task.expected, expected_from: task.expectedFrom };
}
