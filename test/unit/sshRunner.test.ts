// The SSH runner against a real sshd on 127.0.0.1 (scripts/sshd-test.sh): the same results as the
// local runner, names that cannot break out of the remote command, a dropped connection that loses
// nothing and a resume that runs nothing twice, stop killing the remote runs, and the health check.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema } from '../../src/core/config/schema';
import type { InstanceResult } from '../../src/core/run/result';
import { ResultsStore } from '../../src/core/eval/resultsStore';
import { checkRunnerHealth } from '../../src/core/runners/health';
import { localRunner } from '../../src/core/runners/local';
import { shq } from '../../src/core/runners/shellQuote';
import { sshError } from '../../src/core/runners/ssh';
import { sshRunner, type SshRunnerConfig } from '../../src/core/runners/sshRunner';
import { CLI, FIXTURES, ROOT, tempDir, WORKER, write } from './helpers';
import { evalOn, makeSet, summary, tinysat } from './runnerFixtures';

const SCRIPT = path.join(ROOT, 'scripts', 'sshd-test.sh');
let sshdDir: string;
let sshArgs: string[];
let host: string;
let solverDir: string;

function sshd(cmd: 'up' | 'down') {
  const r = spawnSync('bash', [SCRIPT, cmd], { encoding: 'utf8', env: { ...process.env, SSHD_TEST_DIR: sshdDir } });
  return {
    code: r.status,
    env: Object.fromEntries(
      r.stdout
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    ),
    err: r.stderr,
  };
}

function sshConfig(over: Partial<SshRunnerConfig> = {}): SshRunnerConfig {
  return { name: 'box', kind: 'ssh', host, workdir: path.join(tempDir('satlution-remote-'), 'work'), node: process.execPath, build: 'local', jobs: 2, ...over };
}

describe('shq (POSIX single quoting)', () => {
  it('round-trips any string through sh unchanged', () => {
    for (const s of ['', 'plain', "it's", `a b\t"c" $(touch x) \`id\` $HOME \\ ; | & > < * ? ~ # !`, "''\n'", '-n', 'line1\nline2']) {
      const r = spawnSync('sh', ['-c', `printf '%s' ${shq(s)}`], { encoding: 'utf8' });
      assert.equal(r.stdout, s);
    }
  });
  it('classifies ssh failures into sentences', () => {
    assert.match(
      sshError('h', { code: 255, stdout: '', stderr: 'ssh: connect to host 127.0.0.1 port 1: Connection refused\n' }, 'x').message,
      /cannot connect to h: connection refused/,
    );
    // Refused while the runs were under way: the host went away mid-evaluation, so it is a drop to resume from.
    assert.match(
      sshError('h', { code: 255, stdout: '', stderr: 'ssh: connect to host 127.0.0.1 port 1: Connection refused\n' }, 'running a.cnf').message,
      /^the connection to h dropped \(running a\.cnf: sshd refused a new connection\): finished results are stored; run the evaluation again to resume$/,
    );
    assert.match(
      sshError('h', { code: 255, stdout: '', stderr: 'Connection to 127.0.0.1 closed by remote host.\n' }, 'running a').message,
      /connection to h dropped \(running a\).*resume/,
    );
    assert.match(
      sshError('h', { code: 1, stdout: '', stderr: 'cat: write error: No space left on device\n' }, 'uploading x').message,
      /remote disk is full on h/,
    );
  });
});

describe('SSH runner (real sshd on 127.0.0.1)', function () {
  this.timeout(120000);
  before(async function () {
    sshdDir = tempDir('satlution-sshd-');
    const up = sshd('up');
    if (up.code === 3) {
      console.log('    skipped: sshd is not installed and cannot be installed here (scripts/sshd-test.sh)');
      this.skip();
    }
    assert.equal(up.code, 0, up.err);
    sshArgs = ['-F', up.env.SSH_CONFIG!];
    host = up.env.SSH_HOST!;
    assert.ok(fs.existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs first`);
    solverDir = await tinysat();
  });
  after(() => {
    if (sshdDir) sshd('down');
  });

  const remote = (over: Partial<SshRunnerConfig> = {}) => {
    const config = sshConfig(over);
    return { config, runner: sshRunner({ config, workerFile: WORKER, sshArgs }) };
  };

  it('gives the same statuses and answers as the local runner, and syncs each file once', async () => {
    const set = makeSet();
    const local = await evalOn(localRunner(), set, { solver: solverDir });
    const { config, runner } = remote();
    const viaSsh = await evalOn(runner, set, { solver: solverDir });
    assert.deepEqual(summary(viaSsh), summary(local));
    assert.equal(viaSsh.results.length, 6);
    assert.ok(viaSsh.results.every((r) => r.status === 'solved'));
    assert.equal(fs.readdirSync(path.join(config.workdir, 'results')).length, 6);
    assert.equal(fs.readdirSync(path.join(config.workdir, 'instances')).length, 6);
    // A second evaluation with a fresh store: nothing is uploaded again, the remote results are reused.
    const again = await evalOn(runner, set, { solver: solverDir });
    assert.deepEqual(summary(again), summary(local));
    assert.equal(fs.readdirSync(path.join(config.workdir, 'solvers')).length, 1);
  });

  it('keeps an instance name with spaces, quotes and $(...) a plain string', async () => {
    const nasty = `a b 'c' "d" $(touch pwned) \`touch pwned2\` ;touch pwned3 -x.cnf`;
    const set = makeSet({ [nasty]: fs.readFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), 'utf8') });
    const { config, runner } = remote();
    const out = await evalOn(runner, set, { solver: solverDir });
    const r = out.results.find((x) => x.instance === nasty);
    assert.ok(r, `no result named ${nasty}: ${out.results.map((x) => x.instance).join(' | ')}`);
    assert.equal(r.status, 'solved');
    for (const dir of [config.workdir, process.cwd()])
      for (const p of ['pwned', 'pwned2', 'pwned3']) assert.ok(!fs.existsSync(path.join(dir, p)), `${p} created in ${dir}`);
  });

  it('reports a dropped connection, then resumes with exactly one result per instance', async () => {
    const slow = await tinysat(1);
    const set = makeSet();
    const store = new ResultsStore(path.join(tempDir(), 'runs.jsonl'));
    const { runner } = remote();
    let firstDone: () => void = () => undefined;
    const first = new Promise<void>((res) => (firstDone = res));
    const attempt = evalOn(runner, set, { solver: slow, store, onResult: () => firstDone() });
    await first;
    assert.equal(sshd('down').code, 0);
    try {
      await assert.rejects(attempt, /connection to satlution-test-host dropped.*run the evaluation again to resume/);
    } finally {
      assert.equal(sshd('up').code, 0);
    }
    const kept = fs.readFileSync(store.file, 'utf8').trim().split('\n').length;
    assert.ok(kept >= 1 && kept < 6, `${kept} results kept after the drop`);
    const resumed = await evalOn(runner, set, { solver: slow, store: new ResultsStore(store.file) });
    assert.equal(resumed.results.length, 6);
    assert.ok(resumed.results.every((r) => r.status === 'solved'));
    assert.equal(resumed.reused, kept);
    const keys = fs
      .readFileSync(store.file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { key: string }).key);
    assert.equal(keys.length, 6);
    assert.equal(new Set(keys).size, 6);
  });

  it('stop kills the runs on the host', async () => {
    const slow = await tinysat(61.3); // a sleep no other process on the machine would have
    const { config, runner } = remote();
    const stop = new AbortController();
    const attempt = evalOn(runner, makeSet(), { solver: slow, signal: stop.signal });
    const running = path.join(config.workdir, 'running');
    const t0 = Date.now();
    while (!(fs.existsSync(running) && fs.readdirSync(running).length === 2) && Date.now() - t0 < 20000) await new Promise((r) => setTimeout(r, 100));
    const pids = fs.readdirSync(running).map((f) => Number(fs.readFileSync(path.join(running, f), 'utf8').split(' ')[0]));
    assert.equal(pids.length, 2);
    stop.abort(new Error('stopped'));
    await assert.rejects(attempt);
    const alive = () => pids.filter((p) => spawnSync('kill', ['-0', String(p)]).status === 0);
    const t1 = Date.now();
    while (alive().length && Date.now() - t1 < 10000) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(alive(), []);
    const sleepers = spawnSync('pgrep', ['-f', 'sleep 61.3'], { encoding: 'utf8' }).stdout.trim();
    assert.equal(sleepers, '', "the solvers' process groups are gone");
  });

  it('never passes off garbage from the worker as a result', async () => {
    const fake = write(path.join(tempDir(), 'fake-node'), `#!/bin/sh\n[ "$1" = --version ] && { echo v20.0.0; exit 0; }\necho 'hello, not json'\n`);
    fs.chmodSync(fake, 0o755);
    const { runner } = remote({ node: fake });
    await assert.rejects(evalOn(runner, makeSet(), { solver: solverDir }), /the worker on satlution-test-host did not return a result for .*"hello, not json"/);
  });

  it('build: remote builds from the sources there, so nothing built here is used', async () => {
    // This machine's build is "for another platform": its binary in bin/ lies (claims SAT with no model).
    const here = await tinysat();
    const bin = path.join(here, 'bin', 'tinysat');
    fs.writeFileSync(bin, '#!/bin/sh\necho "s SATISFIABLE"\necho "v 0"\nexit 10\n');
    const set = makeSet();
    const asBuiltHere = await evalOn(remote().runner, set, { solver: here });
    assert.ok(
      asBuiltHere.results.some((r) => r.status === 'invalid_model'),
      'the copied build is the lying one',
    );
    const { config, runner } = remote({ build: 'remote' });
    const said: string[] = [];
    const built = await evalOn(runner, set, { solver: here, onStatus: (m) => said.push(m) });
    assert.ok(
      built.results.every((r) => r.status === 'solved'),
      JSON.stringify(built.results.map((r) => [r.instance, r.status])),
    );
    assert.ok(said.includes('building on satlution-test-host (once per candidate)'), said.join('\n'));
    const copies = fs.readdirSync(path.join(config.workdir, 'solvers')).filter((d) => !d.endsWith('.built'));
    assert.equal(copies.length, 1);
    assert.match(copies[0]!, /^[0-9a-f]+\.remote$/);
    assert.ok(fs.existsSync(path.join(config.workdir, 'solvers', `${copies[0]!}.built`)));
    // A build that fails there says so, with the end of its log.
    const broken = await tinysat();
    fs.writeFileSync(path.join(broken, 'starexec_build'), '#!/bin/sh\necho "tinysat.c:3: error: boom" >&2\nexit 1\n');
    await assert.rejects(
      evalOn(remote({ build: 'remote' }).runner, makeSet(), { solver: broken }),
      /the build on satlution-test-host failed \(bash starexec_build\):\n.*error: boom/,
    );
  });

  it('satlution eval runs a stage on its configured ssh runner, and --runner overrides it', () => {
    const ws = tempDir();
    const set = makeSet();
    const workdir = path.join(tempDir('satlution-remote-'), 'work');
    write(
      path.join(ws, 'satlution.yaml'),
      [
        'seeds: [{name: s, source: .}]',
        `benchmarks: {smoke: ${JSON.stringify(set)}, tiny: ${JSON.stringify(set)}, perf: ${JSON.stringify(set)}}`,
        'runners:',
        '  - {name: local, kind: local}',
        `  - {name: box, kind: ssh, host: ${host}, workdir: ${JSON.stringify(workdir)}, node: ${JSON.stringify(process.execPath)}, jobs: 2}`,
        'stages:',
        '  verify: {set: tiny, runner: box, check_proofs: false}',
        '',
      ].join('\n'),
    );
    const cli = (extra: string[]) => {
      const json = path.join(tempDir(), 'r.json');
      const r = spawnSync(process.execPath, [CLI, 'eval', solverDir, '--stage', 'verify', '--no-build', '--json', json, ...extra], {
        cwd: ws,
        encoding: 'utf8',
        env: { ...process.env, SATLUTION_SSH_CONFIG: sshArgs[1]!, XDG_CACHE_HOME: tempDir() },
      });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      return JSON.parse(fs.readFileSync(json, 'utf8')) as { runner: string; instances: InstanceResult[] };
    };
    const viaSsh = cli([]);
    assert.equal(viaSsh.runner, 'box');
    assert.equal(fs.readdirSync(path.join(workdir, 'results')).length, 6);
    const local = cli(['--runner', 'local']);
    assert.equal(local.runner, 'local');
    const pick = (j: { instances: InstanceResult[] }) => j.instances.map((i) => [i.instance, i.status, i.answer]);
    assert.deepEqual(pick(viaSsh), pick(local));
  });

  it('checks the host: node, drat-trim, how runs are measured there, cores, disk; and explains what is missing', async () => {
    const c = ConfigSchema.parse({ seeds: [{ name: 's', source: '.' }] });
    const ok = await checkRunnerHealth(sshConfig(), c, tempDir(), { sshArgs, workerFile: WORKER });
    assert.deepEqual(
      ok.map((f) => f.check),
      ['connection', 'node', 'drat-trim', 'sandbox', 'CPU time', 'memory limit', 'cores', 'disk'],
    );
    for (const k of ['connection', 'node', 'disk']) assert.equal(ok.find((f) => f.check === k)!.level, 'ok', JSON.stringify(ok));
    // The worker said it, on the host: this host's runs get a cgroup of their own, and it names the host.
    const cpu = ok.find((f) => f.check === 'CPU time')!;
    assert.equal(cpu.level, 'ok', cpu.detail);
    assert.match(cpu.detail, /^user \+ system of each run's whole process tree, orphans included, from (cpuacct\.usage|cpu\.stat) .* on satlution-test-host$/);
    assert.match(ok.find((f) => f.check === 'node')!.detail, new RegExp(`Node.js ${process.version}`));

    const missing = await checkRunnerHealth(sshConfig({ node: '/nonexistent/node' }), c, tempDir(), { sshArgs });
    assert.match(missing.find((f) => f.check === 'node')!.detail, /does not run on satlution-test-host: install Node.js 18/);
    const old = write(path.join(tempDir(), 'old-node'), '#!/bin/sh\necho v16.20.2\n');
    fs.chmodSync(old, 0o755);
    const tooOld = await checkRunnerHealth(sshConfig({ node: old }), c, tempDir(), { sshArgs });
    assert.equal(tooOld.find((f) => f.check === 'node')!.level, 'error');
    assert.match(tooOld.find((f) => f.check === 'node')!.detail, /v16\.20\.2; the worker needs 18 or later/);
    // The run itself refuses too, before syncing anything.
    await assert.rejects(
      evalOn(sshRunner({ config: sshConfig({ node: old }), workerFile: WORKER, sshArgs }), makeSet(), { solver: solverDir }),
      /the worker needs 18 or later/,
    );

    const closed = write(path.join(tempDir(), 'ssh_config'), fs.readFileSync(sshArgs[1]!, 'utf8').replace(/Port \d+/, 'Port 1'));
    const refused = await checkRunnerHealth(sshConfig(), c, tempDir(), { sshArgs: ['-F', closed] });
    assert.equal(refused.length, 1);
    assert.match(refused[0]!.detail, /cannot connect to satlution-test-host: connection refused/);
  });
});
