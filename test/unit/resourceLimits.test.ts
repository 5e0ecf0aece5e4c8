// The processes and disk of candidate code are bounded (evaluation.processes_max, evaluation.disk_max_mb):
// real builds and solver runs, in the sandbox and without it, that fork 2000 processes, write a 2 GiB
// file (written, or sparse), spread more than the limit over sparse files, or fill their $HOME or /tmp
// each end as a failed build or run with the reason, leave no process behind, and the same holds in
// the one-file worker that SSH hosts and Slurm nodes run, with the limits from its command line (also
// through a real SSH runner, whose remote builds get them too).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import { renderConfig } from '../../src/core/config/template';
import { evaluateSolver } from '../../src/core/eval/service';
import { DEFAULT_ISOLATION, DEFAULT_LIMITS, isolationFor, type IsolationSettings } from '../../src/core/isolation/settings';
import { buildSolver } from '../../src/core/run/buildSolver';
import { runInstance, type InstanceRunRequest } from '../../src/core/run/runInstance';
import { limitArgs, workerArgs } from '../../src/core/runners/remoteWorker';
import { sshRunner } from '../../src/core/runners/sshRunner';
import { type Sshd, sshdUp } from './clusters';
import { tempDir, WORKER, write } from './helpers';
import { evalOn, makeSet } from './runnerFixtures';

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;
const OFF: IsolationSettings = { mode: 'off', buildNetwork: false, readOnly: [] };
/** Both ways candidate code runs (the sandbox only where bubblewrap is installed). */
const MODES: IsolationSettings[] = hasBwrap ? [DEFAULT_ISOLATION, OFF] : [OFF];
const MB = 2 ** 20;

/** A run script that answers nothing, so that a build that makes it can succeed. */
const QUIET_RUN = 'mkdir -p bin && printf \'#!/bin/sh\\necho "s UNKNOWN"\\n\' > bin/starexec_run_default && chmod +x bin/starexec_run_default\n';

/** A candidate whose build script is `build` (bash, after QUIET_RUN). */
function building(build: string): string {
  const dir = path.join(tempDir('limits-build-'), 'SATLUTION_1');
  write(path.join(dir, 'starexec_build'), `#!/usr/bin/env bash\n${QUIET_RUN}${build}\n`);
  return dir;
}

/** A built solver whose run script is `run` (bash). */
function running(run: string): string {
  const dir = path.join(tempDir('limits-run-'), 'SATLUTION_1');
  write(path.join(dir, 'bin', 'starexec_run_default'), `#!/usr/bin/env bash\n${run}\n`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  return dir;
}

/** Forks `n` sleepers named by `marker` (a sleep length no other test uses), then waits for them. */
const forkBomb = (n: number, marker: string) => `for i in $(seq ${n}); do sleep ${marker} & done\nwait\n`;

/** The pids of processes whose command line holds `marker`, once what was killed has had a moment to go. */
async function survivors(marker: string): Promise<string[]> {
  let left: string[] = [];
  for (let i = 0; i < 50; i++) {
    left = spawnSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
    if (!left.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (left.length) spawnSync('pkill', ['-KILL', '-f', `sleep ${marker}`]);
  return left;
}

/** A one-variable formula: a run's answer does not matter here, only how it ends. */
const cnf = () => write(path.join(tempDir(), 'a.cnf'), 'p cnf 1 1\n1 0\n');

/** One checked run of `solverDir` with the limits in `isolation`. */
function run(solverDir: string, isolation: IsolationSettings, extra: Partial<InstanceRunRequest> = {}) {
  return runInstance({
    solverDir,
    cnf: cnf(),
    name: 'a.cnf',
    vars: 1,
    family: null,
    expected: null,
    expectedFrom: 'none',
    timeoutS: 60,
    memMb: 2048,
    checkProofs: false,
    maxProofMb: 64,
    checkerTimeoutS: 60,
    isolation,
    ...extra,
  });
}

/** `isolation` with the given limits. */
const limited = (isolation: IsolationSettings, diskMaxMb: number, processesMax: number): IsolationSettings => ({
  ...isolation,
  limits: { diskMaxMb, processesMax },
});

const PIDS_REASON = (what: string, n: number) => new RegExp(`${what} hit its limit of ${n} processes \\(evaluation\\.processes_max\\)`);
const DISK_REASON = /evaluation\.disk_max_mb/;

describe('resource limits: evaluation.processes_max and evaluation.disk_max_mb', function () {
  this.timeout(180000);

  it('are evaluation keys with documented defaults, written by init, and reach every build and run through the isolation settings', () => {
    const min = parseConfig('seeds: [{ name: s, source: . }]\n');
    assert.ok(min.ok);
    assert.equal(min.config.evaluation.disk_max_mb, 1024);
    assert.equal(min.config.evaluation.processes_max, 256);
    assert.deepEqual(DEFAULT_LIMITS, { diskMaxMb: 1024, processesMax: 256 });
    assert.deepEqual(isolationFor(min.config).limits, DEFAULT_LIMITS);
    const text = renderConfig({ seeds: [{ name: 's', source: '.', primary: false }], benchmarks: { smoke: 'b' }, jobs: 1 });
    assert.match(text, /^ {2}disk_max_mb: 1024 /m);
    assert.match(text, /^ {2}processes_max: 256 /m);
    const set = parseConfig(
      'seeds: [{ name: s, source: . }]\nevaluation: { disk_max_mb: 64, processes_max: 32 }\nrunners: [{ name: local, kind: local }, { name: lab, kind: local, sandbox: off }]\n',
    );
    assert.ok(set.ok);
    // The runner's own sandbox setting does not change the limits: they are the workspace's everywhere.
    for (const runner of [undefined, 'local', 'lab']) assert.deepEqual(isolationFor(set.config, runner).limits, { diskMaxMb: 64, processesMax: 32 });
    assert.equal(parseConfig('seeds: [{ name: s, source: . }]\nevaluation: { processes_max: 2.5 }\n').ok, false);
    assert.equal(parseConfig('seeds: [{ name: s, source: . }]\nevaluation: { disk_max_mb: 0 }\n').ok, false);
  });

  it('a build that forks 2000 processes fails with the reason, and leaves no process behind', async () => {
    for (const isolation of MODES) {
      const marker = isolation.mode === 'off' ? '4201.25' : '4201.5';
      const b = await buildSolver(building(forkBomb(2000, marker)), 150, undefined, limited(isolation, 64, 64));
      const left = await survivors(marker);
      assert.equal(b.ok, false, isolation.mode);
      // Without the limit all 2000 start and the build waits for them until its time limit.
      assert.match(b.detail, PIDS_REASON('the build', 64), `${isolation.mode}: ${b.detail}`);
      assert.deepEqual(left, [], `${isolation.mode}: sleepers left behind`);
    }
  });

  it('a build that writes a 2 GiB file fails with the disk reason, and the file stops near the limit', async () => {
    for (const isolation of MODES) {
      const dir = building('dd if=/dev/zero of=big bs=1M count=2048 2>&1 | tail -1\necho "build went on"\n');
      const b = await buildSolver(dir, 150, undefined, limited(isolation, 64, 256));
      assert.equal(b.ok, false, `${isolation.mode}: ${b.log}`);
      assert.match(b.detail, DISK_REASON, isolation.mode);
      assert.ok(fs.statSync(path.join(dir, 'big')).size <= 65 * MB, `${isolation.mode}: ${fs.statSync(path.join(dir, 'big')).size} bytes`);
    }
  });

  it('a build that makes a 2 GiB sparse file, or sparse files over the limit together, fails with the disk reason', async () => {
    for (const isolation of MODES) {
      // One file past the limit: truncate is refused (RLIMIT_FSIZE), and the build says so even though its script goes on.
      const one = await buildSolver(building('truncate -s 2G sparse\necho "build went on"\n'), 150, undefined, limited(isolation, 64, 256));
      assert.equal(one.ok, false, `${isolation.mode}: ${one.log}`);
      assert.match(one.detail, DISK_REASON, isolation.mode);
      // Three files under the limit each, over it together: a sparse file counts whole.
      const dir = building('for i in 1 2 3; do truncate -s 40M part$i; done\n');
      const three = await buildSolver(dir, 150, undefined, limited(isolation, 64, 256));
      assert.equal(three.ok, false, `${isolation.mode}: ${three.log}`);
      assert.match(three.detail, /over its disk limit of 64 MB \(evaluation\.disk_max_mb\)|filled its directory past its limit of 64 MB/, isolation.mode);
    }
  });

  it('a build within its limits still builds', async () => {
    for (const isolation of MODES) {
      const b = await buildSolver(
        building('for i in $(seq 20); do sleep 0.2 & done\nwait\ntruncate -s 30M data\ndd if=/dev/zero of="$TMPDIR/x" bs=1M count=20 2>/dev/null\n'),
        150,
        undefined,
        limited(isolation, 64, 64),
      );
      assert.ok(b.ok, `${isolation.mode}: ${b.detail}\n${b.log}`);
    }
  });

  it('a solver run that forks 2000 processes fails with the reason, and leaves no process behind', async () => {
    for (const isolation of MODES) {
      const marker = isolation.mode === 'off' ? '4202.25' : '4202.5';
      const r = await run(running(`${forkBomb(2000, marker)}echo "s UNKNOWN"`), limited(isolation, 1024, 64));
      const left = await survivors(marker);
      // Without the limit the run waits for its sleepers until its time limit: a timeout.
      assert.equal(r.status, 'crash', `${isolation.mode}: ${r.detail}`);
      assert.match(r.detail, PIDS_REASON('the run', 64), isolation.mode);
      assert.deepEqual(left, [], `${isolation.mode}: sleepers left behind`);
    }
  });

  it('where no cgroup can be made, the process tree is counted instead', async () => {
    // RLIMIT_AS for memory means no cgroup for the run at all.
    const marker = '4203.5';
    const r = await run(running(`${forkBomb(2000, marker)}echo "s UNKNOWN"`), limited(hasBwrap ? DEFAULT_ISOLATION : OFF, 1024, 64), {
      memoryMethod: 'rlimit',
    });
    const left = await survivors(marker);
    assert.equal(r.status, 'crash', r.detail);
    assert.match(r.detail, PIDS_REASON('the run', 64));
    assert.deepEqual(left, []);
  });

  it('a run that fills its $HOME beyond the limit fails with the reason, also when it ends right away', async () => {
    for (const isolation of MODES) {
      const r = await run(running('dd if=/dev/zero of="$HOME/fill" bs=1M count=100 2>/dev/null\necho "s UNKNOWN"'), limited(isolation, 64, 256));
      assert.equal(r.status, 'crash', `${isolation.mode}: ${r.detail}`);
      assert.match(r.detail, /the run wrote more than 64 MB to its scratch space \(HOME, TMPDIR, \/tmp; evaluation\.disk_max_mb\)/, isolation.mode);
    }
  });

  (hasBwrap ? it : it.skip)('a run that fills its /tmp in the sandbox (a tmpfs the size of the limit) fails with the reason', async () => {
    const r = await run(
      running('dd if=/dev/zero of=/tmp/fill bs=1M count=100 2>&1 | tail -1 >&2\nls -l /tmp/fill >&2\nsleep 30\necho "s UNKNOWN"'),
      limited(DEFAULT_ISOLATION, 64, 256),
    );
    assert.equal(r.status, 'crash', r.detail);
    assert.match(r.detail, /the run wrote more than 64 MB to its scratch space/);
  });

  it('a run within its limits is not touched', async () => {
    for (const isolation of MODES) {
      const r = await run(
        running(
          'for i in $(seq 20); do sleep 0.2 & done\nwait\ndd if=/dev/zero of="$HOME/f" bs=1M count=20 2>/dev/null\ndd if=/dev/zero of=/tmp/g bs=1M count=20 2>/dev/null\nrm -f /tmp/g\necho "s SATISFIABLE"\necho "v 1 0"\nexit 10',
        ),
        limited(isolation, 64, 64),
      );
      assert.equal(r.status, 'solved', `${isolation.mode}: ${r.detail}`);
    }
  });

  it('reach the builds and runs of an evaluation from satlution.yaml', async () => {
    const ws = tempDir();
    write(path.join(ws, 'benchmarks', 'perf', 'a.cnf'), 'p cnf 1 1\n1 0\n');
    const yaml = (limits: string) =>
      `seeds: [{ name: s, source: . }]\nbenchmarks: { smoke: benchmarks/perf, verify: benchmarks/perf, perf: benchmarks/perf }\nstages: { perf: { timeout_s: 60, audit: { min: 0, share: 0 } } }\nevaluation: { ${limits} }\n${hasBwrap ? '' : 'sandbox: off\n'}`;
    const evaluate = async (solverDir: string, limits: string) => {
      const c = parseConfig(yaml(limits));
      assert.ok(c.ok, c.ok ? '' : JSON.stringify(c.issues));
      return evaluateSolver({
        ws,
        config: c.config,
        solverDir,
        overrides: { stage: 'perf', noProofs: true },
        rules: false,
        record: false,
        runnerEnv: { workerFile: '' },
      });
    };
    const marker = '4204.5';
    const bomb = building(forkBomb(2000, marker));
    const e = await evaluate(bomb, 'processes_max: 48');
    assert.deepEqual(await survivors(marker), []);
    const build = e.gates.find((g) => g.gate === 'build')!;
    assert.equal(build.ok, false);
    assert.match(build.detail, PIDS_REASON('the build', 48));
    const filler = building(
      `cp bin/starexec_run_default bin/quiet\nprintf '#!/bin/sh\\ndd if=/dev/zero of="$HOME/fill" bs=1M count=40 2>/dev/null\\nexec "$(dirname "$0")/quiet"\\n' > bin/starexec_run_default\n`,
    );
    const f = await evaluate(filler, 'disk_max_mb: 32');
    const perf = f.gates.find((g) => g.gate === 'perf')!;
    assert.equal(perf.ok, false, JSON.stringify(f.gates.map((g) => g.detail)));
    assert.match(perf.results![0]!.detail, /the run wrote more than 32 MB to its scratch space/);
    // The same solver with room for what it writes passes.
    assert.equal((await evaluate(filler, 'disk_max_mb: 64')).gates.find((g) => g.gate === 'perf')!.results![0]!.status, 'unknown');
  });

  describe('in the worker that SSH hosts and Slurm nodes run', () => {
    it('gets the limits on its command line, for runs and for builds there', () => {
      const parsed = parseConfig('seeds: [{ name: s, source: . }]\nevaluation: { disk_max_mb: 64, processes_max: 32 }\n');
      assert.ok(parsed.ok);
      const isolation = isolationFor(parsed.config);
      const settings = { solverDir: '/s', timeoutS: 5, memMb: 64, checkProofs: false, maxProofMb: 64, checkerTimeoutS: 5, isolation };
      const task = {
        key: 'k',
        name: 'a.cnf',
        cnf: '/a.cnf',
        instanceHash: 'h',
        vars: 1,
        emptyClause: false,
        family: null,
        expected: null,
        expectedFrom: 'none' as const,
      };
      const args = workerArgs(settings, task, { solver: '/s', cnf: '/a.cnf', dratTrim: '' });
      assert.ok(args.includes('--disk-mb=64') && args.includes('--processes=32'), args.join(' '));
      assert.deepEqual(limitArgs(isolation), ['--disk-mb=64', '--processes=32']);
      assert.deepEqual(limitArgs(undefined), ['--disk-mb=1024', '--processes=256']);
    });

    it('fails a build that forks 2000 processes or writes a 2 GiB file, with the reason, and a run that forks', async () => {
      const marker = '4205.5';
      const bomb = spawnSync(process.execPath, [WORKER, `--build=${building(forkBomb(2000, marker))}`, '--processes=64', '--timeout=150'], {
        encoding: 'utf8',
      });
      assert.deepEqual(await survivors(marker), []);
      assert.equal(bomb.status, 5, bomb.stderr);
      assert.match(bomb.stderr, PIDS_REASON('the build', 64));
      const big = building('dd if=/dev/zero of=big bs=1M count=2048\n');
      const disk = spawnSync(process.execPath, [WORKER, `--build=${big}`, '--disk-mb=64', '--timeout=150'], { encoding: 'utf8' });
      assert.equal(disk.status, 5, disk.stderr);
      assert.match(disk.stderr, DISK_REASON);
      assert.ok(fs.statSync(path.join(big, 'big')).size <= 65 * MB);
      const runMarker = '4206.5';
      const r = spawnSync(
        process.execPath,
        [WORKER, `--solver=${running(`${forkBomb(2000, runMarker)}echo "s UNKNOWN"`)}`, `--cnf=${cnf()}`, '--processes=64', '--timeout=60'],
        { encoding: 'utf8' },
      );
      assert.deepEqual(await survivors(runMarker), []);
      assert.equal(r.status, 0, r.stderr);
      const res = JSON.parse(r.stdout) as { status: string; detail: string };
      assert.equal(res.status, 'crash');
      assert.match(res.detail, PIDS_REASON('the run', 64));
      const fill = spawnSync(
        process.execPath,
        [
          WORKER,
          `--solver=${running('dd if=/dev/zero of="$HOME/fill" bs=1M count=100 2>/dev/null\necho "s UNKNOWN"')}`,
          `--cnf=${cnf()}`,
          '--disk-mb=64',
          '--timeout=60',
        ],
        { encoding: 'utf8' },
      );
      assert.equal(fill.status, 0, fill.stderr);
      assert.match((JSON.parse(fill.stdout) as { detail: string }).detail, /the run wrote more than 64 MB to its scratch space/);
    });

    describe('through the SSH runner (real sshd on 127.0.0.1)', function () {
      let sshd: Sshd | undefined;
      before(function () {
        sshd = sshdUp(this);
      });
      after(() => sshd?.down());
      const runner = (build: 'local' | 'remote') =>
        sshRunner({
          config: { name: 'box', kind: 'ssh', host: sshd!.host, workdir: path.join(tempDir('limits-remote-'), 'work'), node: process.execPath, build, jobs: 2 },
          workerFile: WORKER,
          sshArgs: ['-F', sshd!.config],
        });

      it('a build there (build: remote) that forks 2000 processes fails with the reason, and a run there that fills its $HOME', async () => {
        const marker = '4207.5';
        const isolation = limited(hasBwrap ? DEFAULT_ISOLATION : OFF, 64, 64);
        await assert.rejects(
          evalOn(runner('remote'), makeSet(), { solver: building(forkBomb(2000, marker)), isolation }),
          (e: Error) => /the build on .* failed/.test(e.message) && PIDS_REASON('the build', 64).test(e.message),
        );
        assert.deepEqual(await survivors(marker), []);
        const fill = running('dd if=/dev/zero of="$HOME/fill" bs=1M count=100 2>/dev/null\necho "s UNKNOWN"');
        const out = await evalOn(runner('local'), makeSet(), { solver: fill, isolation });
        assert.ok(
          out.results.length > 0 && out.results.every((r) => r.status === 'crash' && /the run wrote more than 64 MB to its scratch space/.test(r.detail)),
          JSON.stringify(out.results.map((r) => r.detail)),
        );
      });
    });

    it('refuses limits that are not positive numbers', () => {
      const bad = spawnSync(process.execPath, [WORKER, `--build=${tempDir()}`, '--processes=many', '--disk-mb=0'], { encoding: 'utf8' });
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /--disk-mb must be a positive number of MB, got "0"/);
      assert.match(bad.stderr, /--processes must be a positive whole number, got "many"/);
    });
  });
});
