// satlution eval end to end: real solvers, real drat-trim, the JSON contract, gate failures,
// resume after SIGKILL, identical binaries, bad input.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { InstanceResult } from '../../src/core/run/result';
import { CLI, FIXTURES, tempDir, write } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;
const EvalDoc = z.object({
  solver: z.string(),
  runner: z.string(),
  timeout_s: z.number(),
  mem_limit_mb: z.number(),
  verdict: z.enum(['pass', 'fail']),
  instances: z.array(InstanceResult),
  metrics: z
    .object({
      n: z.number(),
      solved: z.number(),
      solved_sat: z.number(),
      solved_unsat: z.number(),
      par2: z.number(),
      par2_sat: z.number().nullable(),
      par2_unsat: z.number().nullable(),
      solved_within: z.record(z.string(), z.number()),
      mem_avg_mb: z.number().nullable(),
      mem_max_mb: z.number().nullable(),
      wrong: z.number(),
      vbs_match: z.boolean(),
      unique_solved: z.number().nullable(),
    })
    .nullable(),
});

function makeSet(dir: string, withMeta = true): string {
  let meta = 'instance,family,expected\n';
  for (const [p, h] of [
    [5, 4],
    [6, 5],
  ] as const) {
    write(path.join(dir, `php-${p}-${h}.cnf`), pigeonhole(p, h));
    meta += `php-${p}-${h}.cnf,pigeonhole,UNSAT\n`;
  }
  for (const s of [1, 2, 3]) {
    write(path.join(dir, `planted-${s}.cnf`), planted3Sat(80, 4.0, s));
    meta += `planted-${s}.cnf,planted,SAT\n`;
  }
  if (withMeta) write(path.join(dir, 'meta.csv'), meta);
  return dir;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cacheHome, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
let cacheHome: string;

/** A solver directory wrapping cadical, optionally slowed down (for the resume test). */
function cadicalSolver(delayS = 0, name = 'cadical'): string {
  const dir = path.join(tempDir(), name);
  write(path.join(dir, 'bin', 'starexec_run_default'), `#!/usr/bin/env bash\n${delayS ? `sleep ${delayS}\n` : ''}exec cadical -q "$1" \${2:+"$2/proof.out"}\n`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  return dir;
}

describe('satlution eval', function () {
  this.timeout(120000);
  before(function () {
    if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
      this.skip();
    }
    cacheHome = tempDir();
  });

  it('passes an honest solver and writes the JSON contract', () => {
    const set = makeSet(tempDir());
    const json = path.join(tempDir(), 'r.json');
    const r = cli(['eval', cadicalSolver(), '--bench', set, '--no-build', '--json', json, '--drat-trim', DRAT_TRIM!, '--jobs', '2']);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /✓ verify +5\/5 solved/);
    const j = EvalDoc.parse(JSON.parse(fs.readFileSync(json, 'utf8')));
    assert.equal(j.verdict, 'pass');
    assert.equal(j.timeout_s, 60);
    // meta.csv without a `proved` column: its answers are claims.
    assert.deepEqual(
      j.instances.map((i) => [i.instance, i.status, i.answer, i.check.kind, i.check.ok, i.expected_from]),
      [
        ['php-5-4.cnf', 'solved', 'UNSAT', 'drat', true, 'claim'],
        ['php-6-5.cnf', 'solved', 'UNSAT', 'drat', true, 'claim'],
        ['planted-1.cnf', 'solved', 'SAT', 'model', true, 'claim'],
        ['planted-2.cnf', 'solved', 'SAT', 'model', true, 'claim'],
        ['planted-3.cnf', 'solved', 'SAT', 'model', true, 'claim'],
      ],
    );
    assert.deepEqual(
      [j.metrics!.n, j.metrics!.solved, j.metrics!.solved_sat, j.metrics!.solved_unsat, j.metrics!.wrong, j.metrics!.vbs_match],
      [5, 5, 3, 2, 0, true],
    );
    const mean = j.instances.reduce((s, i) => s + i.time_s, 0) / 5;
    assert.ok(Math.abs(j.metrics!.par2 - mean) < 1e-9, 'PAR-2 of all-solved = mean time');
  });

  it('fails a lying solver with exit 1 and says why', () => {
    const set = makeSet(tempDir());
    const r = cli(['eval', path.join(FIXTURES, 'liars', 'wrong-model'), '--bench', set, '--no-build', '--drat-trim', DRAT_TRIM!]);
    assert.equal(r.code, 1);
    assert.match(r.out, /✗ verify +3 of 5 instances failed: SAT claimed on planted-\d\.cnf, model rejected/);
    assert.match(r.out, /verdict: fail/);
  });

  it('checks answers against the ones other solvers proved when there is no meta.csv', () => {
    const set = makeSet(tempDir(), false);
    assert.equal(cli(['eval', cadicalSolver(), '--bench', set, '--no-build', '--drat-trim', DRAT_TRIM!]).code, 0);
    const json = path.join(tempDir(), 'r.json');
    const r = cli(['eval', path.join(FIXTURES, 'liars', 'always-unsat'), '--bench', set, '--no-build', '--no-proofs', '--json', json]);
    assert.equal(r.code, 1);
    const j = EvalDoc.parse(JSON.parse(fs.readFileSync(json, 'utf8')));
    const planted = j.instances.find((i) => i.instance === 'planted-1.cnf')!;
    assert.deepEqual([planted.status, planted.expected, planted.expected_from], ['wrong', 'SAT', 'vbs']);
    assert.match(planted.detail, /UNSAT claimed on planted-1\.cnf, but it is SAT \(the baselines say so\)/);
  });

  it('reports a build failure with the compiler diagnostic', () => {
    const dir = path.join(tempDir(), 'broken');
    fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'tinysat.c'), fs.readFileSync(path.join(dir, 'tinysat.c'), 'utf8').replace('static int nvars', 'static int nvars oops'));
    write(path.join(dir, 'starexec_build'), '#!/bin/sh\nset -e\nmake\nmkdir -p bin\ncp tinysat bin/\n');
    const r = cli(['eval', dir, '--bench', makeSet(tempDir()), '--no-proofs']);
    assert.equal(r.code, 1);
    assert.match(r.out, /✗ build +build failed \(exit 2, \d+ errors?\) — tinysat\.c:6: expected ‘=’/);
  });

  it('a killed evaluation resumes and ends with exactly one result per instance', async () => {
    const set = tempDir();
    for (let i = 0; i < 8; i++) write(path.join(set, `p${i}.cnf`), planted3Sat(60, 4.0, 100 + i));
    const solver = cadicalSolver(0.4, 'slow');
    const child = spawn(process.execPath, [CLI, 'eval', solver, '--bench', set, '--no-build', '--no-proofs', '--jobs', '2'], {
      env: { ...process.env, XDG_CACHE_HOME: cacheHome },
      stdio: 'ignore',
    });
    // Killed once two runs are stored (not after a fixed time: start-up varies with the machine's load).
    const store = path.join(cacheHome, 'satlution', 'results', 'runs.jsonl');
    const stored = () =>
      fs.existsSync(store)
        ? fs
            .readFileSync(store, 'utf8')
            .split('\n')
            .filter((l) => /"p\d\.cnf"/.test(l)).length
        : 0;
    for (let i = 0; i < 200 && stored() < 2; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // The runs it finished: whole lines only (a line torn by the kill is skipped on reading, and runs again).
    const finished = fs
      .readFileSync(store, 'utf8')
      .split('\n')
      .slice(0, -1)
      .filter((l) => /"p\d\.cnf"/.test(l)).length;
    const json = path.join(tempDir(), 'r.json');
    const r = cli(['eval', solver, '--bench', set, '--no-build', '--no-proofs', '--jobs', '2', '--json', json]);
    assert.equal(r.code, 0, r.err);
    const reused = Number(/\((\d+) results? reused\)/.exec(r.out)?.[1] ?? 0);
    assert.ok(reused >= 2 && reused < 8, `reused ${reused}`);
    // Counted, not timed (a busy machine slows the runs left): every finished run is reused, so none is repeated.
    assert.equal(reused, finished, 'finished runs were not repeated');
    const j = EvalDoc.parse(JSON.parse(fs.readFileSync(json, 'utf8')));
    assert.deepEqual(
      j.instances.map((i) => i.instance),
      [...Array(8)].map((_, i) => `p${i}.cnf`),
    );
    const lines = fs
      .readFileSync(path.join(cacheHome, 'satlution', 'results', 'runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; result: { instance: string } });
    const mine = lines.filter((l) => /^p\d\.cnf$/.test(l.result.instance));
    assert.equal(new Set(mine.map((l) => l.key)).size, mine.length, 'no run stored twice');
    assert.equal(mine.length, 8);
  });

  it('does not benchmark an identical binary twice', () => {
    const set = makeSet(tempDir());
    const a = cadicalSolver(0, 'a');
    assert.equal(cli(['eval', a, '--bench', set, '--no-build', '--no-proofs']).code, 0);
    const b = path.join(tempDir(), 'b');
    fs.cpSync(a, b, { recursive: true });
    const r = cli(['eval', b, '--bench', set, '--no-build', '--no-proofs']);
    assert.equal(r.code, 0);
    assert.match(r.out, /\(5 results reused\)/);
  });

  it('smoke: a hang is a failure there, not just slowness', () => {
    const set = makeSet(tempDir());
    const r = cli([
      'eval',
      path.join(FIXTURES, 'liars', 'hang'),
      '--bench',
      set,
      '--stage',
      'smoke',
      '--timeout',
      '0.5',
      '--no-build',
      '--no-proofs',
      '--jobs',
      '2',
    ]);
    assert.equal(r.code, 1);
    assert.match(r.out, /✗ smoke +5 of 5 instances failed: no answer within 0\.5 s/);
  });

  it('rejects a malformed instance with its file and line (exit 2)', () => {
    const set = makeSet(tempDir());
    write(path.join(set, 'zz-bad.cnf'), 'p cnf 2 1\n1 5 0\n');
    const r = cli(['eval', cadicalSolver(), '--bench', set, '--no-build', '--no-proofs']);
    assert.equal(r.code, 2);
    assert.match(r.err, /zz-bad\.cnf:2: literal 5 is out of range \(the header declares 2 variables\)/);
  });

  it('rejects bad usage with exit 2', () => {
    assert.equal(cli(['eval']).code, 2);
    assert.match(cli(['eval', tempDir(), '--stage', 'fast']).err, /--stage must be smoke, verify, perf or all/);
    assert.match(cli(['eval', tempDir(), '--bench', '/no/such/set']).err, /benchmark set \/no\/such\/set is not a directory/);
    assert.match(cli(['eval', tempDir(), '--bench', tempDir(), '--timeout=-1']).err, /--timeout must be a positive number/);
  });
});
