// The isolation seam (src/core/isolation/): what a machine without bubblewrap is told, the policies as
// bubblewrap command lines, the environment allow-list, and real sandboxed builds and runs: a build
// that tries to read $HOME, write outside, read an API key or reach the network; a run whose child
// holds stdout open; an evaluator killed with SIGKILL while its solver runs.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import { EvaluationSetupError, evaluateSolver } from '../../src/core/eval/service';
import { bwrapArgs } from '../../src/core/isolation/bwrap';
import { exitOfConfined } from '../../src/core/isolation/confinedCommand';
import { buildConfinement, solverRunConfinement } from '../../src/core/isolation/confinement';
import { allowedEnvironment } from '../../src/core/isolation/environment';
import { probeIsolation } from '../../src/core/isolation/probe';
import { DEFAULT_ISOLATION, isolationFor, type IsolationSettings, unisolated } from '../../src/core/isolation/settings';
import { planted3Sat } from '../../src/core/instances/generators';
import { buildSolver } from '../../src/core/run/buildSolver';
import { runSolver } from '../../src/core/run/runSolver';
import { sweepLeftovers } from '../../src/core/run/sweep';
import { CLI, ROOT, tempDir, write } from './helpers';

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;
const OFF: IsolationSettings = { mode: 'off', buildNetwork: false, readOnly: [] };

/** A solver directory whose run script is `script`. */
function solver(script: string): string {
  const dir = path.join(tempDir(), 'SATLUTION_1');
  write(path.join(dir, 'bin', 'starexec_run_default'), `#!/usr/bin/env bash\n${script}`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  return dir;
}

describe('isolation: when it is unavailable', () => {
  it('a machine without bubblewrap is told what is missing and the command that installs it', async () => {
    const p = await probeIsolation({ mode: 'bwrap' }, { searchPath: path.join(tempDir(), 'empty') });
    assert.equal(p.ok, false);
    if (p.ok) return;
    assert.match(p.problem, /bubblewrap \(bwrap\) is not installed on this machine/);
    assert.match(p.fix, /sudo apt-get install bubblewrap/);
    assert.match(p.fix, /sandbox: off/);
  });

  it('macOS is told that isolation needs Linux, and how to go on', async () => {
    const p = await probeIsolation({ mode: 'bwrap' }, { platform: 'darwin' });
    assert.equal(p.ok, false);
    if (!p.ok) assert.match(`${p.problem} ${p.fix}`, /macOS.*Linux runner.*sandbox: off/s);
  });

  it('sandbox: off needs nothing', async () => {
    assert.deepEqual(await probeIsolation({ mode: 'off' }, { searchPath: '' }), { ok: true, bwrap: '' });
  });

  it('an evaluation refuses to start, naming the fix, and the CLI exits 2', async () => {
    const ws = tempDir();
    write(path.join(ws, 'benchmarks', 'perf', 'a.cnf'), planted3Sat(20, 4.0, 1));
    const text =
      'seeds: [{ name: s, source: . }]\nbenchmarks: { smoke: benchmarks/perf, verify: benchmarks/perf, perf: benchmarks/perf }\nsandbox: { mode: on, bwrap: /nonexistent/bwrap }\nstages: { perf: { audit: { min: 0, share: 0 } } }\n';
    const r = parseConfig(text);
    assert.ok(r.ok);
    const dir = solver('echo "s UNKNOWN"\n');
    await assert.rejects(
      evaluateSolver({
        ws,
        config: r.config,
        solverDir: dir,
        overrides: { stage: 'perf', noProofs: true },
        build: false,
        rules: false,
        record: false,
        runnerEnv: { workerFile: '' },
      }),
      (e: Error) => e instanceof EvaluationSetupError && /sandbox\.bwrap names \/nonexistent\/bwrap/.test(e.message) && /sandbox: off/.test(e.message),
    );
    write(path.join(ws, 'satlution.yaml'), text);
    const cli = spawnSync(process.execPath, [CLI, 'eval', dir, '--stage', 'perf', '--no-proofs'], { cwd: ws, encoding: 'utf8' });
    assert.equal(cli.status, 2, cli.stdout + cli.stderr);
    assert.match(cli.stderr, /sandbox\.bwrap names \/nonexistent\/bwrap/);
  });
});

describe('isolation: the policies', () => {
  it('reads sandbox from the workspace and the runners', () => {
    const view = (sandbox: Parameters<typeof isolationFor>[0]['sandbox'], runner?: 'on' | 'off') => ({
      sandbox,
      runners: [{ name: 'local' }, { name: 'lab', sandbox: runner }],
    });
    assert.equal(isolationFor(view('on')).mode, 'bwrap');
    assert.equal(isolationFor(view('off')).mode, 'off');
    assert.equal(isolationFor(view('on', 'off'), 'lab').mode, 'off');
    assert.equal(isolationFor(view('on', 'off'), 'local').mode, 'bwrap');
    assert.equal(isolationFor(view('off', 'on'), 'lab').mode, 'bwrap');
    assert.deepEqual(isolationFor(view({ mode: 'on', build_network: true, read_only: ['/opt/x'] })), {
      mode: 'bwrap',
      buildNetwork: true,
      readOnly: ['/opt/x'],
    });
    assert.deepEqual(unisolated(view('on', 'off')), { workspace: false, runners: ['lab'] });
    const parsed = parseConfig('seeds: [{ name: s, source: . }]\nsandbox: off\nrunners: [{ name: local, kind: local, sandbox: on }]\n');
    assert.ok(parsed.ok);
    if (parsed.ok) assert.equal(isolationFor(parsed.config, 'local').mode, 'bwrap');
    assert.equal(parseConfig('seeds: [{ name: s, source: . }]\nsandbox: maybe\n').ok, false);
  });

  it('a run sees the system read-only, its solver, its instance under a neutral name, and one writable directory', () => {
    const c = solverRunConfinement({
      solverDir: '/ws/SATLUTION_3',
      instance: '/ws/benchmarks/perf/x.cnf',
      given: '/tmp/r/instance.cnf',
      runDir: '/tmp/r',
      proofDir: '/tmp/r/proof',
      readOnly: [],
    });
    const a = bwrapArgs(c);
    const pairs = (flag: string) => a.flatMap((x, i) => (x === flag ? [`${a[i + 1]} ${a[i + 2]}`] : []));
    for (const f of ['--unshare-all', '--die-with-parent', '--new-session', '--clearenv']) assert.ok(a.includes(f), f);
    assert.ok(a.join(' ').includes('--cap-drop ALL'));
    assert.ok(!a.includes('--share-net'), 'no network');
    assert.deepEqual(pairs('--bind'), ['/tmp/r /tmp/r']);
    assert.ok(pairs('--ro-bind').includes('/ws/SATLUTION_3 /ws/SATLUTION_3'));
    assert.ok(pairs('--ro-bind').includes('/ws/benchmarks/perf/x.cnf /tmp/r/instance.cnf'));
    assert.ok(
      !a.some((x) => x === '/ws' || x === '/ws/benchmarks' || x === '/home' || x === '/root' || x === '/etc'),
      'nothing else of the workspace, no home, not all of /etc',
    );
    // The instance is mounted after (inside) the run directory.
    assert.ok(a.lastIndexOf('/tmp/r/instance.cnf') > a.indexOf('/tmp/r'));
  });

  it('a build writes its own directory and scratch; the network only when asked', () => {
    const off = bwrapArgs(buildConfinement({ dir: '/ws/SATLUTION_3', scratch: '/tmp/b', network: false, readOnly: [] }));
    const on = bwrapArgs(buildConfinement({ dir: '/ws/SATLUTION_3', scratch: '/tmp/b', network: true, readOnly: [] }));
    assert.ok(!off.includes('--share-net'));
    assert.ok(on.includes('--share-net'));
    assert.deepEqual(off.flatMap((x, i) => (x === '--bind' ? [off[i + 1]] : [])).sort(), ['/tmp/b', '/ws/SATLUTION_3']);
  });

  it('the environment is an allow-list: no API keys, agent sockets or editor variables', () => {
    const from = {
      PATH: '/home/me/bin:/usr/bin',
      OPENAI_API_KEY: 'sk-x',
      ANTHROPIC_API_KEY: 'a',
      SSH_AUTH_SOCK: '/tmp/ssh',
      VSCODE_PID: '1',
      AWS_SECRET_ACCESS_KEY: 's',
      CC: 'clang',
      LANG: 'de_DE.UTF-8',
    };
    const run = allowedEnvironment({ home: '/r/home', tmp: '/r/tmp', build: false, from });
    const build = allowedEnvironment({ home: '/b/home', tmp: '/b/tmp', build: true, from });
    assert.deepEqual(Object.keys(run).sort(), ['HOME', 'LANG', 'PATH', 'TMPDIR']);
    assert.equal(run.LANG, 'de_DE.UTF-8');
    assert.ok(!run.PATH!.includes('/home/'));
    assert.equal(build.CC, 'clang');
    assert.equal(build.HOME, '/b/home');
  });

  it('a solver killed by a signal reads the same with and without the sandbox', () => {
    assert.deepEqual(exitOfConfined('bwrap', 139, null), { code: null, signal: 'SIGSEGV' });
    assert.deepEqual(exitOfConfined('bwrap', 20, null), { code: 20, signal: null });
    assert.deepEqual(exitOfConfined('off', 139, null), { code: 139, signal: null });
  });
});

describe('isolation: real sandboxes', function () {
  this.timeout(60000);
  before(function () {
    if (!hasBwrap) {
      if (process.env.CI) throw new Error('bubblewrap is required (npm test installs it)');
      this.skip();
    }
  });

  /** A candidate whose starexec_build tries everything, then builds a working run script. */
  function attackingBuild(outside: string, port: number): string {
    const dir = path.join(tempDir(), 'SATLUTION_2');
    write(
      path.join(dir, 'starexec_build'),
      [
        '#!/usr/bin/env bash',
        `echo pwned > ${outside}/pwned 2>/dev/null && echo "wrote outside"`,
        'echo pwned > ../pwned-sibling 2>/dev/null && echo "wrote beside"',
        'env > env.dump',
        `cat ${os.homedir()}/.canary-for-build > home.copy 2>/dev/null && echo "read home"`,
        `(exec 3<>/dev/tcp/127.0.0.1/${port} && echo hello >&3) 2>/dev/null && echo "connected"`,
        'mkdir -p bin && printf "#!/bin/sh\\necho \'s UNKNOWN\'\\n" > bin/starexec_run_default && chmod +x bin/starexec_run_default',
        'touch "$HOME/h" "$TMPDIR/t" && echo "private home and tmp are writable"',
      ].join('\n') + '\n',
    );
    return dir;
  }

  it('a build writes nothing outside, reads no home directory and no API key, reaches no network, and still builds', async () => {
    const outside = tempDir();
    const canary = path.join(os.homedir(), '.canary-for-build');
    fs.writeFileSync(canary, 'home-secret');
    let connections = 0;
    const server = net.createServer((s) => (connections++, s.destroy()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-canary-build';
    try {
      const dir = attackingBuild(outside, (server.address() as net.AddressInfo).port);
      const b = await buildSolver(dir, 60);
      assert.ok(b.ok, b.detail + b.log);
      // (Writing beside it lands in the sandbox's own throwaway tmpfs: what counts is that the host has nothing.)
      assert.doesNotMatch(b.log, /wrote outside|read home|connected/);
      assert.match(b.log, /private home and tmp are writable/);
      assert.deepEqual(fs.readdirSync(outside), []);
      assert.equal(fs.existsSync(path.join(path.dirname(dir), 'pwned-sibling')), false);
      const env = fs.readFileSync(path.join(dir, 'env.dump'), 'utf8');
      assert.doesNotMatch(env, /sk-canary-build|SSH_AUTH_SOCK|VSCODE/);
      assert.equal(fs.existsSync(path.join(dir, 'home.copy')) && fs.readFileSync(path.join(dir, 'home.copy'), 'utf8').includes('home-secret'), false);
      assert.equal(connections, 0);

      // The same build without the sandbox does all of it: the test can fail.
      const u = await buildSolver(attackingBuild(outside, (server.address() as net.AddressInfo).port), 60, undefined, OFF);
      assert.match(u.log, /wrote outside/);
      assert.match(u.log, /read home/);
      assert.equal(connections, 1);
    } finally {
      fs.rmSync(canary, { force: true });
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
      await new Promise((r) => server.close(r));
    }
  });

  it('build_network lets a build reach the network', async () => {
    let connections = 0;
    const server = net.createServer((s) => (connections++, s.destroy()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const dir = attackingBuild(tempDir(), (server.address() as net.AddressInfo).port);
      const b = await buildSolver(dir, 60, undefined, { ...DEFAULT_ISOLATION, buildNetwork: true });
      assert.ok(b.ok, b.detail);
      assert.match(b.log, /connected/);
      assert.equal(connections, 1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a finished run whose child holds stdout open ends when the solver exits, not at the timeout', async () => {
    const cnf = write(path.join(tempDir(), 'a.cnf'), 'p cnf 1 1\n1 0\n');
    for (const isolation of [DEFAULT_ISOLATION, OFF]) {
      // The child leaves the process group (setsid) and keeps the solver's stdout.
      const dir = solver('setsid sleep 317 &\necho "s SATISFIABLE"\necho "v 1 0"\nexit 10\n');
      const out = await runSolver({ solverDir: dir, cnf, timeoutS: 20, isolation });
      spawnSync('pkill', ['-f', 'sleep 317']);
      assert.equal(out.timedOut, false, isolation.mode);
      assert.equal(out.answer, 'SAT');
      assert.equal(out.exitCode, 10);
      assert.ok(out.timeS < 5, `${isolation.mode}: ${out.timeS} s`);
    }
  });

  it('a solver dies with a killed evaluator (SIGKILL), daemons included', async () => {
    const cnf = write(path.join(tempDir(), 'a.cnf'), 'p cnf 1 1\n1 0\n');
    const dir = solver('setsid sleep 319 < /dev/null > /dev/null 2>&1 &\nexec sleep 318\n');
    const script = `require(${JSON.stringify(path.join(ROOT, 'out', 'src', 'core', 'run', 'runSolver.js'))}).runSolver({ solverDir: ${JSON.stringify(dir)}, cnf: ${JSON.stringify(cnf)}, timeoutS: 60 });`;
    const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const pg = () => spawnSync('pgrep', ['-f', 'sleep 31[89]'], { encoding: 'utf8' }).stdout.trim();
    for (let i = 0; i < 100 && pg().split('\n').filter(Boolean).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(pg().split('\n').filter(Boolean).length, 2, 'the solver and its daemon started');
    child.kill('SIGKILL');
    for (let i = 0; i < 40 && pg(); i++) await new Promise((r) => setTimeout(r, 50));
    const left = pg();
    spawnSync('pkill', ['-f', 'sleep 31[89]']);
    // The killed evaluator's run cgroups (memory, cpuacct) wait for the next evaluation's sweep: this is it.
    await exited;
    await sweepLeftovers({ scratchDirs: [] });
    assert.equal(left, '', 'nothing outlived the evaluator');
  });
});
