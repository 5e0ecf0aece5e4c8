// Whether a runner can sandbox what it runs, as the runners and their health checks need to know:
// before a batch (refuse to run unconfined unless the configuration says `sandbox: off`), and in the
// Runners view (a finding with the fix, or the warning that results are measured without isolation).
import type { SandboxFacts } from '../isolation/probe';
import type { IsolationSettings } from '../isolation/settings';
import type { HealthFinding } from './healthFinding';

/** Throws when the runs must be sandboxed and `where` cannot do it. */
export function requireSandbox(isolation: IsolationSettings | undefined, facts: SandboxFacts): void {
  if ((isolation?.mode ?? 'bwrap') === 'bwrap' && !facts.ok) throw new Error(`${facts.problem}. ${facts.fix}`);
}

/** The health check's line about isolation. */
export function sandboxFinding(isolation: IsolationSettings, facts: SandboxFacts, where: string): HealthFinding {
  if (isolation.mode === 'off')
    return {
      check: 'sandbox',
      level: 'warning',
      detail: `off (sandbox: off): evolved code runs on ${where} with your full authority and its results are marked "measured without isolation"`,
    };
  return facts.ok
    ? {
        check: 'sandbox',
        level: 'ok',
        detail: `bubblewrap on ${where}: builds and runs see only the candidate (and their instance), no network, a cleared environment`,
      }
    : { check: 'sandbox', level: 'error', detail: `${facts.problem}. ${facts.fix}` };
}
