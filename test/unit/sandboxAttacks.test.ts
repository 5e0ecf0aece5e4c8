// Real attacks on the evaluator, through the evaluation service on the local runner: a solver that
// hunts for the answers (meta.csv beside or above its instance and its own directory, /tmp, $HOME, by
// content), caches answers between runs, spoils the benchmarks, forges the results store, leaves its
// memory cgroup, dumps its environment, phones home and leaves a daemon (test/fixtures/attackers).
// In the sandbox it gains nothing and leaves nothing; with `sandbox: off` the same solver does steal
// (so the attack is real), and its rewrite of the instances is caught by their hash.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import type { Config } from '../../src/core/config/schema';
import { type Evaluation, evaluateSolver } from '../../src/core/eval/service';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { FIXTURES, tempDir, WORKER, write } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;
const CANARY = 'sk-canary-4f1d2e7a9b';
/** Where the thief caches answers, outside its directory. */
const CACHES = ['/tmp/thief-cache', '/var/tmp/thief-cache', path.join(os.homedir(), '.thief-cache')];

/** path -> sha256 of every file under `dir` (links as their target text). */
export function hashListing(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else
        out.set(
          path.relative(dir, p),
          createHash('sha256')
            .update(e.isSymbolicLink() ? fs.readlinkSync(p) : fs.readFileSync(p))
            .digest('hex'),
        );
    }
  };
  walk(dir);
  return out;
}

/** The entries of two listings that differ, outside the given top-level folders. */
function changed(before: Map<string, string>, after: Map<string, string>, except: string[]): string[] {
  const keep = (p: string) => !except.some((x) => p === x || p.startsWith(x + path.sep));
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys]
    .filter(keep)
    .filter((k) => before.get(k) !== after.get(k))
    .sort();
}

/** A workspace: verify and perf sets with meta.csv (UNSAT pigeonholes, planted SAT), and the thief as SATLUTION_1. */
function workspace(port: number): string {
  const ws = tempDir();
  const perf = path.join(ws, 'benchmarks', 'perf');
  let meta = 'instance,family,expected\n';
  for (const [p, h] of [
    [7, 6],
    [8, 7],
    [9, 8],
  ] as const) {
    write(path.join(perf, `php-${p}-${h}.cnf`), pigeonhole(p, h));
    meta += `php-${p}-${h}.cnf,pigeonhole,UNSAT\n`;
  }
  for (const s of [1, 2]) {
    write(path.join(perf, `planted-${s}.cnf`), planted3Sat(80, 4.0, 900 + s));
    meta += `planted-${s}.cnf,planted,SAT\n`;
  }
  write(path.join(perf, 'meta.csv'), meta);
  const verify = path.join(ws, 'benchmarks', 'verify');
  write(path.join(verify, 'php-6-5.cnf'), pigeonhole(6, 5));
  write(path.join(verify, 'planted-3.cnf'), planted3Sat(60, 4.0, 903));
  write(path.join(verify, 'meta.csv'), 'instance,family,expected\nphp-6-5.cnf,pigeonhole,UNSAT\nplanted-3.cnf,planted,SAT\n');
  write(path.join(ws, 'satlution.yaml'), 'seeds: [{ name: thief, source: . }]\n');
  const dir = path.join(ws, 'SATLUTION_1');
  fs.cpSync(path.join(FIXTURES, 'attackers', 'thief'), dir, { recursive: true });
  write(path.join(dir, 'port'), String(port));
  return ws;
}

/** The config: verify with proofs, perf without (audited), the sandbox as given. */
function config(sandbox: 'on' | 'off'): Config {
  const r = parseConfig(
    `seeds: [{ name: thief, source: . }]\nbenchmarks: { smoke: benchmarks/verify, verify: benchmarks/verify, perf: benchmarks/perf }\nsandbox: ${sandbox}\n` +
      'stages:\n  verify: { timeout_s: 20 }\n  perf: { timeout_s: 20, audit: { min: 3, share: 1 } }\n',
  );
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.key}: ${i.message}`).join('\n'));
  return r.config;
}

/** Every run log's text written for this workspace's evaluations. */
function logs(ws: string): string {
  const dir = path.join(ws, '.satlution', 'logs');
  if (!fs.existsSync(dir)) return '';
  return [...hashListing(dir).keys()].map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
}

const daemons = () => spawnSync('pgrep', ['-f', 'sleep 313'], { encoding: 'utf8' }).stdout.trim();

function cleanUp(): void {
  spawnSync('pkill', ['-f', 'sleep 313']);
  for (const c of CACHES) fs.rmSync(c, { recursive: true, force: true });
}

describe('sandbox: attacks by an answer-hunting solver gain nothing (local runner)', function () {
  this.timeout(180000);
  let server: net.Server | undefined;
  let connections = 0;
  let port = 0;
  const savedKey = process.env.OPENAI_API_KEY;

  before(async function () {
    if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0 || spawnSync('bwrap', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('cadical, drat-trim and bubblewrap are required (scripts/setup-sat-tools.sh)');
      this.skip();
    }
    cleanUp();
    const listening = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    server = listening;
    await new Promise<void>((r) => listening.listen(0, '127.0.0.1', r));
    port = (listening.address() as net.AddressInfo).port;
    process.env.OPENAI_API_KEY = CANARY;
  });

  after(async () => {
    cleanUp();
    if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = savedKey;
    if (server) await new Promise((r) => server!.close(r));
  });

  const evaluate = (ws: string, sandbox: 'on' | 'off', stage: 'all' | 'perf' = 'all'): Promise<Evaluation> =>
    evaluateSolver({
      ws,
      config: config(sandbox),
      solverDir: path.join(ws, 'SATLUTION_1'),
      rules: false,
      record: false,
      dratTrim: DRAT_TRIM!,
      overrides: { jobs: 2, stage },
      runnerEnv: { workerFile: WORKER },
    });

  it('finds nothing, caches nothing, writes nothing outside, and passes honestly', async () => {
    const ws = workspace(port);
    const before = hashListing(ws);
    const e = await evaluate(ws, 'on');
    assert.equal(e.verdict, 'pass', e.gates.map((g) => `${g.gate}: ${g.detail}`).join('\n'));
    const perf = e.gates.find((g) => g.gate === 'perf')!;
    assert.deepEqual(perf.results!.map((r) => [r.instance, r.status, r.answer]).sort(), [
      ['php-7-6.cnf', 'solved', 'UNSAT'],
      ['php-8-7.cnf', 'solved', 'UNSAT'],
      ['php-9-8.cnf', 'solved', 'UNSAT'],
      ['planted-1.cnf', 'solved', 'SAT'],
      ['planted-2.cnf', 'solved', 'SAT'],
    ]);
    assert.equal(e.doc.isolation, 'bwrap');
    const text = logs(ws);
    assert.match(text, /sandbox:\s+bwrap/, 'the run logs say the runs were sandboxed');
    assert.doesNotMatch(text, /c saw/, 'the solver found no answers and no cache');
    // Nothing outside the engine's own state changed: not the benchmarks, not the candidate, not the config.
    assert.deepEqual(changed(before, hashListing(ws), ['.satlution']), []);
    const runs = fs.readFileSync(path.join(ws, '.satlution', 'results', 'runs.jsonl'), 'utf8');
    assert.doesNotMatch(runs, /forged/);
    for (const c of CACHES) assert.equal(fs.existsSync(c), false, `${c} was written`);
    assert.equal(connections, 0, 'a connection reached the loopback listener');
    assert.equal(daemons(), '', 'a daemon outlived its run');
    assert.equal(
      fs.readdirSync(os.tmpdir()).filter((f) => /^satlution-(run|build)-/.test(f) && f.includes(`-${process.pid}-`)).length,
      0,
      'run directories were removed',
    );
  });

  it('a second measurement of the same instances learns nothing from the first', async () => {
    const ws = workspace(port);
    await evaluate(ws, 'on');
    // A fresh results store: every run happens again.
    fs.rmSync(path.join(ws, '.satlution', 'results'), { recursive: true, force: true });
    fs.rmSync(path.join(ws, '.satlution', 'logs'), { recursive: true, force: true });
    const e = await evaluate(ws, 'on');
    assert.equal(e.verdict, 'pass');
    assert.ok(
      e.gates.every((g) => !g.reused),
      'the runs were not reused',
    );
    assert.doesNotMatch(logs(ws), /c saw/);
  });

  it('without the sandbox the same solver steals the answers and spoils the benchmarks, and is caught', async () => {
    const ws = workspace(port);
    // No answers cached by an earlier test's thief: what it does here, it does from this workspace alone.
    cleanUp();
    try {
      // perf alone: verify's proof checks would stop it first.
      const e = await evaluate(ws, 'off', 'perf');
      assert.match(logs(ws), /c saw .*meta\.csv/, 'the attack is real: unconfined, it finds meta.csv');
      assert.match(logs(ws), /sandbox:\s+none \(measured without isolation\)/);
      assert.equal(e.doc.isolation, 'off');
      // Caught on every machine, by what it did first there: an UNSAT answer from the stolen meta.csv
      // comes without a proof (missing_proof), and a benchmark it spoiled under a run is seen by the
      // instance's hash before any check. Which runs come first depends on the machine's speed.
      const perf = e.gates.find((g) => g.gate === 'perf');
      assert.ok(perf && !perf.ok, 'the attack fails perf');
      assert.ok(
        perf!.failures.some((f) => /was changed during the run|^missing_proof: UNSAT claimed on php-/.test(f)),
        perf!.failures.join('\n'),
      );
    } finally {
      cleanUp();
    }
  });
});
