// The SSH runner's health check: can we log in, does the worker's Node run there, is drat-trim there
// when stages check proofs, are there enough cores and disk. Each finding says how to fix it.
import type { Config } from '../config/schema';
import { remoteMeasurementFindings, type HealthFinding } from './healthFinding';
import { remoteDir, sshExec, type SshTarget } from './ssh';
import { shJoin } from './shellQuote';
import { syncToRemote } from './sshSync';
import { nodeProblem, probeRemote } from './sshProbe';
import type { SshRunnerConfig } from './sshRunner';
import { sandboxFinding } from './sandboxCheck';
import { isolationFor } from '../isolation/settings';

const MIN_FREE_GB = 2;

/** `workerFile`: dist/worker.js, copied to the host (as a run would) to say how the host measures runs. */
export async function checkSshHealth(runner: SshRunnerConfig, config: Config, sshArgs?: readonly string[], workerFile?: string): Promise<HealthFinding[]> {
  let f: Awaited<ReturnType<typeof probeRemote>>;
  const t = { host: runner.host, ...(sshArgs ? { sshArgs } : {}) };
  try {
    f = await probeRemote(t, runner.workdir, runner.node);
  } catch (e) {
    return [{ check: 'connection', level: 'error', detail: (e as Error).message }];
  }
  const out: HealthFinding[] = [{ check: 'connection', level: 'ok', detail: `logged in to ${runner.host}` }];
  const bad = nodeProblem(f, runner.host, runner.node);
  out.push({ check: 'node', level: bad ? 'error' : 'ok', detail: bad ?? `Node.js ${f.node} on ${runner.host}` });
  const proofs = Object.values(config.stages).some((s) => s?.check_proofs);
  out.push(
    f.dratTrim
      ? { check: 'drat-trim', level: 'ok', detail: `${f.dratTrim} on ${runner.host}` }
      : {
          check: 'drat-trim',
          level: proofs ? 'error' : 'warning',
          detail: `not found on ${runner.host}${proofs ? ' but stages check proofs' : ''}: run scripts/setup-sat-tools.sh there, or put drat-trim on the PATH of non-interactive ssh sessions`,
        },
  );
  out.push(sandboxFinding(isolationFor(config, runner.name), f.sandbox, runner.host));
  if (workerFile && !bad) out.push(...(await hostMeasurement(t, runner, workerFile)));
  out.push({
    check: 'cores',
    level: runner.jobs > f.cores ? 'warning' : 'ok',
    detail:
      runner.jobs > f.cores
        ? `${runner.jobs} parallel runs on ${f.cores} cores of ${runner.host}: runs would compete for CPU and times would be noisy`
        : `${runner.jobs} parallel run${runner.jobs > 1 ? 's' : ''} on ${f.cores} cores of ${runner.host}`,
  });
  out.push(
    f.freeGb === null
      ? { check: 'disk', level: 'warning', detail: `free space in ${runner.workdir} on ${runner.host} unknown` }
      : {
          check: 'disk',
          level: f.freeGb < MIN_FREE_GB ? 'error' : 'ok',
          detail: `${f.freeGb.toFixed(1)} GB free in ${runner.workdir} on ${runner.host}${f.freeGb < MIN_FREE_GB ? ' (candidates, instances and proofs need room)' : ''}`,
        },
  );
  return out;
}

/** How the host measures and bounds runs: the worker's `--measurement`, run there as its runs are. */
async function hostMeasurement(t: SshTarget, runner: SshRunnerConfig, workerFile: string): Promise<HealthFinding[]> {
  const r = await syncToRemote(t, { workdir: runner.workdir, workerFile, instances: [] })
    .then((synced) => sshExec(t, `cd ${remoteDir(runner.workdir)} || exit 3\n${shJoin([runner.node, synced.worker, '--measurement'])}`))
    .catch((e: Error) => e);
  return remoteMeasurementFindings(r, runner.host);
}
