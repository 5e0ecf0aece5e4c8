// The answer thief (test/fixtures/attackers/thief) on the SSH runner (a real sshd on 127.0.0.1) and
// on the Slurm runner (a real single-host Slurm). Here the "remote" host is this machine, so the
// thief has every chance: the runner's workdir sits in a tree with a leaked meta.csv, a benchmark
// it can overwrite and a results store it can forge. With the sandbox on it gets nothing, twice;
// with `sandbox: off` the same thief steals, spoils, phones home and leaves a daemon, which shows
// every check here can fail. A host without bubblewrap is refused with the fix, and an honest
// solver passes every check (models and DRAT proofs) in the sandbox on both runners.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigSchema } from '../../src/core/config/schema';
import { ResultsStore } from '../../src/core/eval/resultsStore';
import { runSet, type RunSetOutcome } from '../../src/core/eval/runSet';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { InstanceCache, listSet } from '../../src/core/instances/instances';
import { probeIsolation } from '../../src/core/isolation/probe';
import type { IsolationSettings } from '../../src/core/isolation/settings';
import { buildSolver } from '../../src/core/run/buildSolver';
import { InstanceResult, StoredRun } from '../../src/core/run/result';
import { findDratTrim } from '../../src/core/run/checkers';
import { checkRunnerHealth } from '../../src/core/runners/health';
import type { Runner } from '../../src/core/runners/runner';
import { slurmRunner } from '../../src/core/runners/slurm/slurmRunner';
import { sshRunner, type SshRunnerConfig } from '../../src/core/runners/sshRunner';
import { type Slurm, type Sshd, slurmUp, sshdUp } from './clusters';
import { FIXTURES, tempDir, WORKER, write } from './helpers';

/** The attacking solver and the honest one. */
const THIEF = path.join(FIXTURES, 'attackers', 'thief');
const HONEST = path.join(FIXTURES, 'liars', 'honest');

/** The default isolation, spelled out: a bubblewrap sandbox, no network, nothing extra visible. */
const SANDBOX: IsolationSettings = { mode: 'bwrap', buildNetwork: false, readOnly: [] };
/** `sandbox: off`. */
const NO_SANDBOX: IsolationSettings = { mode: 'off', buildNetwork: false, readOnly: [] };

/** Where the thief caches answers on the host (its `$HOME` in a run is the run's own, removed, directory). */
const HOST_CACHES = ['/tmp/thief-cache', '/var/tmp/thief-cache', path.join(os.homedir(), '.thief-cache')];

/** The alias of the second sshd, whose sessions find no bwrap. */
const NO_BWRAP_HOST = 'satlution-nobwrap-host';

/** One instance of an arena's set. */
interface Instance {
  name: string;
  text: string;
  expected: 'SAT' | 'UNSAT';
  /** Also in the leaked meta.csv (a SAT one with a lie as its answer). */
  leaked: boolean;
}

/**
 * A tree under one temp dir that gives the thief, run without a sandbox, everything to find:
 *   work/                         the runner's workdir (solvers/, instances/, results/, ...)
 *   benchmarks/decoy/decoy.cnf    a benchmark it reaches walking up from the synced solver
 *   .satlution/results/runs.jsonl the results store it would forge
 *   leaked/meta.csv               copies of two instances and their "answers", the SAT one a lie
 *   hidden/a/b/c/set/             the set with its meta.csv, beyond its walks and its find -maxdepth 5
 */
interface Arena {
  root: string;
  set: string;
  workdir: string;
  decoy: string;
  storeFile: string;
  instances: Instance[];
  /** The thief's names for the instances (the first 16 hex digits of their sha256). */
  hashes: string[];
}

/** Arenas made by this file: the safety net in `after` cleans what a failed test left. */
const arenas: Arena[] = [];

/** sha256 in hex. */
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A fresh arena; every instance carries a token of its own, so only this arena's runs can match them. */
function arena(): Arena {
  const root = tempDir('satlution-arena-');
  const token = randomBytes(8).toString('hex');
  const raw: Omit<Instance, 'text'>[] = [
    { name: 'sat-small.cnf', expected: 'SAT', leaked: false },
    { name: 'planted-40-1.cnf', expected: 'SAT', leaked: true },
    { name: 'planted-40-2.cnf', expected: 'SAT', leaked: false },
    { name: 'unsat-small.cnf', expected: 'UNSAT', leaked: false },
    { name: 'php-5-4.cnf', expected: 'UNSAT', leaked: true },
    { name: 'php-7-6.cnf', expected: 'UNSAT', leaked: false },
  ];
  const body = (name: string) =>
    name.startsWith('planted-40-')
      ? planted3Sat(40, 4.0, Number(name.slice(-5, -4)))
      : name.startsWith('php-')
        ? pigeonhole(Number(name[4]), Number(name[6]))
        : fs.readFileSync(path.join(FIXTURES, 'cnf', name), 'utf8');
  const instances = raw.map((i) => ({ ...i, text: `c arena ${token}\n${body(i.name)}` }));
  const set = path.join(root, 'hidden', 'a', 'b', 'c', 'set');
  for (const i of instances) write(path.join(set, i.name), i.text);
  // The set's answers hold by construction (planted, pigeonhole): proved, so an answer against them is wrong.
  write(path.join(set, 'meta.csv'), ['instance,family,expected,proved', ...instances.map((i) => `${i.name},arena,${i.expected},construction`), ''].join('\n'));
  for (const i of instances.filter((x) => x.leaked)) write(path.join(root, 'leaked', i.name), i.text);
  write(
    path.join(root, 'leaked', 'meta.csv'),
    ['instance,family,expected', ...instances.filter((i) => i.leaked).map((i) => `${i.name},leak,UNSAT`), ''].join('\n'),
  );
  const decoy = path.join(root, 'benchmarks', 'decoy');
  write(path.join(decoy, 'decoy.cnf'), pigeonhole(4, 3));
  const storeFile = write(path.join(root, '.satlution', 'results', 'runs.jsonl'), '');
  const a: Arena = { root, set, workdir: path.join(root, 'work'), decoy, storeFile, instances, hashes: instances.map((i) => sha(i.text).slice(0, 16)) };
  arenas.push(a);
  return a;
}

/** A fresh, empty results store at the arena's store path (the previous one is kept aside). */
function freshStore(a: Arena): ResultsStore {
  if (fs.statSync(a.storeFile).size > 0) fs.renameSync(a.storeFile, `${a.storeFile}.${Date.now()}`);
  write(a.storeFile, '');
  return new ResultsStore(a.storeFile);
}

/** Every file below `dir`: relative path -> sha256 of its content. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(r);
      else out.set(r, sha(fs.readFileSync(path.join(dir, r))));
    }
  };
  if (fs.existsSync(dir)) walk('');
  return out;
}

/** A TCP server on loopback that counts who connects. */
interface Listener {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

/** Listens on a free loopback port (the thief's `port` file names it). */
function listen(): Promise<Listener> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      if (addr === null || typeof addr === 'string') return reject(new Error('no TCP port'));
      resolve({ port: addr.port, connections: () => n, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

/** The thief, copied and built (its build only makes its script executable), with a `port` file. */
async function thief(port: number): Promise<string> {
  const dir = path.join(tempDir('satlution-cand-'), 'thief');
  fs.cpSync(THIEF, dir, { recursive: true });
  write(path.join(dir, 'port'), `${port}\n`);
  const b = await buildSolver(dir, 60);
  assert.ok(b.ok, b.detail);
  return dir;
}

/** The honest solver (cadical with a DRAT proof), copied. */
function honest(): string {
  const dir = path.join(tempDir('satlution-cand-'), 'honest');
  fs.cpSync(HONEST, dir, { recursive: true });
  return dir;
}

/** One evaluation of `solver` on the arena's set (perf-like: no proofs, unless asked). */
async function evaluate(
  runner: Runner,
  a: Arena,
  solver: string,
  o: { isolation: IsolationSettings; store: ResultsStore; timeoutS?: number; checkProofs?: boolean },
): Promise<RunSetOutcome> {
  const dratTrim = findDratTrim();
  return runSet({
    solverDir: solver,
    instances: await listSet(a.set),
    timeoutS: o.timeoutS ?? 30,
    memMb: 1024,
    checkProofs: o.checkProofs ?? false,
    ...(o.checkProofs && dratTrim ? { dratTrim } : {}),
    maxProofMb: 64,
    checkerTimeoutS: 30,
    jobs: 2,
    cache: new InstanceCache(tempDir()),
    store: o.store,
    runner,
    isolation: o.isolation,
  });
}

/** `sleep 313` processes (the thief's daemon) working in `root`: this arena's, not another test's. */
function daemonsIn(root: string): number[] {
  const r = spawnSync('pgrep', ['-f', 'sleep 313'], { encoding: 'utf8' });
  const cwd = (pid: number) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      return '';
    }
  };
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => cwd(pid).includes(root));
}

/** What the thief got out of a run, by every channel it tries. */
interface Loot {
  /** Instances answered from the leaked meta.csv (its lie makes the answer wrong). */
  answeredFromLeak: string[];
  /** Host cache files named after this arena's instances. */
  hostCaches: string[];
  /** `env.dump` and `.thief-cache` anywhere in the arena (the workdir, the synced solver, ...). */
  drops: string[];
  /** The decoy benchmark was overwritten. */
  spoiledBenchmark: boolean;
  /** The results store holds a line that is not a stored run. */
  forgedStore: boolean;
  connections: number;
  daemons: number[];
}

/** What a sandboxed run must leave the thief. */
const NOTHING: Loot = { answeredFromLeak: [], hostCaches: [], drops: [], spoiledBenchmark: false, forgedStore: false, connections: 0, daemons: [] };

/** Looks for every trace of the thief's attacks after an evaluation. */
async function loot(a: Arena, out: RunSetOutcome, tcp: Listener, decoyBefore: Map<string, string>): Promise<Loot> {
  await new Promise((r) => setTimeout(r, 300)); // a connection made at the end of a run gets accepted
  const drops: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.name === 'env.dump' || e.name === '.thief-cache') drops.push(path.relative(a.root, p));
      if (e.isDirectory()) walk(p);
    }
  };
  walk(a.root);
  const lines = fs
    .readFileSync(a.storeFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const parses = (l: string) => {
    try {
      return StoredRun.safeParse(JSON.parse(l)).success;
    } catch {
      return false;
    }
  };
  const leakedSat = a.instances.filter((i) => i.leaked && i.expected === 'SAT').map((i) => i.name);
  return {
    answeredFromLeak: out.results.filter((r) => leakedSat.includes(r.instance) && r.answer === 'UNSAT').map((r) => r.instance),
    hostCaches: HOST_CACHES.flatMap((c) => a.hashes.map((h) => path.join(c, h))).filter((f) => fs.existsSync(f)),
    drops: drops.sort(),
    spoiledBenchmark: !isDeepEqual(snapshot(a.decoy), decoyBefore),
    forgedStore: lines.some((l) => !parses(l)),
    connections: tcp.connections(),
    daemons: daemonsIn(a.root),
  };
}

/** Structural equality, as a boolean. */
function isDeepEqual<T>(x: T, y: T): boolean {
  try {
    assert.deepEqual(x, y);
    return true;
  } catch {
    return false;
  }
}

/** Ends the thief's daemons of this arena (by pid) and removes its host caches of this arena's instances. */
function cleanUp(a: Arena): void {
  for (const pid of daemonsIn(a.root))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  for (const c of HOST_CACHES) {
    for (const h of a.hashes) fs.rmSync(path.join(c, h), { force: true });
    // A cache folder left empty goes too; one with other entries (another test's) stays.
    if (fs.existsSync(c) && fs.readdirSync(c).length === 0) fs.rmdirSync(c);
  }
}

/** Every run solved, with meta.csv's answer: cadical's, not a stolen one. */
function assertSolvedRight(out: RunSetOutcome, a: Arena): void {
  assert.deepEqual(
    out.results.map((r) => [r.instance, r.status, r.answer]),
    [...a.instances].sort((x, y) => (x.name < y.name ? -1 : 1)).map((i) => [i.name, 'solved', i.expected]),
    JSON.stringify(out.results.map((r) => [r.instance, r.status, r.detail])),
  );
}

/**
 * The arena after a sandboxed evaluation: the set byte for byte as before, the workdir's instances
 * exactly the set's files, its one synced solver exactly the candidate, and its results the earlier
 * files unchanged plus one new result per instance.
 */
function assertUntouched(a: Arena, candidate: string, before: { set: Map<string, string>; results: Map<string, string> }): void {
  assert.deepEqual(snapshot(a.set), before.set, 'the set changed');
  // Remote instances are named by the sha256 of their content: a name whose content hashes to it is untouched.
  const setCnfs = [...snapshot(a.set)].filter(([f]) => f.endsWith('.cnf')).map(([, h]): [string, string] => [`${h}.cnf`, h]);
  assert.deepEqual(snapshot(path.join(a.workdir, 'instances')), new Map(setCnfs), "the remote instances are not exactly the set's files");
  const solvers = fs.readdirSync(path.join(a.workdir, 'solvers'));
  assert.equal(solvers.length, 1, solvers.join(' '));
  assert.deepEqual(snapshot(path.join(a.workdir, 'solvers', solvers[0]!)), snapshot(candidate), 'the synced solver is not the candidate any more');
  const results = snapshot(path.join(a.workdir, 'results'));
  for (const [f, h] of before.results) assert.equal(results.get(f), h, `results/${f} changed`);
  const added = [...results.keys()].filter((f) => !before.results.has(f));
  assert.equal(added.length, a.instances.length, `new result files: ${added.join(' ')}`);
  for (const f of added) {
    assert.match(f, /^[A-Za-z0-9][A-Za-z0-9._-]*\.json$/);
    const text = fs.readFileSync(path.join(a.workdir, 'results', f), 'utf8').trim();
    assert.ok(InstanceResult.safeParse(JSON.parse(text.split('\n').pop() ?? '')).success, `results/${f} is not a result: ${text.slice(0, 200)}`);
  }
}

/** `ctx`, except that in CI a service that cannot be brought up fails instead of skipping. */
function strictInCi(ctx: Mocha.Context, what: string): Mocha.Context {
  if (!process.env.CI) return ctx;
  const strict = Object.create(ctx) as Mocha.Context;
  strict.skip = (): never => {
    throw new Error(`${what} is required in CI but cannot be brought up here`);
  };
  return strict;
}

/** Skips (fails in CI) where the attacks cannot run: no working bubblewrap, cadical or drat-trim here. */
async function needTools(ctx: Mocha.Context): Promise<void> {
  const box = await probeIsolation({ mode: 'bwrap' });
  const missing = [
    box.ok ? '' : `a working bubblewrap (${box.problem})`,
    spawnSync('cadical', ['--version']).status === 0 ? '' : 'cadical',
    findDratTrim() ? '' : 'drat-trim',
  ].filter(Boolean);
  assert.ok(fs.existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs first`);
  if (!missing.length) return;
  const why = `needs ${missing.join(', ')} (scripts/setup-sat-tools.sh; apt-get install bubblewrap)`;
  if (process.env.CI) throw new Error(why);
  console.log(`    skipped: ${why}`);
  ctx.skip();
}

/** The tests every remote runner must pass; `runnerAt` gives the runner for a workdir once `before` ran. */
function attackTests(runnerAt: () => (workdir: string) => Runner): void {
  it('sandbox on: the thief sees no answers, reaches no benchmark, store, cache, network or host, and leaves no daemon', async () => {
    const a = arena();
    const tcp = await listen();
    try {
      const cand = await thief(tcp.port);
      const decoy = snapshot(a.decoy);
      const before = { set: snapshot(a.set), results: new Map<string, string>() };
      const t0 = Date.now();
      const out = await evaluate(runnerAt()(a.workdir), a, cand, { isolation: SANDBOX, store: freshStore(a) });
      console.log(`      (${a.instances.length} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      assertSolvedRight(out, a);
      assert.deepEqual(await loot(a, out, tcp, decoy), NOTHING);
      assertUntouched(a, cand, before);
    } finally {
      await tcp.close();
    }
  });

  it('sandbox on, run again with a fresh store (new runs on the same synced solver): still no answer from a cache', async () => {
    const a = arena();
    const tcp = await listen();
    try {
      const cand = await thief(tcp.port);
      const decoy = snapshot(a.decoy);
      const runner = runnerAt()(a.workdir);
      const first = await evaluate(runner, a, cand, { isolation: SANDBOX, store: freshStore(a) });
      assertSolvedRight(first, a);
      assert.deepEqual(await loot(a, first, tcp, decoy), NOTHING);
      const before = { set: snapshot(a.set), results: snapshot(path.join(a.workdir, 'results')) };
      // Another timeout is another run key: nothing stored here or on the host is reused, every instance runs again.
      const again = await evaluate(runner, a, cand, { isolation: SANDBOX, store: freshStore(a), timeoutS: 31 });
      assert.equal(again.reused, 0);
      assertSolvedRight(again, a);
      assert.deepEqual(await loot(a, again, tcp, decoy), NOTHING);
      assertUntouched(a, cand, before);
    } finally {
      await tcp.close();
    }
  });

  it('sandbox off: the same thief steals, caches, spoils, forges, dumps, phones home (so the checks above can fail)', async () => {
    const a = arena();
    const tcp = await listen();
    try {
      const cand = await thief(tcp.port);
      const decoy = snapshot(a.decoy);
      // No answer cached by an earlier thief for these instances (it would override the leak's): this run finds what this arena offers.
      cleanUp(a);
      const out = await evaluate(runnerAt()(a.workdir), a, cand, { isolation: NO_SANDBOX, store: freshStore(a) });
      const got = await loot(a, out, tcp, decoy);
      const said = JSON.stringify(got);
      assert.deepEqual(got.answeredFromLeak, ['planted-40-1.cnf'], said);
      assert.equal(out.results.find((r) => r.instance === 'planted-40-1.cnf')?.status, 'wrong');
      assert.ok(
        got.hostCaches.some((f) => f.startsWith('/tmp/thief-cache/')),
        said,
      );
      const solver = path.join('work', 'solvers', fs.readdirSync(path.join(a.workdir, 'solvers'))[0]!);
      assert.ok(got.drops.includes(path.join(solver, 'env.dump')) && got.drops.includes(path.join(solver, '.thief-cache')), said);
      assert.ok(got.spoiledBenchmark, said);
      assert.ok(got.forgedStore, said);
      assert.ok(got.connections > 0, said);
      // The thief's daemon survives only when its setsid wins the race with the run's process-group
      // kill (and it left the run's cgroup), so it is not asserted; the check that would see one is.
      console.log(`      (sandbox off: ${got.daemons.length} of the thief's daemons outlived their runs)`);
      const planted = spawn('sleep', ['313'], { cwd: path.join(a.root, solver), detached: true, stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(daemonsIn(a.root).includes(planted.pid!), 'the daemon check sees a sleep 313 working in the arena');
    } finally {
      await tcp.close();
      cleanUp(a);
    }
    // Unconfined, a daemon the thief forked while cleanUp ran can outlive the first kill: end it too.
    for (let i = 0; i < 20 && daemonsIn(a.root).length; i++) {
      cleanUp(a);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(daemonsIn(a.root), [], 'the daemons were ended');
    assert.deepEqual(
      HOST_CACHES.flatMap((c) => a.hashes.map((h) => path.join(c, h))).filter((f) => fs.existsSync(f)),
      [],
      'the host caches were removed',
    );
  });

  it('an honest solver passes in the sandbox with every check ok (models, DRAT proofs)', async () => {
    const a = arena();
    const out = await evaluate(runnerAt()(a.workdir), a, honest(), { isolation: SANDBOX, store: freshStore(a), checkProofs: true });
    assertSolvedRight(out, a);
    for (const r of out.results)
      assert.deepEqual([r.instance, r.check.kind, r.check.ok], [r.instance, r.expected === 'SAT' ? 'model' : 'drat', true], r.check.detail);
  });
}

/** A second sshd on the first one's keys whose sessions get a PATH of every program but bwrap. */
interface NoBwrapSshd {
  host: string;
  sshArgs: string[];
  down(): Promise<void>;
}

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  const l = await listen();
  await l.close();
  return l.port;
}

/**
 * Starts that sshd (`sshd -D`, a child of this process, stopped by pid): the config of
 * scripts/sshd-test.sh with another port and `SetEnv PATH=<links to every program of the system
 * directories except bwrap>`, and an ssh config for it under the alias NO_BWRAP_HOST.
 */
async function sshdWithoutBwrap(sshd: Sshd): Promise<NoBwrapSshd> {
  const dir = path.dirname(sshd.config);
  const mine = tempDir('satlution-nobwrap-');
  const farm = path.join(mine, 'bin');
  fs.mkdirSync(farm);
  const seen = new Set<string>();
  for (const d of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'])
    for (const name of fs.existsSync(d) ? fs.readdirSync(d) : [])
      if (name !== 'bwrap' && !seen.has(name)) {
        seen.add(name);
        fs.symlinkSync(path.join(d, name), path.join(farm, name));
      }
  const port = await freePort();
  const sshdConfig = write(
    path.join(mine, 'sshd_config'),
    fs
      .readFileSync(path.join(dir, 'sshd_config'), 'utf8')
      .replace(/^Port \d+$/m, `Port ${port}`)
      .replace(/^PidFile .*$/m, `PidFile ${path.join(mine, 'sshd.pid')}`) + `SetEnv PATH=${farm}\n`,
  );
  const sshConfig = write(
    path.join(mine, 'ssh_config'),
    fs
      .readFileSync(sshd.config, 'utf8')
      .replace(/^Host .*$/m, `Host ${NO_BWRAP_HOST}`)
      .replace(/^(\s*)Port \d+$/m, `$1Port ${port}`)
      .replace(/^(\s*)UserKnownHostsFile .*$/m, `$1UserKnownHostsFile ${path.join(mine, 'known_hosts')}`),
  );
  const bin = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((p) => fs.existsSync(p)) ?? 'sshd';
  const child: ChildProcess = spawn(bin, ['-D', '-f', sshdConfig, '-E', path.join(mine, 'sshd.log')], { stdio: 'ignore' });
  const down = async () => {
    // Its per-connection children serve the control connections: end them too (as sshd-test.sh down does).
    const kids = spawnSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((l) => l.trim())
      .map(Number);
    for (const k of kids)
      try {
        process.kill(k, 'SIGTERM');
      } catch {
        /* gone */
      }
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  };
  const sshArgs = ['-F', sshConfig];
  for (const end = Date.now() + 10000; ; await new Promise((r) => setTimeout(r, 200))) {
    const r = spawnSync('ssh', [...sshArgs, '-o', 'ControlMaster=no', '-o', 'ControlPath=none', NO_BWRAP_HOST, 'command -v bwrap || echo nobwrap'], {
      encoding: 'utf8',
    });
    if (r.status === 0) {
      if (r.stdout.trim() !== 'nobwrap') {
        await down();
        assert.fail(`the session still finds bwrap: ${r.stdout}`);
      }
      break;
    }
    if (Date.now() > end) {
      await down();
      assert.fail(`the second sshd did not let us in: ${r.stderr}\n${fs.readFileSync(path.join(mine, 'sshd.log'), 'utf8')}`);
    }
  }
  return { host: NO_BWRAP_HOST, sshArgs, down };
}

after(() => {
  for (const a of arenas.splice(0)) cleanUp(a);
});

describe('attacks on the SSH runner (real sshd on 127.0.0.1)', function () {
  this.timeout(300000);
  let sshd: Sshd | undefined;

  /** The SSH runner's config for a host and workdir. */
  const config = (host: string, workdir: string): SshRunnerConfig => ({
    name: 'box',
    kind: 'ssh',
    host,
    workdir,
    node: process.execPath,
    build: 'local',
    jobs: 2,
  });

  before(async function () {
    await needTools(this);
    sshd = sshdUp(strictInCi(this, 'sshd (scripts/sshd-test.sh)'));
  });
  after(() => sshd?.down());

  attackTests(() => (workdir) => sshRunner({ config: config(sshd!.host, workdir), workerFile: WORKER, sshArgs: ['-F', sshd!.config] }));

  it('refuses a host without bubblewrap before syncing anything, naming the host and the fix; sandbox: off still runs there', async () => {
    const nb = await sshdWithoutBwrap(sshd!);
    try {
      const a = arena();
      const cfg = config(nb.host, a.workdir);
      const runner = sshRunner({ config: cfg, workerFile: WORKER, sshArgs: nb.sshArgs });
      await assert.rejects(evaluate(runner, a, honest(), { isolation: SANDBOX, store: freshStore(a) }), (e: Error) => {
        assert.match(e.message, new RegExp(`^bubblewrap \\(bwrap\\) is not installed on ${NO_BWRAP_HOST} \\(${os.hostname()}\\)\\. `));
        assert.match(e.message, /`sudo apt-get install bubblewrap`/);
        assert.match(e.message, /sandbox: off/);
        return true;
      });
      assert.deepEqual(fs.readdirSync(a.workdir), [], 'nothing was synced');
      assert.equal(fs.statSync(a.storeFile).size, 0, 'nothing was stored');
      // The health check says the same.
      const health = await checkRunnerHealth(cfg, ConfigSchema.parse({ seeds: [{ name: 's', source: '.' }] }), tempDir(), { sshArgs: nb.sshArgs });
      const sandbox = health.find((f) => f.check === 'sandbox');
      assert.ok(sandbox, JSON.stringify(health));
      assert.equal(sandbox.level, 'error', sandbox.detail);
      assert.match(sandbox.detail, new RegExp(`bubblewrap \\(bwrap\\) is not installed on ${NO_BWRAP_HOST}.*apt-get install bubblewrap`));
      // The refusal is the sandbox's: with sandbox: off the same host runs everything.
      const off = await evaluate(runner, a, honest(), { isolation: NO_SANDBOX, store: freshStore(a) });
      assertSolvedRight(off, a);
    } finally {
      await nb.down();
    }
  });
});

describe('attacks on the Slurm runner (real Slurm)', function () {
  this.timeout(300000);
  let slurm: Slurm | undefined;

  before(async function () {
    await needTools(this);
    slurm = slurmUp(strictInCi(this, 'Slurm (scripts/slurm-test.sh)'));
  });
  after(() => slurm?.down());

  attackTests(
    () => (workdir) =>
      slurmRunner({
        config: { name: 'cluster', kind: 'slurm', workdir, cpus_per_task: 1, max_array: 1000, node: process.execPath, build: 'local', sbatch_args: [] },
        workerFile: WORKER,
        env: slurm!.env,
        pollMs: 300,
      }),
  );
});
