// A runner's health check: can it run the evaluator's gates as configured? Each finding says what is
// missing and how to fix it, so a person can act on it from the Runners view or the CLI.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import type { Config, RunnerConfig } from '../config/schema';
import { prlimitHere } from '../run/buildSolver';
import { accountingJail } from '../run/limits';
import { measurementHere } from '../run/measurement';
import { findDratTrim } from '../run/checkers';
import { checkSlurmHealth } from './slurm/slurmHealth';
import { measurementFindings, type HealthFinding } from './healthFinding';
import { checkSshHealth } from './sshHealth';
import { sandboxFinding } from './sandboxCheck';
import { isolationFor, type IsolationSettings, limitsOf } from '../isolation/settings';
import { bwrapSizesTmpfs, probeIsolation } from '../isolation/probe';

export type { HealthFinding } from './healthFinding';

const MIN_FREE_GB = 2;

/** `workerFile`: dist/worker.js, which remote checks run on their host to say how it measures runs. */
export async function checkRunnerHealth(
  runner: RunnerConfig,
  config: Config,
  ws: string,
  opts: { sshArgs?: readonly string[]; env?: NodeJS.ProcessEnv; workerFile?: string } = {},
): Promise<HealthFinding[]> {
  if (runner.kind === 'ssh') return checkSshHealth(runner, config, opts.sshArgs, opts.workerFile);
  if (runner.kind === 'slurm') return checkSlurmHealth(runner, config, opts);
  const out: HealthFinding[] = [];
  const [major] = process.versions.node.split('.').map(Number);
  out.push({
    check: 'node',
    level: (major ?? 0) >= 18 ? 'ok' : 'error',
    detail: `Node.js ${process.versions.node}${(major ?? 0) >= 18 ? '' : ' (the worker needs 18 or later)'}`,
  });
  const cores = os.availableParallelism();
  const jobs = runner.jobs ?? Math.max(1, cores - 1);
  out.push({
    check: 'cores',
    level: jobs > cores ? 'warning' : 'ok',
    detail:
      jobs > cores
        ? `${jobs} parallel runs on ${cores} cores: runs would compete for CPU and times would be noisy`
        : `${jobs} parallel run${jobs > 1 ? 's' : ''} on ${cores} cores`,
  });
  const proofs = Object.values(config.stages).some((s) => s?.check_proofs);
  const drat = findDratTrim(undefined, config.evaluation.drat_trim);
  out.push(
    drat
      ? { check: 'drat-trim', level: 'ok', detail: drat }
      : {
          check: 'drat-trim',
          level: proofs ? 'error' : 'warning',
          detail: `not found${proofs ? ' but stages check proofs' : ''}: locate or build it (Runners view: click this line), or set evaluation.drat_trim in satlution.yaml`,
        },
  );
  const isolation = isolationFor(config, runner.name);
  // With sandbox: off the finding is the warning, whatever this machine offers.
  out.push(sandboxFinding(isolation, isolation.mode === 'off' ? { ok: true } : await probeIsolation(isolation), 'this machine'));
  try {
    out.push(...measurementFindings(await measurementHere(), 'this machine'));
  } catch (e) {
    out.push({ check: 'memory limit', level: 'error', detail: (e as Error).message });
  }
  out.push(...(await limitFindings(isolation)));
  try {
    const st = await fs.statfs(ws);
    const freeGb = (st.bavail * st.bsize) / 2 ** 30;
    out.push({
      check: 'disk',
      level: freeGb < MIN_FREE_GB ? 'warning' : 'ok',
      detail: `${freeGb.toFixed(1)} GB free in the workspace${freeGb < MIN_FREE_GB ? ' (candidates, proofs and logs need room)' : ''}`,
    });
  } catch (e) {
    out.push({ check: 'disk', level: 'warning', detail: `free space unknown: ${(e as Error).message}` });
  }
  return out;
}

/** How this machine bounds the processes and disk of builds and runs (evaluation.processes_max, disk_max_mb), and what it cannot. */
async function limitFindings(isolation: IsolationSettings): Promise<HealthFinding[]> {
  const { processesMax, diskMaxMb } = limitsOf(isolation);
  const jail = await accountingJail(undefined, processesMax).catch(() => undefined);
  await jail?.dispose();
  const pids = jail?.processesMax !== undefined;
  const sized = isolation.mode === 'bwrap' && (await probeIsolation(isolation).then((p) => p.ok && bwrapSizesTmpfs(p.bwrap)));
  const gaps = [
    prlimitHere() ? '' : 'no prlimit here, so a single file of a build is bounded only by the watch',
    isolation.mode === 'off'
      ? "without the sandbox /tmp is the host's, unbounded"
      : sized
        ? ''
        : "this bwrap has no --size (before 0.8.0), so the sandbox's /tmp is bounded only by memory",
  ].filter(Boolean);
  return [
    {
      check: 'processes limit',
      level: pids ? 'ok' : 'warning',
      detail: pids
        ? `${processesMax} per build or run, enforced with ${jail!.method} pids.max`
        : `${processesMax} per build or run, but ${jail?.cgroup ? `the ${jail.cgroup} here has no pids controller` : 'no cgroup can hold it here'}: the process tree is counted a few times a second instead (a quick burst can outrun it)`,
    },
    {
      check: 'disk limit',
      level: gaps.length ? 'warning' : 'ok',
      detail: `${diskMaxMb} MB for a build's directory, each file it writes and its scratch, and for a run's scratch; watched while they run${gaps.length ? `, but ${gaps.join('; ')}` : ''}`,
    },
  ];
}
