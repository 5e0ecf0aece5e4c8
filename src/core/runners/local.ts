// The local runner: N slots on this machine, each running one instance in-process (runInstance), each
// pinned to a core of its own where there are enough (run/cpus.ts); the proofs its runs keep are below
// evaluation.scratch_dir (run/keptProof.ts), and checked here.
import { slotCpu } from '../run/cpus';
import { checkKeptProof, keptProofPath, proofRoot, releaseHold } from '../run/keptProof';
import { runInstance } from '../run/runInstance';
import { runPool } from './pool';
import type { Runner } from './runner';

/** `scratchDir`: evaluation.scratch_dir, where its runs' proofs are kept (default: the system's temp directory). */
export function localRunner(name = 'local', o: { scratchDir?: string } = {}): Runner {
  const root = proofRoot(o.scratchDir);
  return {
    name,
    async run(batch, onResult) {
      const hold = batch.settings.requireProofs?.hold;
      await runPool(
        batch.tasks,
        batch.jobs,
        async (t, slot) => {
          // Absent: this slot's own core; null: not pinned (a lane that has none).
          const cpu = batch.settings.cpu === undefined ? slotCpu(slot, batch.jobs) : batch.settings.cpu;
          const r = await runInstance({
            ...(t.logFile ? { logFile: t.logFile } : {}),
            ...batch.settings,
            ...(cpu !== undefined ? { cpu } : {}),
            ...(t.timeoutS !== undefined ? { timeoutS: t.timeoutS } : {}),
            ...(batch.signal ? { signal: batch.signal } : {}),
            ...(hold ? { keepAs: keptProofPath(root, hold, t.key) } : {}),
            name: t.name,
            cnf: t.cnf,
            instanceHash: t.instanceHash,
            vars: t.vars,
            emptyClause: t.emptyClause,
            family: t.family,
            expected: t.expected,
            expectedFrom: t.expectedFrom,
          });
          await onResult(t, r);
        },
        batch.signal,
        batch.between,
      );
    },
    async checkKept(batch, onResult) {
      if (!batch.tasks.length) return;
      const dratTrim = batch.dratTrim;
      if (!dratTrim) throw new Error('checking the kept proofs needs drat-trim (evaluation.drat_trim)');
      await runPool(
        batch.tasks,
        batch.jobs,
        async (t) => {
          const r = await checkKeptProof({
            result: t.result,
            cnf: t.cnf,
            proof: keptProofPath(root, batch.hold, t.key),
            dratTrim,
            checkerTimeoutS: batch.checkerTimeoutS,
            ...(batch.checker ? { checker: batch.checker } : {}),
            maxProofMb: batch.maxProofMb,
            ...(batch.signal ? { signal: batch.signal } : {}),
          });
          await onResult(t, r);
        },
        batch.signal,
      );
      batch.signal?.throwIfAborted();
    },
    release: (hold, keys) => releaseHold(root, hold, keys),
  };
}
