// The worker's command line for one run, shared by the runners that start dist/worker.js elsewhere
// (SSH host, Slurm node), so a remote run gets exactly the limits and checks of a local one.
import type { RunBatch, RunTask } from './runner';

/** Arguments after `node worker.js`; paths as the remote side sees them. */
export function workerArgs(settings: RunBatch['settings'], task: RunTask, at: { solver: string; cnf: string; dratTrim: string }): string[] {
  return [
    `--solver=${at.solver}`,
    `--cnf=${at.cnf}`,
    // `--name=VALUE` in one word: a name starting with '-' is still a value, never an option.
    `--name=${task.name}`,
    `--timeout=${settings.timeoutS}`,
    `--mem=${settings.memMb}`,
    ...(settings.checkProofs ? ['--proofs', `--drat-trim=${at.dratTrim}`, `--max-proof-mb=${settings.maxProofMb}`, `--checker-timeout=${settings.checkerTimeoutS}`] : []),
    ...(task.expected ? [`--expected=${task.expected}`] : []),
  ];
}
