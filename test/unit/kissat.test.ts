// The workspace model on a real solver source tree: kissat's upstream tarball (fetched from Debian by
// scripts/fetch-solver-source.sh into a cache; never committed).
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runSolver } from '../../src/core/eval/runSolver';
import { CLI, FIXTURES, tempDir, WORKER } from './helpers';

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
    const st = JSON.parse(execFileSync(process.execPath, [CLI, 'status', '--json', '--dir', ws], { encoding: 'utf8' })) as { champion: string; candidates: { dir: string; status: string }[] };
    assert.equal(st.champion, 'SATLUTION_0');
    assert.deepEqual(st.candidates.map((c) => [c.dir, c.status]), [['SATLUTION_0', 'seed']]);
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

  it('the worker stops a run at its timeout and kills the whole process group', () => {
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [WORKER, '--solver', cand, '--cnf', path.join(cand, 'test', 'cnf', 'hard.cnf'), '--timeout', '1'], { encoding: 'utf8' });
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
