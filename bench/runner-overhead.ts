// Benchmark: what each runner adds per run on many short instances. The same built candidate and
// set of tiny instances are evaluated through the real evaluator on the local pool, on an SSH host
// (a real sshd on 127.0.0.1) and on Slurm (a real single-host Slurm), each brought up by the
// project's scripts and stopped at the end. Printed: wall time, time per run, and the overhead per
// run against local; "cold" starts from an empty remote workdir (sync + runs), "resume" is the same
// evaluation again with an empty local store (results fetched from the remote workdir, nothing rerun).
// BENCH_INSTANCES (default 60), BENCH_SLOTS (default 2).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planted3Sat } from '../src/core/instances/generators';
import { InstanceCache, listSet } from '../src/core/instances/instances';
import { buildSolver } from '../src/core/run/buildSolver';
import { runSet } from '../src/core/eval/runSet';
import { ResultsStore } from '../src/core/eval/resultsStore';
import { localRunner } from '../src/core/runners/local';
import type { Runner } from '../src/core/runners/runner';
import { slurmRunner } from '../src/core/runners/slurm/slurmRunner';
import { sshRunner } from '../src/core/runners/sshRunner';

const ROOT = path.resolve(__dirname, '..', '..');
const WORKER = path.join(ROOT, 'dist', 'worker.js');
const N = Number(process.env.BENCH_INSTANCES ?? 60);
const SLOTS = Number(process.env.BENCH_SLOTS ?? 2);

const kv = (out: string) =>
  Object.fromEntries(
    out
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

function script(name: string, args: string[], env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', name), ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) {
    console.log(`(${name} ${args[0]} failed, exit ${r.status}: ${r.stderr.trim().split('\n').pop()})`);
    return undefined;
  }
  return kv(r.stdout);
}

async function timeIt(runner: Runner, solverDir: string, set: string, tmp: string): Promise<number> {
  const instances = await listSet(set);
  const t0 = process.hrtime.bigint();
  const out = await runSet({
    solverDir,
    instances,
    timeoutS: 30,
    memMb: 1024,
    checkProofs: false,
    maxProofMb: 64,
    checkerTimeoutS: 30,
    jobs: SLOTS,
    cache: new InstanceCache(path.join(tmp, 'cache')), // shared: instance preparation is not what is measured
    store: new ResultsStore(fs.mkdtempSync(path.join(tmp, 'store-')) + '/runs.jsonl'),
    runner,
  });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const bad = out.results.filter((r) => r.status !== 'solved');
  if (out.results.length !== N || bad.length)
    throw new Error(`${runner.name}: ${out.results.length} results, ${bad.length} not solved (${bad[0]?.detail ?? ''})`);
  return s;
}

async function main(): Promise<void> {
  if (!fs.existsSync(WORKER)) throw new Error('build first: node esbuild.mjs');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-runners-'));
  const sshdEnv = { ...process.env, SSHD_TEST_DIR: path.join(tmp, 'sshd') };
  let slurmDir: string | undefined;
  let sshdUp = false;
  try {
    const solverDir = path.join(tmp, 'SATLUTION_1');
    fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'seeds', 'tinysat'), solverDir, { recursive: true });
    fs.writeFileSync(path.join(solverDir, 'starexec_build'), '#!/bin/sh\nset -e\ncd "$(dirname "$0")"\nmake -s\nmkdir -p bin\ncp tinysat bin/\n', {
      mode: 0o755,
    });
    fs.mkdirSync(path.join(solverDir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(solverDir, 'bin', 'starexec_run_default'), '#!/bin/sh\nexec "$(dirname "$0")/tinysat" "$1"\n', { mode: 0o755 });
    const b = await buildSolver(solverDir, 120);
    if (!b.ok) throw new Error(`tinysat did not build: ${b.detail}`);
    const set = path.join(tmp, 'set');
    fs.mkdirSync(set);
    for (let i = 0; i < N; i++) fs.writeFileSync(path.join(set, `p${i}.cnf`), planted3Sat(40, 4.0, 7000 + i));
    await timeIt(localRunner(), solverDir, set, tmp); // warm caches (instances, page cache)

    const rows: { runner: string; phase: string; s: number }[] = [];
    const local = await timeIt(localRunner(), solverDir, set, tmp);
    rows.push({ runner: 'local', phase: 'runs', s: local });

    const sshd = script('sshd-test.sh', ['up'], sshdEnv);
    if (sshd) {
      sshdUp = true;
      const ssh = sshRunner({
        config: { name: 'ssh', kind: 'ssh', host: sshd.SSH_HOST!, workdir: path.join(tmp, 'ssh-work'), node: process.execPath, build: 'local', jobs: SLOTS },
        workerFile: WORKER,
        sshArgs: ['-F', sshd.SSH_CONFIG!],
      });
      rows.push({ runner: 'ssh', phase: 'cold', s: await timeIt(ssh, solverDir, set, tmp) });
      rows.push({ runner: 'ssh', phase: 'resume', s: await timeIt(ssh, solverDir, set, tmp) });
    }
    const slurm = script('slurm-test.sh', ['up'], { ...process.env, SLURM_TEST_DIR: '' });
    if (slurm) {
      slurmDir = slurm.SLURM_TEST_DIR;
      const cfg = {
        name: 'slurm',
        kind: 'slurm' as const,
        workdir: path.join(tmp, 'slurm-work'),
        node: process.execPath,
        build: 'local' as const,
        cpus_per_task: 1,
        max_array: 1000,
        sbatch_args: [],
      };
      const runner = slurmRunner({ config: cfg, workerFile: WORKER, env: { ...process.env, SLURM_CONF: slurm.SLURM_CONF }, pollMs: 500 });
      rows.push({ runner: 'slurm', phase: 'cold', s: await timeIt(runner, solverDir, set, tmp) });
      rows.push({ runner: 'slurm', phase: 'resume', s: await timeIt(runner, solverDir, set, tmp) });
    }
    console.log(`${N} short instances (tinysat, planted 3-SAT, 40 vars), ${SLOTS} slots on this ${os.availableParallelism()}-core machine`);
    console.log('runner  phase    wall s   per run ms   overhead/run vs local ms');
    for (const r of rows)
      console.log(
        `${r.runner.padEnd(7)} ${r.phase.padEnd(7)} ${r.s.toFixed(2).padStart(7)}   ${((1000 * r.s) / N).toFixed(1).padStart(10)}   ${r.runner === 'local' ? '-'.padStart(10) : ((1000 * (r.s - local)) / N).toFixed(1).padStart(10)}`,
      );
  } finally {
    if (slurmDir) script('slurm-test.sh', ['down', slurmDir], process.env);
    if (sshdUp) script('sshd-test.sh', ['down'], sshdEnv);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
