// The Slurm runner end to end on a real single-host Slurm: through the evaluator and the CLI, the
// same answers and metrics as local runs; a CLI killed mid-run re-attaches to its job instead of
// resubmitting; a task scancel-ed from outside is reported with its state and resubmitted by the
// next run; submission through a login node over a real sshd; clear errors when Slurm is missing.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { computeMetrics } from '../../src/core/eval/metrics';
import { ResultsStore } from '../../src/core/eval/resultsStore';
import { localRunner } from '../../src/core/runners/local';
import { type SlurmRunnerConfig, slurmRunner } from '../../src/core/runners/slurm/slurmRunner';
import { localDir } from '../../src/core/runners/slurm/shared';
import { liveRecords } from '../../src/core/runners/slurm/jobState';
import { type Slurm, type Sshd, slurmUp, sshdUp } from './clusters';
import { CLI, tempDir, WORKER, write } from './helpers';
import { evalOn, makeSet, summary, tinysat } from './runnerFixtures';

const config = (over: Partial<SlurmRunnerConfig> = {}): SlurmRunnerConfig => ({
  name: 'cluster',
  kind: 'slurm',
  workdir: path.join(tempDir('satlution-shared-'), 'work'),
  cpus_per_task: 1,
  max_array: 1000,
  node: process.execPath,
  build: 'local',
  sbatch_args: [],
  ...over,
});

async function until(what: string, ok: () => boolean, ms = 60000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) if (ok()) return;
  throw new Error(`timed out waiting for ${what}`);
}

describe('Slurm runner (real Slurm)', function () {
  this.timeout(240000);
  let slurm: Slurm | undefined;
  let solverDir: string;
  const squeue = (...args: string[]) => spawnSync('squeue', ['-h', ...args], { encoding: 'utf8', env: slurm!.env }).stdout.trim();

  before(async function () {
    slurm = slurmUp(this);
    assert.ok(fs.existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs first`);
    solverDir = await tinysat();
  });
  after(() => slurm?.down());

  it('gives the same statuses, answers and metrics as the local runner', async () => {
    const set = makeSet();
    const local = await evalOn(localRunner(), set, { solver: solverDir });
    const cfg = config({ array_throttle: 2 });
    const said: string[] = [];
    const viaSlurm = await evalOn(slurmRunner({ config: cfg, workerFile: WORKER, env: slurm!.env, pollMs: 300 }), set, {
      solver: solverDir,
      onStatus: (m) => said.push(m),
    });
    assert.deepEqual(summary(viaSlurm), summary(local));
    assert.ok(viaSlurm.results.every((r) => r.status === 'solved'));
    const [ml, ms] = [computeMetrics(local.results, 30), computeMetrics(viaSlurm.results, 30)];
    assert.deepEqual([ms.n, ms.solved, ms.solved_sat, ms.solved_unsat, ms.wrong], [ml.n, ml.solved, ml.solved_sat, ml.solved_unsat, ml.wrong]);
    assert.ok(Math.abs(ms.par2 - ml.par2) < 0.5, `PAR-2 ${ms.par2} on Slurm vs ${ml.par2} locally`);
    assert.ok(
      said.some((m) => /^submitted job \d+$/.test(m)),
      said.join('\n'),
    );
    assert.ok(
      said.some((m) => /^Slurm job \d+: 6\/6 done$/.test(m)),
      said.join('\n'),
    );
    // The shared workdir holds one copy of each thing, every result, and no job record anyone would
    // re-attach to: the job's record goes once it ended, or, when an element was still completing as the
    // last result came in (slow on a busy machine), at the next look (slurm.test.ts follows that one).
    const ls = (d: string) => fs.readdirSync(path.join(cfg.workdir, d));
    assert.deepEqual([ls('solvers').length, ls('instances').length, ls('results').length], [1, 6, 6]);
    assert.deepEqual(await liveRecords(localDir(cfg.workdir)), [], 'a record left holds finished tasks only');
    assert.deepEqual(ls('jobs'), [], 'and that look removes it');
  });

  it("gives a job none of the submitter's secrets: an API key and SSH_AUTH_SOCK stay out of the runs", async () => {
    const spy = await tinysat();
    const seen = tempDir('satlution-env-');
    // The attack: every run writes its environment where the test can read it.
    write(path.join(spy, 'bin', 'starexec_run_default'), `#!/bin/sh\nenv > ${JSON.stringify(seen)}/env.$$\nexec "$(dirname "$0")/tinysat" "$1"\n`);
    fs.chmodSync(path.join(spy, 'bin', 'starexec_run_default'), 0o755);
    const env = { ...slurm!.env, OPENAI_API_KEY: 'sk-attack-canary-1234', SSH_AUTH_SOCK: '/tmp/agent-canary.sock', SATLUTION_SECRET_CANARY: 'x' };
    // Unconfined (sandbox: off), so that the spy can leave its dumps where the test reads them: the job's
    // allow-listed environment (--export) must hold even then.
    const out = await evalOn(slurmRunner({ config: config(), workerFile: WORKER, env, pollMs: 300 }), makeSet(), {
      solver: spy,
      isolation: { mode: 'off', buildNetwork: false, readOnly: [] },
    });
    assert.ok(
      out.results.every((r) => r.status === 'solved'),
      JSON.stringify(summary(out)),
    );
    const dumps = fs.readdirSync(seen).map((f) => fs.readFileSync(path.join(seen, f), 'utf8'));
    assert.equal(dumps.length, 6);
    for (const d of dumps) {
      assert.doesNotMatch(d, /canary/, 'a secret of the submitting process reached the job');
      assert.match(d, /^PATH=/m);
    }
  });

  it('a CLI killed mid-run re-attaches to its job on the next run: one job, one result per instance', async () => {
    const ws = tempDir();
    const set = makeSet();
    const slow = await tinysat(2);
    const cfg = config();
    write(
      path.join(ws, 'satlution.yaml'),
      [
        'seeds: [{name: s, source: .}]',
        `benchmarks: {smoke: ${JSON.stringify(set)}, tiny: ${JSON.stringify(set)}, perf: ${JSON.stringify(set)}}`,
        'runners:',
        '  - {name: local, kind: local}',
        `  - {name: cluster, kind: slurm, workdir: ${JSON.stringify(cfg.workdir)}, node: ${JSON.stringify(process.execPath)}, array_throttle: 2}`,
        'stages:',
        '  verify: {set: tiny, runner: cluster, check_proofs: false, mem_mb: 1024}',
        '',
      ].join('\n'),
    );
    const args = [CLI, 'eval', slow, '--stage', 'verify', '--no-build'];
    const opts = { cwd: ws, env: { ...slurm!.env, XDG_CACHE_HOME: tempDir() } };
    const first = spawn(process.execPath, args, { ...opts, stdio: ['ignore', 'ignore', 'pipe'] });
    let firstErr = '';
    first.stderr.setEncoding('utf8').on('data', (d: string) => (firstErr += d));
    first.once('exit', (code) => code !== null && assert.fail(`the first CLI ended by itself (exit ${code}): ${firstErr}`));
    const jobs = path.join(cfg.workdir, 'jobs');
    await until(`the job to be submitted (${firstErr})`, () => fs.existsSync(jobs) && fs.readdirSync(jobs).length > 0);
    const id = fs.readdirSync(jobs)[0]!.replace('.json', '');
    await until('a first result', () => fs.readdirSync(path.join(cfg.workdir, 'results')).some((f) => f.endsWith('.json')));
    first.kill('SIGKILL'); // no chance to scancel: the job must survive and be found again
    await new Promise((r) => first.once('exit', r));
    assert.match(squeue('--job', id, '-o', '%i'), new RegExp(`^${id}_`), 'the job is still queued after the CLI died');
    // The health check points at the orphaned job, and tells how to collect it.
    const health = spawnSync(process.execPath, [CLI, 'runners', 'cluster'], { ...opts, encoding: 'utf8' });
    assert.match(
      health.stdout,
      new RegExp(`! jobs +job ${id} \\(\\d+ tasks?\\) submitted by an earlier evaluation: evaluate the same candidate again to re-attach`),
      health.stdout + health.stderr,
    );
    const again = spawnSync(process.execPath, args, { ...opts, encoding: 'utf8' });
    assert.equal(again.status, 0, again.stdout + again.stderr);
    assert.match(again.stderr, new RegExp(`re-attached to job ${id}`));
    assert.doesNotMatch(again.stderr, /submitted job/);
    const store = fs
      .readFileSync(path.join(ws, '.satlution', 'results', 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { key: string }).key);
    assert.equal(store.length, 6, 'exactly one stored result per instance');
    assert.equal(new Set(store).size, 6);
    assert.match(again.stdout, /6\/6 solved/);
  });

  it('reports a task scancel-ed from outside with its state, and the next run resubmits only that one', async () => {
    const set = tempDir();
    write(path.join(set, 'p1.cnf'), 'p cnf 2 1\n1 2 0\n');
    write(path.join(set, 'p2.cnf'), 'p cnf 3 2\n1 -2 0\n2 3 0\n');
    // Slow enough that element 0 is still running when scancel reaches it, on a busy machine too.
    const slow = await tinysat(12);
    const cfg = config();
    const store = new ResultsStore(path.join(tempDir(), 'runs.jsonl'));
    const runner = slurmRunner({ config: cfg, workerFile: WORKER, env: slurm!.env, pollMs: 300 });
    const attempt = evalOn(runner, set, { solver: slow, store });
    const jobs = path.join(cfg.workdir, 'jobs');
    await until('the job to be submitted', () => fs.existsSync(jobs) && fs.readdirSync(jobs).length > 0);
    const id = fs.readdirSync(jobs)[0]!.replace('.json', '');
    await until('element 0 to run', () => /RUNNING/.test(squeue('--array', '--job', `${id}_0`, '-o', '%T')));
    const cancelled = spawnSync('scancel', [`${id}_0`], { env: slurm!.env, encoding: 'utf8' });
    assert.equal(cancelled.status, 0, cancelled.stderr);
    await assert.rejects(attempt, /1 Slurm task ended without a result: p\d\.cnf \(job \d+_0\): CANCELLED.*evaluate again to resubmit/);
    assert.equal((await store.load()).size, 1, 'the other run finished and is stored');
    const said: string[] = [];
    const resumed = await evalOn(runner, set, { solver: slow, store: new ResultsStore(store.file), onStatus: (m) => said.push(m) });
    assert.deepEqual(
      resumed.results.map((r) => r.status),
      ['solved', 'solved'],
    );
    assert.ok(
      said.some((m) => /^submitted job \d+$/.test(m) && !m.includes(id)),
      said.join('\n'),
    );
    assert.ok(
      said.some((m) => /: 1\/1 done$/.test(m)),
      `only the cancelled task ran again:\n${said.join('\n')}`,
    );
  });

  it('explains a missing Slurm or a Node.js that does not run', async () => {
    const noSlurm = slurmRunner({ config: config(), workerFile: WORKER, env: { ...slurm!.env, PATH: '/nonexistent' } });
    await assert.rejects(evalOn(noSlurm, makeSet(), { solver: solverDir }), /sbatch does not run on this machine.*install the Slurm client/);
    const noNode = slurmRunner({ config: config({ node: '/nonexistent/node' }), workerFile: WORKER, env: slurm!.env });
    await assert.rejects(
      evalOn(noNode, makeSet(), { solver: solverDir }),
      /Node\.js \("\/nonexistent\/node"\) does not run on this machine.*compute nodes need it too/,
    );
  });

  it('checks the cluster: sbatch and sinfo, the partition, Node.js, disk and accounting', () => {
    const ws = tempDir();
    write(
      path.join(ws, 'satlution.yaml'),
      [
        'seeds: [{name: s, source: .}]',
        'runners:',
        '  - {name: local, kind: local}',
        `  - {name: cluster, kind: slurm, workdir: ${JSON.stringify(config().workdir)}, node: ${JSON.stringify(process.execPath)}}`,
        `  - {name: nopart, kind: slurm, workdir: ${JSON.stringify(config().workdir)}, partition: gpu-huge}`,
        'stages: {smoke: {check_proofs: false}, verify: {check_proofs: false}}',
        '',
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [CLI, 'runners', 'cluster', 'nopart', '--json'], { cwd: ws, encoding: 'utf8', env: slurm!.env });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as Record<string, { check: string; level: string; detail: string }[]>;
    const by = (name: string, check: string) => report[name]!.find((f) => f.check === check);
    assert.equal(by('cluster', 'slurm')?.level, 'ok');
    assert.match(by('cluster', 'slurm')!.detail, /partition \S+ \(default\) up with 1 node/);
    assert.match(by('cluster', 'node')!.detail, new RegExp(`Node\\.js v${process.versions.node}`));
    assert.match(by('cluster', 'accounting')!.detail, /no accounting/);
    assert.equal(by('cluster', 'disk')?.level, 'ok');
    // How a compute node measures runs: the worker there, in a one-task step.
    assert.equal(by('cluster', 'CPU time')?.level, 'ok', by('cluster', 'CPU time')?.detail);
    assert.match(by('cluster', 'CPU time')!.detail, /orphans included, from (cpuacct\.usage|cpu\.stat) .* on a compute node$/);
    assert.deepEqual([by('nopart', 'slurm')?.level, /no partition "gpu-huge"/.test(by('nopart', 'slurm')!.detail)], ['error', true]);
  });

  describe('through a login node over SSH', function () {
    let sshd: Sshd | undefined;
    let sshArgs: string[];
    before(function () {
      sshd = sshdUp(this);
      // Slurm's commands on the "login node" find this test cluster through SLURM_CONF.
      const cfgFile = write(path.join(tempDir(), 'ssh_config'), `Host ${sshd.host}\n  SetEnv SLURM_CONF=${slurm!.conf}\nInclude ${sshd.config}\n`);
      sshArgs = ['-F', cfgFile];
    });
    after(() => sshd?.down());

    it('syncs, submits, follows and collects the same answers as local runs', async () => {
      const set = makeSet();
      const local = await evalOn(localRunner(), set, { solver: solverDir });
      // The login node builds the candidate from its sources (build: remote), as for a cluster of another platform.
      const cfg = config({ login_host: sshd!.host, build: 'remote' });
      const said: string[] = [];
      const remote = await evalOn(slurmRunner({ config: cfg, workerFile: WORKER, sshArgs, pollMs: 300 }), set, {
        solver: solverDir,
        onStatus: (m) => said.push(m),
      });
      assert.deepEqual(summary(remote), summary(local));
      assert.ok(said.includes(`syncing to the login node ${sshd!.host}`), said.join('\n'));
      assert.equal(fs.readdirSync(path.join(cfg.workdir, 'results')).length, 6);
      assert.ok(said.includes('syncing to the login node ' + sshd!.host), said.join('\n'));
      assert.ok(
        fs
          .readdirSync(path.join(cfg.workdir, 'solvers'))
          .filter((d) => !d.endsWith('.built'))
          .every((d) => d.endsWith('.remote') && fs.existsSync(path.join(cfg.workdir, 'solvers', `${d}.built`))),
      );
    });
  });
});
