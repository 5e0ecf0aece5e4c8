// The trust anchor: every broken or lying solver is caught with the right status, and an honest
// one passes with every check ok. Real cadical and real drat-trim.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import type { RunStatus } from '../../src/core/run/result';
import { runInstance, type InstanceRunRequest } from '../../src/core/run/runInstance';
import { checkKeptProof } from '../../src/core/run/keptProof';
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

  it('never checks a proof over the size limit: the answer counts as unsolved (a resource limit), not as a lie', async () => {
    const u = await run('honest', 'unsat', { maxProofMb: 1e-6 });
    assert.equal(u.status, 'unknown');
    assert.match(
      u.detail,
      /UNSAT claimed on php-6-5\.cnf, but its proof is \d+ KB, over the 0\.000001 MB limit \(evaluation\.proof_max_mb\): not checked, counted as unsolved/,
    );
  });

  it('stops a run whose proof grows past the limit while it runs', async () => {
    const dir = path.join(tempDir(), 'proof-flood');
    fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
    // Writes a megabyte of proof at a time, for ever.
    fs.writeFileSync(path.join(dir, 'bin', 'starexec_run_default'), '#!/bin/sh\nwhile :; do head -c 1048576 /dev/zero >> "$2/proof.out"; done\n', {
      mode: 0o755,
    });
    const t0 = Date.now();
    const r = await runInstance({
      solverDir: dir,
      name: 'php-6-5.cnf',
      cnf: unsat,
      vars: 30,
      family: null,
      expected: null,
      expectedFrom: 'none',
      timeoutS: 60,
      memMb: 1024,
      checkProofs: false,
      maxProofMb: 8,
      checkerTimeoutS: 30,
    });
    assert.equal(r.status, 'unknown', r.detail);
    assert.match(r.detail, /^stopped: its proof grew past the 8 MB limit \(evaluation\.proof_max_mb\) on php-6-5\.cnf after [\d.]+ s$/);
    assert.ok(Date.now() - t0 < 30000, `stopped after ${Date.now() - t0} ms, not at the 60 s timeout`);
  });

  describe('where perf keeps proofs for its audits (requireProofs)', () => {
    const keep = (hold: string | null, keepAs?: string): Partial<InstanceRunRequest> => ({
      checkProofs: false,
      requireProofs: { hold },
      ...(keepAs ? { keepAs } : {}),
    });

    it('keeps the proof of an UNSAT answer where it is told, unchecked, with its size; the check of that kept proof verifies it', async () => {
      const kept = path.join(tempDir(), 'hold', 'ab12cd34ef56ab78.proof');
      const u = await run('honest', 'unsat', keep('hold', kept));
      assert.deepEqual([u.status, u.answer, u.check.kind, u.check.ok], ['solved', 'UNSAT', 'none', null], u.detail);
      assert.ok(u.proof && u.proof.bytes > 0 && fs.statSync(kept).size === u.proof.bytes, JSON.stringify(u.proof));
      const checked = await checkKeptProof({ result: u, cnf: unsat, proof: kept, dratTrim: DRAT_TRIM!, checkerTimeoutS: 30, maxProofMb: 100 });
      assert.deepEqual([checked.status, checked.check.kind, checked.check.ok, checked.time_s], ['solved', 'drat', true, u.time_s]);
      // A SAT answer keeps nothing: its model was checked in the run.
      const s = await run('honest', 'sat', keep('hold', path.join(tempDir(), 'sat.proof')));
      assert.deepEqual([s.status, s.check.kind, s.check.ok, s.proof], ['solved', 'model', true, undefined]);
    });

    it('an UNSAT answer whose run wrote no proof is missing_proof at once; a bogus one is caught when its kept proof is checked', async () => {
      for (const [liar, what] of [
        ['unsat-without-proof', /no proof\.out written/],
        ['always-unsat', /proof\.out is empty/],
      ] as const) {
        const r = await run(liar, 'unsat', keep(null));
        assert.equal(r.status, 'missing_proof', r.detail);
        assert.match(r.detail, what);
        assert.match(r.detail, /every UNSAT answer in this stage must come with the DRAT proof its own run writes/);
      }
      const kept = path.join(tempDir(), 'hold', '0123456789abcdef.proof');
      const b = await run('bogus-proof', 'unsat', keep('hold', kept));
      assert.equal(b.status, 'solved', 'nothing checked while it ran');
      const checked = await checkKeptProof({ result: b, cnf: unsat, proof: kept, dratTrim: DRAT_TRIM!, checkerTimeoutS: 30, maxProofMb: 100 });
      assert.deepEqual([checked.status, checked.check.ok], ['invalid_proof', false]);
      assert.match(checked.detail, /^UNSAT claimed on php-6-5\.cnf, proof rejected by drat-trim .*\(the proof its own run wrote\)$/);
      // A kept proof that is gone proves nothing: not a lie, but not proved either, so the answer counts as unsolved.
      fs.rmSync(kept);
      const gone = await checkKeptProof({ result: b, cnf: unsat, proof: kept, dratTrim: DRAT_TRIM!, checkerTimeoutS: 30, maxProofMb: 100 });
      assert.deepEqual([gone.status, gone.check.ok], ['unknown', null]);
      assert.match(gone.check.detail, /no longer kept/);
      assert.match(gone.detail, /not proved, counted as unsolved$/);
    });
  });

  it('counts an UNSAT answer whose proof cannot be checked in time as unsolved, not wrong', async () => {
    const dir = tempDir();
    const hard = path.join(dir, 'php-10-9.cnf');
    fs.writeFileSync(hard, pigeonhole(10, 9)); // cadical ~4 s, drat-trim ~5 s
    const u = await run('honest', 'unsat', { cnf: hard, name: 'php-10-9.cnf', vars: 90, timeoutS: 60, checkerTimeoutS: 1 });
    assert.equal(u.status, 'unknown', u.detail);
    assert.match(u.detail, /its proof was not verified: drat-trim did not finish within its 1 s of CPU time .*not proved, counted as unsolved$/);
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
