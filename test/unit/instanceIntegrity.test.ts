// Attacks on the instance a solver is given. The solver gets a private copy under a neutral name in a
// fresh directory: rewriting it into an easier formula gains nothing (the checks read the pristine
// instance), the benchmark stays intact, and nothing beside it (meta.csv) is there to read. The
// instance cache notices a rewrite even when the size and the mtime are put back.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema } from '../../src/core/config/schema';
import { InstanceCache } from '../../src/core/instances/instances';
import { planted3Sat } from '../../src/core/instances/generators';
import { evaluateSolver } from '../../src/core/eval/service';
import { tempDir, write } from './helpers';

/** A solver directory whose run script is `script` (bash; $1 is the instance, $2 the proof directory). */
function solver(script: string): string {
  const dir = tempDir();
  write(path.join(dir, 'starexec_build'), '#!/bin/sh\nexit 0\n');
  write(path.join(dir, 'bin', 'starexec_run_default'), `#!/usr/bin/env bash\n${script}\n`);
  fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  return dir;
}

/** The verify stage on one set, outside any workspace. */
async function verify(solverDir: string, set: string, sandbox: 'on' | 'off' = 'on') {
  const config = ConfigSchema.parse({ seeds: [{ name: 'none', source: '.' }], sandbox });
  return evaluateSolver({
    ws: undefined,
    config,
    solverDir,
    overrides: { stage: 'verify', bench: set, noProofs: true, jobs: 1 },
    runnerEnv: { workerFile: '' },
  });
}

describe('the instance a solver is given', function () {
  this.timeout(60000);

  it('rewriting it into a trivial formula gains nothing, and the benchmark is untouched', async () => {
    const set = tempDir();
    const cnf = write(path.join(set, 'planted.cnf'), planted3Sat(40, 4.0, 11));
    const before = fs.readFileSync(cnf, 'utf8');
    const liar = solver(`printf 'p cnf 1 1\\n1 0\\n' > "$1"\necho 's SATISFIABLE'\necho 'v 1 0'\nexit 10`);
    const r = await verify(liar, set);
    assert.equal(r.verdict, 'fail');
    const res = r.gates.find((g) => g.gate === 'verify')!.results![0]!;
    assert.equal(res.status, 'invalid_model', res.detail);
    assert.equal(fs.readFileSync(cnf, 'utf8'), before, 'the benchmark file was changed');
  });

  it('has a neutral name in a fresh directory of its own: no meta.csv beside it, nothing left from the last run', async () => {
    const set = tempDir();
    for (const s of [1, 2]) write(path.join(set, `php-secret-${s}.cnf`), planted3Sat(20, 4.0, s));
    write(path.join(set, 'meta.csv'), 'instance,family,expected\nphp-secret-1.cnf,x,SAT\nphp-secret-2.cnf,x,SAT\n');
    const seen = tempDir();
    // Notes what it can see beside its instance, leaves a file there, then gives up.
    const spy = solver(
      `ls -A "$(dirname "$1")" >> ${JSON.stringify(seen)}/seen\necho "$(basename "$1")" >> ${JSON.stringify(seen)}/names\ntouch "$(dirname "$1")/answer-cache"\necho 's UNKNOWN'\nexit 0`,
    );
    // Unconfined, so that it can report what it saw in a directory of the test's (the sandbox hides more: sandboxAttacks.test.ts).
    const r = await verify(spy, set, 'off');
    assert.equal(r.gates.find((g) => g.gate === 'verify')!.results!.length, 2);
    assert.deepEqual(fs.readFileSync(path.join(seen, 'names'), 'utf8').trim().split('\n'), ['instance.cnf', 'instance.cnf']);
    // Each run saw only its own instance (beside its private proof, home and tmp directories): no
    // meta.csv, no other instance, no cache left by the previous run.
    const lines = fs.readFileSync(path.join(seen, 'seen'), 'utf8').trim().split('\n');
    assert.deepEqual(
      lines.filter((l) => !['home', 'tmp', 'proof'].includes(l)),
      ['instance.cnf', 'instance.cnf'],
    );
  });

  it('the instance cache notices a rewrite that keeps the size and puts the mtime back', async () => {
    const set = tempDir();
    const cnf = write(path.join(set, 'a.cnf'), 'p cnf 2 1\n1 2 0\n');
    const cache = new InstanceCache(tempDir());
    const first = await cache.prepare(cnf);
    const st = fs.statSync(cnf);
    const ns = fs.statSync(cnf, { bigint: true }).mtimeNs;
    fs.writeFileSync(cnf, 'p cnf 2 1\n1 -2 0\n'.slice(0, st.size).padEnd(st.size, ' '));
    // The old mtime to the nanosecond, as an attacker would set it back.
    const touched = spawnSync('touch', ['-m', '-d', `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`, cnf]);
    assert.equal(touched.status, 0, String(touched.stderr));
    assert.equal(fs.statSync(cnf).size, st.size);
    assert.equal(fs.statSync(cnf).mtimeMs, st.mtimeMs);
    const second = await cache.prepare(cnf);
    assert.notEqual(second.hash, first.hash);
  });
});

describe('evidence before expected answers', function () {
  this.timeout(60000);
  /** A set of one satisfiable formula whose meta.csv says `meta`, as a claim or (with `proved`) proved here. */
  const plantedSaying = (meta: string, proved = '') => {
    const set = tempDir();
    write(path.join(set, 'planted.cnf'), planted3Sat(40, 4.0, 12));
    write(path.join(set, 'meta.csv'), `instance,family,expected,proved\nplanted.cnf,x,${meta},${proved}\n`);
    return set;
  };

  it('a checked model beats a wrong claim in meta.csv: the honest solver is solved, and the claim is marked disputed there', async function () {
    if (spawnSync('cadical', ['--version']).status !== 0) this.skip();
    const set = plantedSaying('UNSAT');
    const honest = solver('exec cadical -q "$1"');
    const r = await verify(honest, set);
    const res = r.gates.find((g) => g.gate === 'verify')!.results![0]!;
    assert.equal(res.status, 'solved', res.detail);
    assert.match(res.detail, /SAT proven on planted\.cnf \(the model checks\), although meta\.csv says UNSAT: the claim is marked disputed in meta\.csv/);
    assert.deepEqual(res.disputed, { claim: 'UNSAT', by: 'model' });
    assert.equal(fs.readFileSync(path.join(set, 'meta.csv'), 'utf8'), 'instance,family,expected,proved,disputed\nplanted.cnf,x,SAT,model,UNSAT claimed\n');
    // Proved now: a liar that answers UNSAT there is wrong at once.
    const again = await verify(solver("echo 's UNSATISFIABLE'\nexit 20"), set);
    assert.equal(again.gates.find((g) => g.gate === 'verify')!.results![0]!.status, 'wrong');
  });

  it('an answer against an answer proved here, without evidence, is still wrong', async () => {
    const set = plantedSaying('SAT', 'model');
    const liar = solver("echo 's UNSATISFIABLE'\nexit 20");
    const r = await verify(liar, set);
    const res = r.gates.find((g) => g.gate === 'verify')!.results![0]!;
    assert.equal(res.status, 'wrong', res.detail);
    assert.match(res.detail, /UNSAT claimed on planted\.cnf, but it is SAT \(meta\.csv\)/);
  });

  it('an answer against an unproved claim that nothing here can check decides nothing: unsolved, not failed, the claim kept', async () => {
    const set = plantedSaying('SAT');
    const before = fs.readFileSync(path.join(set, 'meta.csv'), 'utf8');
    const r = await verify(solver("echo 's UNSATISFIABLE'\nexit 20"), set);
    const res = r.gates.find((g) => g.gate === 'verify')!.results![0]!;
    assert.equal(res.status, 'unknown', res.detail);
    assert.match(res.detail, /UNSAT claimed on planted\.cnf, against meta\.csv's unproved claim SAT; it wrote no proof to check: counted as unsolved/);
    assert.equal(fs.readFileSync(path.join(set, 'meta.csv'), 'utf8'), before);
  });
});
