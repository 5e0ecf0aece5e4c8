// The workspace model on a real solver source tree: kissat's upstream tarball (fetched from Debian by
// scripts/fetch-solver-source.sh into a cache; never committed).
import { newCandidate } from '../../src/core/workspace/newCandidate';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runSolver } from '../../src/core/run/runSolver';
import { SignatureLog } from '../../src/core/rules/postmortem';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { CLI, FIXTURES, tempDir, WORKER, write } from './helpers';

const SRC = process.env.SATLUTION_KISSAT_SRC;

describe('real solver: kissat', function () {
  this.timeout(240000);
  let ws: string;
  let cand: string;

  before(function () {
    if (!SRC || !fs.existsSync(path.join(SRC, 'configure'))) {
      if (process.env.CI) throw new Error('SATLUTION_KISSAT_SRC is not a kissat source tree; scripts/fetch-solver-source.sh kissat should have provided it');
      this.skip();
    }
    ws = tempDir();
    cand = path.join(ws, 'SATLUTION_0');
  });

  it('satlution init --seed kissat=<dir> then status', () => {
    const init = spawnSync(process.execPath, [CLI, 'init', '--dir', ws, '--seed', `kissat=${SRC}`], { encoding: 'utf8' });
    assert.equal(init.status, 0, init.stderr);
    assert.match(init.stderr, /Wrote seeds\/kissat\/starexec_build \(seed had none; build system: configure\)/);
    const st = JSON.parse(execFileSync(process.execPath, [CLI, 'status', '--json', '--dir', ws], { encoding: 'utf8' })) as {
      champion: string;
      candidates: { dir: string; status: string }[];
    };
    assert.equal(st.champion, 'SATLUTION_0');
    assert.deepEqual(
      st.candidates.map((c) => [c.dir, c.status]),
      [['SATLUTION_0', 'seed']],
    );
    assert.ok(fs.existsSync(path.join(cand, 'src', 'kissat.h')));
  });

  it('SATLUTION_0 builds with the generated starexec_build', () => {
    const out = execFileSync('bash', ['starexec_build'], { cwd: cand, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(out, /starexec_build: bin\/kissat <- \.\/build\/kissat/);
    assert.ok(fs.statSync(path.join(cand, 'bin', 'kissat')).mode & 0o100);
  });

  it('answers through bin/starexec_run_default and writes a DRAT proof for UNSAT', async () => {
    const proofDir = tempDir();
    const unsat = await runSolver({ solverDir: cand, cnf: path.join(cand, 'test', 'cnf', 'full4.cnf'), proofDir, timeoutS: 30 });
    assert.deepEqual([unsat.answer, unsat.exitCode, unsat.answers.length], ['UNSAT', 20, 1]);
    assert.ok(fs.statSync(path.join(proofDir, 'proof.out')).size > 0, 'no proof written');
    const sat = await runSolver({ solverDir: cand, cnf: path.join(FIXTURES, 'cnf', 'sat-small.cnf'), timeoutS: 30 });
    assert.deepEqual([sat.answer, sat.exitCode], ['SAT', 10]);
  });

  it('satlution eval SATLUTION_0 --bench <verify set> --json: correct results, checks and metrics', () => {
    const set = tempDir();
    let meta = 'instance,family,expected\n';
    for (const [p, h] of [
      [7, 6],
      [8, 7],
    ] as const) {
      write(path.join(set, `php-${p}-${h}.cnf`), pigeonhole(p, h));
      meta += `php-${p}-${h}.cnf,pigeonhole,UNSAT\n`;
    }
    for (const s of [1, 2]) {
      write(path.join(set, `planted-${s}.cnf`), planted3Sat(150, 4.2, s));
      meta += `planted-${s}.cnf,planted,SAT\n`;
    }
    write(path.join(set, 'meta.csv'), meta);
    // A multiplier miter from berkeley-abc: an equivalence check, UNSAT, written by no one here.
    const abc = spawnSync(
      'berkeley-abc',
      [
        '-q',
        'gen -m -N 6 m.blif; read m.blif; strash; dc2; if -K 4; strash; dch; if -K 6; strash; write_blif r.blif; miter m.blif r.blif; write_cnf miter-6.cnf',
      ],
      { cwd: set },
    );
    if (abc.status !== 0 || !fs.existsSync(path.join(set, 'miter-6.cnf')))
      throw new Error('berkeley-abc could not generate a miter (scripts/setup-sat-tools.sh installs it)');
    for (const f of ['m.blif', 'r.blif']) fs.rmSync(path.join(set, f), { force: true });
    fs.appendFileSync(path.join(set, 'meta.csv'), 'miter-6.cnf,miter,UNSAT\n');
    fs.copyFileSync(path.join(cand, 'test', 'cnf', 'add8.cnf'), path.join(set, 'add8.cnf'));
    execFileSync('xz', [path.join(set, 'add8.cnf')]); // SAT Competition instances come as .xz
    fs.copyFileSync(path.join(cand, 'test', 'cnf', 'prime4.cnf'), path.join(set, 'prime4.cnf'));
    execFileSync('gzip', [path.join(set, 'prime4.cnf')]);
    const json = path.join(tempDir(), 'r.json');
    const r = spawnSync(process.execPath, [CLI, 'eval', cand, '--bench', set, '--json', json], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const j = JSON.parse(fs.readFileSync(json, 'utf8')) as {
      verdict: string;
      instances: { instance: string; status: string; answer: string; check: { kind: string; ok: boolean } }[];
      metrics: { n: number; solved: number; wrong: number };
    };
    assert.equal(j.verdict, 'pass');
    assert.deepEqual(
      j.instances.map((i) => [i.instance, i.answer, i.status, i.check.kind, i.check.ok]),
      [
        ['add8.cnf.xz', 'UNSAT', 'solved', 'drat', true],
        ['miter-6.cnf', 'UNSAT', 'solved', 'drat', true],
        ['php-7-6.cnf', 'UNSAT', 'solved', 'drat', true],
        ['php-8-7.cnf', 'UNSAT', 'solved', 'drat', true],
        ['planted-1.cnf', 'SAT', 'solved', 'model', true],
        ['planted-2.cnf', 'SAT', 'solved', 'model', true],
        ['prime4.cnf.gz', 'SAT', 'solved', 'model', true],
      ],
    );
    assert.deepEqual([j.metrics.n, j.metrics.solved, j.metrics.wrong], [7, 7, 0]);
  });

  it("a broken kissat copy fails the build gate with gcc's diagnostics, recorded as a failure signature", async () => {
    // As a cycle makes it: a copy of the built champion; the link its configure made points into the copy, relatively (it survives a move).
    const rec = await newCandidate(ws, { parent: 0 });
    const broken = path.join(ws, rec.dir);
    assert.equal(fs.readlinkSync(path.join(broken, 'src', 'makefile')), '../makefile', 'the link points into the copy');
    const search = path.join(broken, 'src', 'search.c');
    fs.writeFileSync(search, fs.readFileSync(search, 'utf8').replace(/\bint\s+kissat_search\s*\(/, 'int kissat_search (undeclared_type x, '));
    const r = spawnSync(process.execPath, [CLI, 'eval', broken, '--stage', 'smoke', '--no-proofs', '--no-rules'], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /✗ build +build failed \(exit \d+, \d+ errors?\) — src\/search\.c:\d+: /);
    const sigs = await new SignatureLog(ws).all();
    assert.ok(
      sigs.some((s) => s.candidate === 'SATLUTION_1' && s.kind === 'build' && /search\.c:\d+/.test(s.example)),
      JSON.stringify(sigs),
    );
  });

  it('the worker stops a run at its timeout and kills the whole process group', () => {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [WORKER, '--solver', cand, '--cnf', path.join(cand, 'test', 'cnf', 'hard.cnf'), '--timeout', '1'], {
      encoding: 'utf8',
    });
    const wall = (Date.now() - t0) / 1000;
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { status: string; answer: string | null; time_s: number; signal: string | null };
    assert.equal(j.status, 'timeout');
    assert.equal(j.answer, null);
    assert.ok(j.time_s >= 1 && wall < 6, `took ${wall} s`);
    const left = spawnSync('pgrep', ['-f', path.join(cand, 'bin', 'kissat')], { encoding: 'utf8' }).stdout.trim();
    assert.equal(left, '', 'a solver process outlived its timeout');
  });
});
