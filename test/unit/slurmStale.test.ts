// Stale run markers. The `running/<key>.pid` marker lives in the SSH runner (src/core/runners/
// runMarker.ts), not in the Slurm runner, whose array jobs are followed through job records and the
// queue. The scripts the runner sends run here through `sh -c`, as sshExec runs them on a host, with a
// stand-in worker; then once through the real runner over a real sshd. The attack: a marker that names
// a live process which is not this run's worker (a pid reused after a crash, a file a solver planted)
// used to hold the run up for as long as that process lived; now it is stale. A marker of a run that
// is really going still holds the next call for the same key until that run's result is there.
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { procStart } from '../../src/core/run/owner';
import { remoteCancelScript, remoteRunScript } from '../../src/core/runners/runMarker';
import { sshRunner } from '../../src/core/runners/sshRunner';
import { type Sshd, sshdUp } from './clusters';
import { tempDir, WORKER, write } from './helpers';
import { evalOn, makeSet, tinysat } from './runnerFixtures';

const WORKER_FILE = 'worker-0123456789abcdef.js';
/** A stand-in worker: logs that it ran, answers after --ms (HOLD: a lookalike that only waits). */
const FAKE = `const fs = require('node:fs');
if (process.env.HOLD) setTimeout(() => undefined, Number(process.env.HOLD));
else {
  process.on('SIGTERM', () => { fs.appendFileSync('terms.log', process.pid + '\\n'); process.exit(143); });
  fs.appendFileSync('calls.log', process.pid + '\\n');
  setTimeout(() => console.log(JSON.stringify({ by: process.pid })), Number(process.argv.find((a) => a.startsWith('--ms=')).slice(5)));
}
`;
const KEY = '0f1e2d3c4b5a6978';
const BOOT = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
const HOST = os.hostname();

/** Everything this file starts, with its start time: killed at the end only if it is still the same process. */
const started: { pid: number; start: string | undefined }[] = [];
function track<T extends ChildProcess>(c: T): T {
  started.push({ pid: c.pid!, start: procStart(c.pid!) });
  return c;
}
const alive = (pid: number) => procStart(pid) !== undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function workdir(): string {
  const dir = tempDir('satlution-marker-');
  for (const d of ['results', 'running']) fs.mkdirSync(path.join(dir, d));
  write(path.join(dir, WORKER_FILE), FAKE);
  return dir;
}

const workerCmd = (ms: number) => [process.execPath, WORKER_FILE, `--ms=${ms}`, '--name=a b $(touch pwned)'];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** One call of the runner's remote script for KEY, as the SSH runner makes it. */
function runCall(dir: string, o: { ms?: number; limitS?: number } = {}): { child: ChildProcess; done: Promise<Ran> } {
  const t0 = Date.now();
  const child = track(
    spawn('sh', ['-c', remoteRunScript({ workdir: dir, key: KEY, worker: workerCmd(o.ms ?? 0), limitS: o.limitS ?? 3600 })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Ran>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 })));
  return { child, done };
}

const plant = (dir: string, key: string, text: string | Buffer) => fs.writeFileSync(path.join(dir, 'running', `${key}.pid`), text);
const calls = (dir: string) =>
  fs.existsSync(path.join(dir, 'calls.log')) ? fs.readFileSync(path.join(dir, 'calls.log'), 'utf8').trim().split('\n').length : 0;

async function until(what: string, ok: () => boolean, ms = 10000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (ok()) return;
  assert.fail(`timed out waiting until ${what}`);
}

/** A call for KEY is held while `holder` lives (`ms` to show it), and runs the worker once after it is killed. */
async function heldUntilGone(dir: string, holder: ChildProcess, ms: number, what: string): Promise<void> {
  const held = runCall(dir);
  await sleep(ms);
  assert.equal(calls(dir), 0, what);
  holder.kill('SIGKILL');
  const r = await held.done;
  assert.equal(r.code, 0, r.stderr);
  assert.equal(calls(dir), 1, 'once that process is gone, the run starts');
}

/** A live process that has nothing to do with any run. */
const bystander = () => track(spawn('sleep', ['60'], { stdio: 'ignore' }));
/** A process whose command line is exactly this run's worker's, but which is not running the run. */
const lookalike = (dir: string) => track(spawn(process.execPath, workerCmd(0).slice(1), { cwd: dir, stdio: 'ignore', env: { ...process.env, HOLD: '60000' } }));

after(() => {
  for (const p of started.splice(0)) if (p.start !== undefined && procStart(p.pid) === p.start) process.kill(p.pid, 'SIGKILL');
});

describe('run markers (running/<key>.pid): stale ones never hold a run up', function () {
  this.timeout(60000);

  it('the attack: the old check waits as long as any process named in the marker lives', async () => {
    const dir = workdir();
    const victim = bystander();
    plant(dir, KEY, `${victim.pid}\n`);
    const old = `cd '${dir}' && P=running/${KEY}.pid; if [ -f "$P" ] && kill -0 "$(cat "$P")" 2>/dev/null; then while kill -0 "$(cat "$P" 2>/dev/null)" 2>/dev/null; do sleep 0.2; done; fi`;
    assert.equal(spawnSync('timeout', ['2', 'sh', '-c', old]).status, 124, 'the old script was still waiting after 2 s');
  });

  it('a marker naming a live unrelated process (sleep 60, with its true start time, or a bare pid) does not hold the run', async () => {
    const victim = bystander();
    await until('the bystander runs', () => alive(victim.pid!));
    for (const text of [`${victim.pid} ${procStart(victim.pid!)} ${BOOT} ${HOST}\n`, `${victim.pid}\n`]) {
      const dir = workdir();
      plant(dir, KEY, text);
      const r = await runCall(dir).done;
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.ms < 10000, `took ${r.ms} ms`);
      assert.match(r.stdout, /^\{"by":\d+\}\n$/);
      assert.equal(calls(dir), 1);
      assert.ok(!fs.existsSync(path.join(dir, 'running', `${KEY}.pid`)), 'the run removed its own marker');
      assert.ok(!fs.existsSync(path.join(dir, 'pwned')));
    }
    assert.ok(alive(victim.pid!), 'the process named by the marker was left alone');
  });

  it('stale: a dead pid, a reused pid (a lookalike worker with another start time), an earlier boot, another host, a run past its time limit, garbage', async () => {
    const dead = Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim());
    const probe = workdir();
    const twin = lookalike(probe);
    await until('the lookalike runs', () => alive(twin.pid!));
    const start = procStart(twin.pid!)!;
    const cases: [string, string | Buffer, number?][] = [
      ['a dead pid', `${dead} 12345 ${BOOT} ${HOST}\n`],
      ['a reused pid', `${twin.pid} ${Number(start) - 7} ${BOOT} ${HOST}\n`],
      ['an earlier boot', `${twin.pid} ${start} 00000000-0000-0000-0000-000000000000 ${HOST}\n`],
      ['another host', `${twin.pid} ${start} ${BOOT} elsewhere.example\n`],
      ['past the time limit', `${twin.pid} ${start} ${BOOT} ${HOST}\n`, 1],
      ['empty', ''],
      ['words', 'not a pid at all\n'],
      ['a shell injection', `$(touch pwned) \`touch pwned\`; touch pwned\n`],
      ['pid 0', `0 0 ${BOOT} ${HOST}\n`],
      ['a negative pid', '-1\n'],
      ['a huge pid', '99999999999999999999999 1 x y\n'],
      ['binary', Buffer.from([0, 255, 10, 1, 2, 3])],
    ];
    await sleep(3100); // the lookalike is now older than a 1 s limit, whatever the rounding
    for (const [what, text, limitS] of cases) {
      const dir = workdir();
      plant(dir, KEY, text);
      const r = await runCall(dir, limitS ? { limitS } : {}).done;
      assert.equal(r.code, 0, `${what}: ${r.stderr}`);
      assert.ok(r.ms < 10000, `${what}: took ${r.ms} ms`);
      assert.equal(calls(dir), 1, what);
      assert.ok(!fs.existsSync(path.join(dir, 'pwned')), `${what}: ran a command from the marker`);
    }
    // The control: the same lookalike under a correct marker and a generous limit does hold the run.
    const dir = workdir();
    plant(dir, KEY, `${twin.pid} ${start} ${BOOT} ${HOST}\n`);
    await heldUntilGone(dir, twin, 1500, "a marker that names this run's worker holds the run");
  });

  it('a marker that is a FIFO or a 2 GB file is stale, read no further than its start, and neither blocks nor fills memory', async () => {
    const fifo = workdir();
    assert.equal(spawnSync('mkfifo', [path.join(fifo, 'running', `${KEY}.pid`)]).status, 0);
    const huge = workdir();
    fs.writeFileSync(path.join(huge, 'running', `${KEY}.pid`), '');
    fs.truncateSync(path.join(huge, 'running', `${KEY}.pid`), 2 ** 31);
    for (const [what, dir] of [
      ['a FIFO', fifo],
      ['a 2 GB file', huge],
    ] as const) {
      const r = await runCall(dir).done;
      assert.equal(r.code, 0, `${what}: ${r.stderr}`);
      assert.ok(r.ms < 10000, `${what}: took ${r.ms} ms`);
      assert.equal(calls(dir), 1, what);
    }
  });

  it("a marker of a really running worker still holds the next call: it waits and returns that run's result, the worker runs once", async () => {
    const dir = workdir();
    const first = runCall(dir, { ms: 2500 });
    const marker = path.join(dir, 'running', `${KEY}.pid`);
    await until('the first call wrote its marker', () => fs.existsSync(marker));
    const [pid, start, boot, host] = fs.readFileSync(marker, 'utf8').trim().split(' ');
    assert.deepEqual([start, boot, host], [procStart(Number(pid)), BOOT, HOST], 'the marker identifies the worker');
    assert.equal(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[1], WORKER_FILE);
    const second = runCall(dir, { ms: 2500 });
    const [a, b] = await Promise.all([first.done, second.done]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout, a.stdout);
    assert.equal(JSON.parse(a.stdout).by, Number(pid));
    assert.equal(calls(dir), 1, 'the worker ran once');
    assert.ok(!fs.existsSync(marker));
  });

  it("after the worker it waited on ends, the next call waits for that run's shell to move the result in, and does not run the worker again", async () => {
    const dir = workdir();
    const worker = lookalike(dir);
    const shell = bystander(); // stands in for the run's shell, between its worker's exit and the result's move
    await until('both run', () => alive(worker.pid!) && alive(shell.pid!));
    const marker = `${worker.pid} ${procStart(worker.pid!)} ${BOOT} ${HOST} ${shell.pid} ${procStart(shell.pid!)}\n`;
    plant(dir, KEY, marker);
    const next = runCall(dir);
    await sleep(1200);
    worker.kill('SIGKILL');
    await until('the worker is gone', () => !alive(worker.pid!));
    await sleep(1500);
    assert.equal(calls(dir), 0, 'the call waits while the shell of the run lives and the marker is unchanged');
    fs.writeFileSync(path.join(dir, 'results', `${KEY}.json`), '{"by":"the run waited on"}\n');
    fs.rmSync(path.join(dir, 'running', `${KEY}.pid`));
    const r = await next.done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"by":"the run waited on"}\n');
    assert.equal(calls(dir), 0, 'the worker did not run again');
    // Without a live shell (it died with the connection), the call starts the run once the worker is gone.
    const dir2 = workdir();
    const worker2 = lookalike(dir2);
    await until('the second worker runs', () => alive(worker2.pid!));
    shell.kill('SIGKILL');
    await until('the shell is gone', () => !alive(shell.pid!));
    plant(dir2, KEY, `${worker2.pid} ${procStart(worker2.pid!)} ${BOOT} ${HOST} ${shell.pid} 1\n`);
    await heldUntilGone(dir2, worker2, 1200, 'a live worker holds the call');
  });

  it("Stop signals only live workers of ours: a planted marker's process is left alone", async () => {
    const dir = workdir();
    const run = runCall(dir, { ms: 30000 });
    const marker = path.join(dir, 'running', `${KEY}.pid`);
    await until('the worker is up', () => calls(dir) === 1); // its SIGTERM handler is in place
    const worker = Number(fs.readFileSync(marker, 'utf8').split(' ')[0]);
    const victims = [bystander(), bystander()];
    await until('the bystanders run', () => victims.every((v) => alive(v.pid!)));
    plant(dir, 'planted1', `${victims[0]!.pid} ${procStart(victims[0]!.pid!)} ${BOOT} ${HOST}\n`);
    plant(dir, 'planted2', `${victims[1]!.pid}\n`);
    const c = spawnSync('sh', ['-c', remoteCancelScript(dir, [KEY, 'planted1', 'planted2', 'missing'], 3600)], { encoding: 'utf8' });
    assert.equal(c.status, 0, c.stderr);
    const r = await run.done;
    assert.notEqual(r.code, 0, 'the run was stopped');
    assert.deepEqual(fs.readFileSync(path.join(dir, 'terms.log'), 'utf8').trim().split('\n').map(Number), [worker]);
    for (const v of victims) assert.ok(alive(v.pid!), `bystander ${v.pid} was not signalled`);
  });
});

describe('run markers through the SSH runner (real sshd on 127.0.0.1)', function () {
  this.timeout(120000);
  let sshd: Sshd | undefined;
  before(function () {
    sshd = sshdUp(this);
    assert.ok(fs.existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs first`);
  });
  after(() => sshd?.down());

  it('markers a solver planted for every run, naming a live process, do not hold up the next evaluation', async () => {
    const solver = await tinysat();
    const set = makeSet();
    const config = {
      name: 'box',
      kind: 'ssh' as const,
      host: sshd!.host,
      workdir: path.join(tempDir('satlution-remote-'), 'work'),
      node: process.execPath,
      build: 'local' as const,
      jobs: 2,
    };
    const runner = sshRunner({ config, workerFile: WORKER, sshArgs: ['-F', sshd!.config] });
    const first = await evalOn(runner, set, { solver });
    assert.ok(first.results.every((r) => r.status === 'solved'));
    // The attack: results gone, and a marker per key naming a process that lives on (both formats).
    const results = path.join(config.workdir, 'results');
    const keys = fs
      .readdirSync(results)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length));
    assert.equal(keys.length, 6);
    const victim = bystander();
    await until('the bystander runs', () => alive(victim.pid!));
    for (const [i, k] of keys.entries()) {
      fs.rmSync(path.join(results, `${k}.json`));
      plant(config.workdir, k, i % 2 ? `${victim.pid}\n` : `${victim.pid} ${procStart(victim.pid!)} ${BOOT} ${HOST}\n`);
    }
    const t0 = Date.now();
    const again = await evalOn(runner, set, { solver });
    assert.ok(Date.now() - t0 < 30000, `took ${Date.now() - t0} ms (the bystander lives 60 s)`);
    assert.equal(again.results.length, 6);
    assert.ok(
      again.results.every((r) => r.status === 'solved'),
      JSON.stringify(again.results.map((r) => r.status)),
    );
    assert.equal(again.reused, 0);
    assert.deepEqual(fs.readdirSync(path.join(config.workdir, 'running')), []);
    assert.ok(alive(victim.pid!));
  });
});
