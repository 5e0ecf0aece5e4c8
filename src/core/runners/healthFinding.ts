// One line of a runner's health check, shared by the local, ssh and slurm checks (health.ts and the
// per-kind checks it dispatches to), so that none of them imports another back.

/** What one check found: what is missing and how to fix it, or that all is well. */
export interface HealthFinding {
  check: string;
  level: 'ok' | 'warning' | 'error';
  detail: string;
}
