// budgets.cpu_hours: the solver time (and proof checking) every stored run has used. A new cycle does
// not start once it is spent; the one in progress finishes, so nothing is left half done.
import * as path from 'node:path';
import { ResultsStore } from '../eval/resultsStore';
import { STATE_DIR } from '../layout';

export class BudgetExhausted extends Error {
  override name = 'BudgetExhausted';
}

export async function cpuHoursUsed(ws: string): Promise<number> {
  const runs = await new ResultsStore(path.join(ws, STATE_DIR, 'results', 'runs.jsonl')).load();
  let s = 0;
  for (const r of runs.values()) s += r.result.time_s + (r.result.check?.time_s ?? 0);
  return s / 3600;
}

/** Throws BudgetExhausted when the CPU-hour cap is reached. */
export async function ensureCpuBudget(ws: string, capHours: number | undefined): Promise<void> {
  if (capHours === undefined) return;
  const used = await cpuHoursUsed(ws);
  if (used >= capHours)
    throw new BudgetExhausted(
      `the CPU budget of ${capHours} h is spent (${used.toFixed(2)} h of solver time used); raise budgets.cpu_hours in satlution.yaml to go on`,
    );
}
