// One line of a runner's health check, shared by the local, ssh and slurm checks (health.ts and the
// per-kind checks it dispatches to), so that none of them imports another back.
import { Measurement } from '../run/measurement';

/** What one check found: what is missing and how to fix it, or that all is well. */
export interface HealthFinding {
  check: string;
  level: 'ok' | 'warning' | 'error';
  detail: string;
}

/** How a host measures CPU time and bounds memory (run/measurement.ts), as findings; `where` names the host. */
export function measurementFindings(m: Measurement, where: string): HealthFinding[] {
  return [
    {
      check: 'CPU time',
      level: m.cpu ? 'ok' : 'warning',
      detail: m.cpu
        ? `${m.cpu_detail}${where === 'this machine' ? '' : ` on ${where}`}`
        : `${m.cpu_detail} on ${where}. To get it: ${m.cpu_fix ?? 'see the docs/measurement.md'}`,
    },
    { check: 'memory limit', level: m.memory === 'rlimit' ? 'warning' : 'ok', detail: m.memory_detail },
  ];
}

/**
 * The findings of `worker --measurement` run where the runs run (its one JSON line), or one warning
 * saying why it could not be run there: a host that cannot tell is not called measured.
 */
export function remoteMeasurementFindings(r: { code: number | null; stdout: string; stderr: string } | Error, where: string): HealthFinding[] {
  if (!(r instanceof Error) && r.code === 0) {
    const line = r.stdout.trim().split('\n').pop() ?? '';
    try {
      return measurementFindings(Measurement.parse(JSON.parse(line)), where);
    } catch {
      // falls through: not the worker's answer
    }
  }
  const why = r instanceof Error ? r.message : (r.stderr.trim().split('\n').pop() ?? '') || `exit ${r.code}`;
  return [
    {
      check: 'CPU time',
      level: 'warning',
      detail: `not checked on ${where}: the worker could not say how it measures runs (${why}); each run's result says whether it has a CPU time`,
    },
  ];
}
