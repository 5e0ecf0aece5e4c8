// The Slurm runner's health check, from where sbatch runs (this machine or the login node): Slurm's
// client and controller, the partition, Node.js and drat-trim there, the shared workdir's free space,
// whether accounting explains dead tasks, and jobs left queued by an earlier run (to re-attach to).
import { sandboxFinding } from '../sandboxCheck';
import { isolationFor } from '../../isolation/settings';
import type { Config } from '../../config/schema';
import { remoteMeasurementFindings, type HealthFinding } from '../healthFinding';
import { nodeProblem } from '../sshProbe';
import { openSite, type SlurmRunnerConfig } from './slurmRunner';
import { liveRecords } from './jobState';

const MIN_FREE_GB = 2;

/** `workerFile`: dist/worker.js, run on a compute node (srun, only if one is free at once) to say how the nodes measure runs. */
export async function checkSlurmHealth(
  runner: SlurmRunnerConfig,
  config: Config,
  opts: { sshArgs?: readonly string[]; env?: NodeJS.ProcessEnv; workerFile?: string } = {},
): Promise<HealthFinding[]> {
  const out: HealthFinding[] = [];
  let site: Awaited<ReturnType<typeof openSite>>;
  try {
    site = await openSite({
      config: runner,
      workerFile: opts.workerFile ?? '',
      ...(opts.sshArgs ? { sshArgs: opts.sshArgs } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    });
  } catch (e) {
    return [{ check: 'connection', level: 'error', detail: (e as Error).message }];
  }
  if (runner.login_host) out.push({ check: 'connection', level: 'ok', detail: `logged in to ${runner.login_host}` });
  const v = await site.exec(['sbatch', '--version']);
  if (v.code !== 0)
    return [...out, { check: 'slurm', level: 'error', detail: `sbatch does not run on ${site.where}: ${v.stderr.trim().split('\n').pop() ?? ''}` }];
  const info = await site.exec(['sinfo', '-h', '-o', '%P|%a|%D|%t']);
  if (info.code !== 0)
    out.push({
      check: 'slurm',
      level: 'error',
      detail: `${v.stdout.trim()}, but sinfo fails on ${site.where}: ${info.stderr.trim().split('\n').pop() ?? ''} (is the controller reachable?)`,
    });
  else {
    const parts = info.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('|'));
    const names = [...new Set(parts.map((p) => (p[0] ?? '').replace(/\*$/, '')))];
    const want = runner.partition;
    const mine = want ? parts.filter((p) => p[0]?.replace(/\*$/, '') === want) : parts.filter((p) => p[0]?.endsWith('*'));
    const nodes = mine.reduce((n, p) => n + (Number(p[2]) || 0), 0);
    if (want && !mine.length)
      out.push({ check: 'slurm', level: 'error', detail: `no partition "${want}" on this cluster (partitions: ${names.join(', ') || 'none'})` });
    else if (mine.length && mine.every((p) => p[1] !== 'up')) out.push({ check: 'slurm', level: 'error', detail: `partition ${want ?? names[0]} is down` });
    else
      out.push({
        check: 'slurm',
        level: 'ok',
        detail: `${v.stdout.trim()}; partition ${want ?? `${mine[0]?.[0]?.replace(/\*$/, '') ?? '?'} (default)`} up with ${nodes} node${nodes === 1 ? '' : 's'}`,
      });
  }
  const facts = await site.probe().catch((e: Error) => e);
  if (facts instanceof Error) return [...out, { check: 'node', level: 'error', detail: facts.message }];
  const bad = nodeProblem(facts, site.where, runner.node);
  out.push({
    check: 'node',
    level: bad ? 'error' : 'ok',
    detail: bad ?? `Node.js ${facts.node} on ${site.where} (the compute nodes run the same "${runner.node}")`,
  });
  out.push(sandboxFinding(isolationFor(config, runner.name), facts.sandbox, `${site.where} (the compute nodes need it too)`));
  // Our own jobs still queued hold the nodes: the check would only wait behind them.
  const queued = await liveRecords(site.dir).catch(() => []);
  if (opts.workerFile && !bad && !queued.length) out.push(...(await nodeMeasurement(site, runner)));
  else if (opts.workerFile && !bad)
    out.push({
      check: 'CPU time',
      level: 'warning',
      detail: `not checked on the compute nodes while job ${queued.map((r) => r.id).join(', ')} of an earlier evaluation is queued; each run's result says whether it has a CPU time`,
    });
  const proofs = Object.values(config.stages).some((s) => s?.check_proofs);
  out.push(
    facts.dratTrim
      ? { check: 'drat-trim', level: 'ok', detail: `${facts.dratTrim} on ${site.where} (it must be on the shared filesystem or on every node)` }
      : {
          check: 'drat-trim',
          level: proofs ? 'error' : 'warning',
          detail: `not found on ${site.where}${proofs ? ' but stages check proofs' : ''}: build it on the shared filesystem (scripts/setup-sat-tools.sh)`,
        },
  );
  out.push(
    facts.freeGb === null
      ? { check: 'disk', level: 'warning', detail: `free space in ${site.dir.root} unknown` }
      : {
          check: 'disk',
          level: facts.freeGb < MIN_FREE_GB ? 'error' : 'ok',
          detail: `${facts.freeGb.toFixed(1)} GB free in ${site.dir.root}${facts.freeGb < MIN_FREE_GB ? ' (candidates, instances and results need room)' : ''}`,
        },
  );
  const acct = await site.exec(['sacct', '-n', '-X', '-S', 'now-1minutes', '-o', 'JobID']);
  const accounting = acct.code === 0 && !/accounting storage is disabled/i.test(acct.stdout + acct.stderr);
  out.push({
    check: 'accounting',
    level: 'ok',
    detail: accounting
      ? 'sacct works: tasks that died are explained even after the controller forgets them'
      : 'no accounting (sacct): a task that died is explained only while squeue still lists it',
  });
  if (queued.length) {
    const tasks = queued.reduce((n, r) => n + r.keys.filter(Boolean).length, 0);
    out.push({
      check: 'jobs',
      level: 'warning',
      detail: `job ${queued.map((r) => r.id).join(', ')} (${tasks} task${tasks === 1 ? '' : 's'}) submitted by an earlier evaluation: evaluate the same candidate again to re-attach and collect the results`,
    });
  }
  return out;
}

/** Seconds srun waits for a free node before the check gives up: a health check never queues behind real work. */
const NODE_WAIT_S = 5;

/**
 * How a compute node measures and bounds runs: the worker's `--measurement` in a one-task step on a
 * node of the runner's partition, in the cgroup Slurm gives the job, as a run's worker would be.
 */
async function nodeMeasurement(site: Awaited<ReturnType<typeof openSite>>, runner: SlurmRunnerConfig): Promise<HealthFinding[]> {
  const where = `a compute node${runner.partition ? ` of ${runner.partition}` : ''}`;
  const r = await site
    .sync({ instances: [] })
    .then((synced) =>
      site.exec([
        'srun',
        `--immediate=${NODE_WAIT_S}`,
        '--ntasks=1',
        '--time=1',
        `--chdir=${site.dir.root}`,
        ...(runner.partition ? [`--partition=${runner.partition}`] : []),
        ...(runner.account ? [`--account=${runner.account}`] : []),
        ...(runner.qos ? [`--qos=${runner.qos}`] : []),
        runner.node,
        synced.worker,
        '--measurement',
      ]),
    )
    .catch((e: Error) => e);
  return remoteMeasurementFindings(r, where);
}
