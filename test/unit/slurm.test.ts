// The Slurm runner's array jobs against a real single-host Slurm (scripts/slurm-test.sh): results of
// the real worker over the tiny fixture solver, a task cancelled from outside reported with its
// reason, re-attaching after a restart, quoting of hostile instance names.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { InstanceResult } from '../../src/core/run/result';
import { localExec, type SlurmExec } from '../../src/core/runners/slurm/exec';
import { type Died, follow, submitOrAttach } from '../../src/core/runners/slurm/job';
import { parseSacct, parseSqueue } from '../../src/core/runners/slurm/queue';
import { type ArrayOptions, renderTaskFile, type SlurmTask, timeLimitMinutes } from '../../src/core/runners/slurm/script';
import { localDir } from '../../src/core/runners/slurm/shared';
import { liveRecords, recordFile } from '../../src/core/runners/slurm/jobState';
import { type Slurm, slurmUp } from './clusters';
import { FIXTURES, tempDir, WORKER, write } from './helpers';

let env: NodeJS.ProcessEnv;
let exec: SlurmExec;
let solver: string;

function tinysat(delayS = 0): string {
  const dir = path.join(tempDir(), delayS ? 'slow tinysat' : 'tinysat');
  fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), dir, { recursive: true });
  const mk = spawnSync('make', ['-s', '-C', dir], { encoding: 'utf8' });
  assert.equal(mk.status, 0, mk.stderr);
  write(path.join(dir, 'bin', 'starexec_run_default'), `#!/bin/sh\n${delayS ? `sleep ${delayS}\n` : ''}exec "$(dirname "$0")/../tinysat" "$1"\n`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  return dir;
}

function opts(workdir: string, extra: Partial<ArrayOptions> = {}): ArrayOptions {
  return {
    jobName: 'satlution-test',
    workdir,
    node: process.execPath,
    workerFile: WORKER,
    cpusPerTask: 1,
    memMb: 600,
    timeLimitMin: timeLimitMinutes(30, false),
    extraArgs: [],
    ...extra,
  };
}

const workerArgs = (solverDir: string, cnf: string, name: string, timeoutS = 30) => [
  `--solver=${solverDir}`,
  `--cnf=${cnf}`,
  `--name=${name}`,
  `--timeout=${timeoutS}`,
  '--mem=512',
];

/** What must match between a run on Slurm and the same run here (times and memory vary). */
function comparable(r: InstanceResult) {
  return { ...r, time_s: 0, cpu_s: null, mem_mb: null, check: { ...r.check, time_s: 0 } };
}

function runLocally(args: string[]): InstanceResult {
  const r = spawnSync(process.execPath, [WORKER, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as InstanceResult;
}

async function collect(workdir: string, tasks: SlurmTask[], o: Partial<ArrayOptions> = {}) {
  const b = { opts: opts(workdir, o), exec, dir: localDir(workdir), tasks, maxArray: 1000 };
  const a = await submitOrAttach(b);
  const results = new Map<string, InstanceResult>();
  const died: Died[] = [];
  await follow(b, a, { onResult: (k, r) => void results.set(k, r), onDied: (d) => void died.push(d) }, { pollMs: 300 });
  return { a, results, died };
}

async function until(what: string, ok: () => boolean, ms = 60000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) if (ok()) return;
  throw new Error(`timed out waiting for ${what}`);
}

describe('slurm array jobs (parsing)', function () {
  it('reads squeue and sacct lines defensively, including unsplit pending ranges', function () {
    const q = parseSqueue(
      '7_[2-3,5%2] PENDING JobArrayTaskLimit\n7_1 RUNNING None\n7_0 OUT_OF_MEMORY OutOfMemory\n8_0 RUNNING None\nslurm warning: junk\n',
      '7',
    );
    assert.deepEqual(
      q.map((s) => [s.index, s.state, s.phase, s.reason]),
      [
        [2, 'PENDING', 'pending', 'JobArrayTaskLimit'],
        [3, 'PENDING', 'pending', 'JobArrayTaskLimit'],
        [5, 'PENDING', 'pending', 'JobArrayTaskLimit'],
        [1, 'RUNNING', 'running', ''],
        [0, 'OUT_OF_MEMORY', 'finished', 'OutOfMemory'],
      ],
    );
    const a = parseSacct('7_0|CANCELLED by 0|0:15\n7_1|TIMEOUT|0:0\n7_2|NODE_FAIL|1:0\n|\n', '7');
    assert.deepEqual(
      a.map((s) => [s.index, s.state, s.reason]),
      [
        [0, 'CANCELLED', 'exit code 0:15'],
        [1, 'TIMEOUT', ''],
        [2, 'NODE_FAIL', 'exit code 1:0'],
      ],
    );
    assert.equal(timeLimitMinutes(60, false), 7);
    assert.throws(() => renderTaskFile([{ key: '../x', args: [] }]));
  });
});

describe('slurm job records', function () {
  it('keeps a record while a run it holds has no result, and drops it after; torn files are ignored', async function () {
    const workdir = tempDir();
    const dir = localDir(workdir);
    write(path.join(workdir, 'jobs', '7.json'), JSON.stringify({ id: '7', keys: ['a', null, 'b'] }));
    write(path.join(workdir, 'jobs', '8.json'), '{"id": "8", "keys": [');
    write(path.join(workdir, 'results', 'a.json'), '{}');
    assert.deepEqual(await liveRecords(dir), [{ id: '7', keys: ['a', null, 'b'] }]);
    write(path.join(workdir, 'results', 'b.json'), '{}');
    assert.deepEqual(await liveRecords(dir), []);
    assert.deepEqual(fs.readdirSync(path.join(workdir, 'jobs')), ['8.json'], 'the finished record is gone, the torn one left alone');
  });
});

describe('slurm array jobs (real Slurm)', function () {
  this.timeout(180000);

  let slurm: Slurm | undefined;
  before(function () {
    slurm = slurmUp(this);
    env = slurm.env;
    exec = localExec(env);
    assert.ok(fs.existsSync(WORKER), 'build the worker first: node esbuild.mjs');
    solver = tinysat();
  });
  after(() => slurm?.down());

  it('runs the real worker as an array and collects results identical to local runs', async function () {
    const workdir = tempDir();
    const tasks = ['sat-small.cnf', 'unsat-small.cnf'].map((f, i) => ({ key: `k${i}`, args: workerArgs(solver, path.join(FIXTURES, 'cnf', f), f) }));
    const { a, results, died } = await collect(workdir, tasks, { throttle: 1 });
    assert.deepEqual(died, []);
    for (const t of tasks) assert.deepEqual(comparable(results.get(t.key)!), comparable(runLocally(t.args)));
    assert.deepEqual(
      [...results.values()].map((r) => r.answer),
      ['SAT', 'UNSAT'],
    );
    assert.ok(fs.existsSync(path.join(workdir, 'results', 'k0.json')));
    // A record goes once its job ended. An element still completing when the last result came in (slow
    // on a busy machine) keeps it; each of its tasks has a result, so nothing re-attaches to it (liveRecords
    // skips it), and the next look at the ended job removes it.
    const jobs = path.join(workdir, 'jobs');
    for (const r of fs.readdirSync(jobs).map((f) => JSON.parse(fs.readFileSync(path.join(jobs, f), 'utf8')) as { keys: (string | null)[] }))
      assert.ok(
        r.keys.every((k) => !k || fs.existsSync(path.join(workdir, 'results', `${k}.json`))),
        'a record left holds finished tasks only',
      );
    const id = a.jobs[0]!.id;
    await until('the job to end', () =>
      parseSqueue(spawnSync('squeue', ['--array', '--job', id, '-h', '-t', 'all', '-o', '%i %T %r'], { encoding: 'utf8', env }).stdout, id).every(
        (e) => e.phase === 'finished',
      ),
    );
    await follow({ exec, dir: localDir(workdir) }, a, { onResult: () => undefined, onDied: (d) => assert.fail(`died: ${JSON.stringify(d)}`) }, { pollMs: 300 });
    assert.deepEqual(fs.readdirSync(jobs), [], 'job records removed once all ended');
  });

  it('keeps instance names with spaces, quotes and shell syntax intact', async function () {
    const workdir = path.join(tempDir(), `work dir 'q' "dq"`);
    const name = `it's a "tricky" name $(touch pwned) \`x\` \\ ; & | *`;
    const cnf = path.join(tempDir(), `an $instance 'with' "quotes".cnf`);
    fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), cnf);
    const tasks = [{ key: 'tricky', args: workerArgs(solver, cnf, name) }];
    const { results, died } = await collect(workdir, tasks);
    assert.deepEqual(died, []);
    assert.equal(results.get('tricky')!.instance, name);
    assert.deepEqual(comparable(results.get('tricky')!), comparable(runLocally(tasks[0]!.args)));
    assert.ok(!fs.existsSync(path.join(workdir, 'pwned')));
  });

  it('reports a task scancel-ed from outside as died, with the reason', async function () {
    const workdir = tempDir();
    const slow = tinysat(60);
    const tasks = [{ key: 'slow', args: workerArgs(slow, path.join(FIXTURES, 'cnf', 'sat-small.cnf'), 'slow', 90) }];
    const b = { opts: opts(workdir), exec, dir: localDir(workdir), tasks, maxArray: 1000 };
    const a = await submitOrAttach(b);
    const id = a.jobs[0]!.id;
    const squeue = () => spawnSync('squeue', ['--array', '--job', id, '-h', '-o', '%T'], { encoding: 'utf8', env }).stdout.trim();
    await until('the task to run', () => squeue() === 'RUNNING');
    assert.equal(spawnSync('scancel', [`${id}_0`], { env }).status, 0);
    const died: Died[] = [];
    const done = await follow(b, a, { onResult: () => assert.fail('a cancelled task has no result'), onDied: (d) => void died.push(d) }, { pollMs: 300 });
    assert.equal(done, true);
    assert.equal(died.length, 1);
    assert.deepEqual([died[0]!.key, died[0]!.jobId, died[0]!.index, died[0]!.state], ['slow', id, 0, 'CANCELLED']);
    assert.match(died[0]!.reason, /^CANCELLED.*task log: .*_0\.out/);
  });

  it('re-attaches to the same job after a restart instead of resubmitting, and stops it with scancel', async function () {
    const workdir = tempDir();
    const slow = tinysat(2);
    const tasks = ['sat-small.cnf', 'unsat-small.cnf'].map((f, i) => ({ key: `r${i}`, args: workerArgs(slow, path.join(FIXTURES, 'cnf', f), f) }));
    const b = { opts: opts(workdir), exec, dir: localDir(workdir), tasks, maxArray: 1000 };
    // The test jobs Slurm lists already (every state: an earlier test's job may still be completing on a
    // busy machine), by their array's base id (%F): %A gives each running element an id of its own.
    const listing = () => spawnSync('squeue', ['-h', '-t', 'all', '-o', '%F %j %T'], { encoding: 'utf8', env }).stdout.trim();
    const testJobs = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.includes(' satlution-test '))
        .map((l) => l.split(' ')[0]);
    const before = listing();
    const earlier = new Set(testJobs(before));
    const first = await submitOrAttach(b);
    assert.equal(first.submitted.length, 1);
    assert.ok(fs.existsSync(path.join(workdir, recordFile(first.jobs[0]!.id))));
    // A new process: nothing in memory, only the workdir; and it asks for one task only (the
    // evaluator stored the other's result before the restart): that one still finds its job.
    const again = await submitOrAttach({ ...b, opts: opts(workdir), dir: localDir(workdir) });
    assert.deepEqual(again.submitted, []);
    assert.deepEqual(again.jobs, first.jobs);
    const one = await submitOrAttach({ ...b, dir: localDir(workdir), tasks: tasks.slice(1) });
    assert.deepEqual([one.submitted, one.jobs], [[], [{ id: first.jobs[0]!.id, keys: [null, 'r1'] }]]);
    const now = listing();
    assert.deepEqual(
      new Set(testJobs(now).filter((id) => !earlier.has(id))),
      new Set([first.jobs[0]!.id]),
      `exactly one job queued (squeue before this test:\n${before}\nnow:\n${now})`,
    );
    const results = new Map<string, InstanceResult>();
    await follow(
      b,
      again,
      { onResult: (k, r) => void results.set(k, r), onDied: (d) => assert.fail(`${d.key} died: ${d.state} ${d.reason}`) },
      { pollMs: 300 },
    );
    assert.deepEqual([...results.keys()].sort(), ['r0', 'r1']);

    // Stop: an abort scancels the job and forgets it, so a re-run submits afresh.
    const stopDir = tempDir();
    const s = {
      opts: opts(stopDir),
      exec,
      dir: localDir(stopDir),
      tasks: [{ key: 'stop', args: workerArgs(tinysat(60), path.join(FIXTURES, 'cnf', 'sat-small.cnf'), 'stop', 90) }],
      maxArray: 1000,
    };
    const sa = await submitOrAttach(s);
    const stop = new AbortController();
    const ended = follow(
      s,
      sa,
      { onResult: () => assert.fail('no result expected'), onDied: () => assert.fail('nothing died') },
      { pollMs: 300, signal: stop.signal },
    );
    setTimeout(() => stop.abort(), 1000);
    assert.equal(await ended, false);
    const sid = sa.jobs[0]!.id;
    await until(
      'the job to be cancelled',
      () => !/PENDING|RUNNING/.test(spawnSync('squeue', ['--array', '--job', sid, '-h', '-t', 'all', '-o', '%T'], { encoding: 'utf8', env }).stdout),
    );
    assert.ok(!fs.existsSync(path.join(stopDir, recordFile(sid))), 'a cancelled job is forgotten');
  });
});
