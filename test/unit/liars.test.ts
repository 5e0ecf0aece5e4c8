// The trust anchor: every broken or lying solver is caught with the right status, and an honest
// one passes with every check ok. Real cadical and real drat-trim.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import type { RunStatus } from '../../src/core/run/result';
import { runInstance, type InstanceRunRequest } from '../../src/core/run/runInstance';
import { FIXTURES, tempDir } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;
const LIARS = path.join(FIXTURES, 'liars');

describe('evaluator: lying and broken solvers', function () {
  this.timeout(60000);
  let sat: string;
  let unsat: string;
  let solvers: string;

  before(function () {
    if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
      this.skip();
    }
    const dir = tempDir();
    sat = path.join(dir, 'planted-60.cnf');
    unsat = path.join(dir, 'php-6-5.cnf');
    fs.writeFileSync(sat, planted3Sat(60, 4.0, 7));
    fs.writeFileSync(unsat, pigeonhole(6, 5));
    solvers = path.join(dir, 'solvers');
    fs.cpSync(LIARS, solvers, { recursive: true });
    execFileSync('cc', ['-O1', '-o', path.join(solvers, 'memory-hog', 'bin', 'hog'), path.join(solvers, 'memory-hog', 'hog.c')]);
  });

  const run = (solver: string, which: 'sat' | 'unsat', extra: Partial<InstanceRunRequest> = {}) =>
    runInstance({
      solverDir: path.join(solvers, solver),
      name: which === 'sat' ? 'planted-60.cnf' : 'php-6-5.cnf',
      cnf: which === 'sat' ? sat : unsat,
      vars: which === 'sat' ? 60 : 30,
      family: null,
      expected: null,
      expectedFrom: 'none',
      timeoutS: 10,
      memMb: 1024,
      checkProofs: true,
      dratTrim: DRAT_TRIM!,
      maxProofMb: 100,
      checkerTimeoutS: 30,
      ...extra,
    });

  it('an honest solver passes with every check ok', async () => {
    const s = await run('honest', 'sat');
    assert.deepEqual([s.status, s.answer, s.check.kind, s.check.ok, s.exit_code], ['solved', 'SAT', 'model', true, 10]);
    const u = await run('honest', 'unsat');
    assert.deepEqual([u.status, u.answer, u.check.kind, u.check.ok, u.exit_code], ['solved', 'UNSAT', 'drat', true, 20]);
    assert.ok(u.mem_mb !== null && u.mem_mb > 0, 'peak memory measured');
  });

  it('checks text DRAT as well as binary DRAT', async () => {
    const u = await run('honest-text-proof', 'unsat');
    assert.deepEqual([u.status, u.check.kind, u.check.ok], ['solved', 'drat', true], u.detail);
  });

  it('rejects a proof over the size cap without checking it', async () => {
    const u = await run('honest', 'unsat', { maxProofMb: 1e-6 });
    assert.equal(u.status, 'invalid_proof');
    assert.match(u.detail, /the proof is \d+ KB, over the 0\.000001 MB cap/);
  });

  it('counts an UNSAT answer whose proof cannot be checked in time as unsolved, not wrong', async () => {
    const dir = tempDir();
    const hard = path.join(dir, 'php-10-9.cnf');
    fs.writeFileSync(hard, pigeonhole(10, 9)); // cadical ~4 s, drat-trim ~5 s
    const u = await run('honest', 'unsat', { cnf: hard, name: 'php-10-9.cnf', vars: 90, timeoutS: 60, checkerTimeoutS: 1 });
    assert.equal(u.status, 'unknown', u.detail);
    assert.match(u.detail, /the proof could not be checked in time/);
    assert.equal(u.check.ok, null);
  });

  it('accepts a formula that contains the empty clause (drat-trim exits 1 but verifies it)', async () => {
    const f = path.join(tempDir(), 'false.cnf');
    fs.writeFileSync(f, 'p cnf 0 1\n0\n');
    const r = await run('honest', 'unsat', { cnf: f, name: 'false.cnf', vars: 0, emptyClause: true });
    assert.deepEqual([r.status, r.check.ok], ['solved', true], r.detail);
  });

  const cases: [string, 'sat' | 'unsat', RunStatus, RegExp, Partial<InstanceRunRequest>?][] = [
    ['wrong-model', 'sat', 'invalid_model', /SAT claimed on planted-60\.cnf, model rejected: clause \d+ \(line \d+: .*\) is not satisfied/],
    ['sat-without-model', 'sat', 'invalid_model', /SAT claimed without a model \(no v lines\)/],
    ['unsat-without-proof', 'unsat', 'missing_proof', /UNSAT claimed on php-6-5\.cnf without a proof: .*no proof\.out written/],
    ['always-unsat', 'unsat', 'missing_proof', /proof\.out is empty/],
    ['bogus-proof', 'unsat', 'invalid_proof', /UNSAT claimed on php-6-5\.cnf, proof rejected by drat-trim/],
    ['always-unsat', 'sat', 'wrong', /UNSAT claimed on planted-60\.cnf, but it is SAT \(meta\.csv\)/, { expected: 'SAT', expectedFrom: 'meta' }],
    ['crash-after-answer', 'unsat', 'crash', /segfault \(SIGSEGV\) on php-6-5\.cnf after \d+\.\d+ s \(after printing s UNSAT\)/],
    ['hang', 'sat', 'timeout', /no answer within 1 s on planted-60\.cnf/, { timeoutS: 1 }],
    ['ignores-sigterm', 'sat', 'timeout', /no answer within 1 s/, { timeoutS: 1 }],
    ['memory-hog', 'sat', 'memout', /exceeded 200 MB on planted-60\.cnf/, { memMb: 200 }],
    ['garbage', 'sat', 'invalid_model', /SAT claimed without a model/],
    ['two-answers', 'sat', 'wrong', /printed both s SATISFIABLE and s UNSATISFIABLE/],
    ['bad-exit-code', 'sat', 'crash', /printed s SAT but exited with code 0 \(expected 10\)/],
  ];
  for (const [solver, which, status, detail, extra] of cases)
    it(`${solver} on a${which === 'sat' ? ' SAT' : 'n UNSAT'} instance -> ${status}`, async () => {
      const t0 = Date.now();
      const r = await run(solver, which, extra);
      assert.equal(r.status, status, r.detail);
      assert.match(r.detail, detail);
      assert.ok(Date.now() - t0 < 8000, 'caught promptly');
    });

  it('leaves no process behind, even one that ignores SIGTERM', async () => {
    await run('ignores-sigterm', 'sat', { timeoutS: 1 });
    // Killed processes leave as the kernel gets to them: on a loaded machine that can take a moment, so
    // wait for them (a process left behind never goes; 10 s is far beyond any exit).
    let left = '';
    for (const deadline = Date.now() + 10000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      left = spawnSync('pgrep', ['-f', 'satlution-liar-marker'], { encoding: 'utf8' }).stdout.trim();
      if (!left) break;
    }
    assert.equal(left, '', `still running: ${left}`);
  });

  it('the memory cap also works through RLIMIT_AS where cgroups are not available', async () => {
    const r = await run('memory-hog', 'sat', { memMb: 200, memoryMethod: 'rlimit' });
    assert.equal(r.status, 'memout', r.detail);
  });
});
