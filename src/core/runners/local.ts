// The local runner: N slots on this machine, each running one instance in-process (runInstance).
import { runInstance } from '../run/runInstance';
import { runPool } from './pool';
import type { Runner } from './runner';

export function localRunner(name = 'local'): Runner {
  return {
    name,
    async run(batch, onResult) {
      await runPool(
        batch.tasks,
        batch.jobs,
        async (t) => {
          const r = await runInstance({
            ...(t.logFile ? { logFile: t.logFile } : {}),
            ...batch.settings,
            ...(t.timeoutS !== undefined ? { timeoutS: t.timeoutS } : {}),
            ...(batch.signal ? { signal: batch.signal } : {}),
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
      );
    },
  };
}
