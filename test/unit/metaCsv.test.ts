// meta.csv is where known answers come from, so a row that names nothing, two instances, or the same
// instance twice with different answers is an error with the file and line; and a verdict reached
// against an answer that has since been corrected is never reused.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema } from '../../src/core/config/schema';
import { evaluateSolver } from '../../src/core/eval/service';
import { listSet } from '../../src/core/instances/instances';
import { planted3Sat } from '../../src/core/instances/generators';
import { FIXTURES, tempDir, write } from './helpers';

const set = (meta: string, files: string[] = ['a.cnf', 'sub/b.cnf']) => {
  const dir = tempDir();
  for (const f of files) write(path.join(dir, f), planted3Sat(10, 4.0, f.length));
  write(path.join(dir, 'meta.csv'), `instance,family,expected\n${meta}`);
  return dir;
};

describe('meta.csv', () => {
  it('applies rows by path in the set, or by a file name that is unique', async () => {
    const dir = set('a.cnf,x,SAT\nb.cnf,y,UNSAT\n');
    assert.deepEqual(
      (await listSet(dir)).map((s) => [s.name, s.family, s.expected]),
      [
        ['a.cnf', 'x', 'SAT'],
        ['sub/b.cnf', 'y', 'UNSAT'],
      ],
    );
  });

  it('rejects a row that names no instance of the set (a typo would leave one without its answer)', async () => {
    await assert.rejects(listSet(set('a.cnf,x,SAT\nc.cnf,y,UNSAT\n')), /meta\.csv:3: names c\.cnf, which is not in the set/);
  });

  it('rejects a file name that matches instances in two folders', async () => {
    await assert.rejects(
      listSet(set('b.cnf,y,UNSAT\n', ['a.cnf', 'one/b.cnf', 'two/b.cnf'])),
      /meta\.csv:2: b\.cnf matches one\/b\.cnf and two\/b\.cnf: name each by its path in the set/,
    );
    const ok = await listSet(set('one/b.cnf,y,UNSAT\ntwo/b.cnf,z,SAT\n', ['a.cnf', 'one/b.cnf', 'two/b.cnf']));
    assert.deepEqual(
      ok.map((s) => s.expected),
      [null, 'UNSAT', 'SAT'],
    );
  });

  it('rejects the same instance listed twice with different answers, and allows an identical repeat', async () => {
    await assert.rejects(
      listSet(set('a.cnf,x,SAT\na.cnf,x,UNSAT\n')),
      /meta\.csv:3: a\.cnf is listed again, differently from .*meta\.csv:2 \(SAT, family x\): keep one row/,
    );
    assert.equal((await listSet(set('a.cnf,x,SAT\na.cnf,x,SAT\n'))).length, 2);
  });

  it('a corrected answer is measured again: the stale verdict is not reused', async function () {
    this.timeout(60000);
    const dir = tempDir();
    fs.copyFileSync(path.join(FIXTURES, 'cnf', 'unsat-small.cnf'), path.join(dir, 'u.cnf'));
    write(path.join(dir, 'meta.csv'), 'instance,family,expected,proved\nu.cnf,tiny,SAT,model\n'); // a mistake, said to be proved
    // A solver that answers UNSAT (proofs are not checked here): right, but meta.csv says otherwise.
    const solver = tempDir();
    write(path.join(solver, 'starexec_build'), '#!/bin/sh\nexit 0\n');
    write(path.join(solver, 'bin', 'starexec_run_default'), '#!/bin/sh\necho "s UNSATISFIABLE"\nexit 20\n');
    fs.chmodSync(path.join(solver, 'bin', 'starexec_run_default'), 0o755);
    const config = ConfigSchema.parse({ seeds: [{ name: 'none', source: '.' }] });
    const cache = tempDir();
    const run = () =>
      evaluateSolver({
        ws: undefined,
        config,
        solverDir: solver,
        overrides: { stage: 'verify', bench: dir, noProofs: true, jobs: 1 },
        runnerEnv: { workerFile: '' },
      });
    const prev = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cache; // one results store for both evaluations
    try {
      const first = await run();
      assert.equal(first.gates.find((g) => g.gate === 'verify')!.results![0]!.status, 'wrong');
      write(path.join(dir, 'meta.csv'), 'instance,family,expected,proved\nu.cnf,tiny,UNSAT,drat\n');
      const second = await run();
      const r = second.gates.find((g) => g.gate === 'verify')!;
      assert.equal(r.results![0]!.status, 'solved', r.results![0]!.detail);
      assert.equal(r.reused, 0);
    } finally {
      if (prev === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = prev;
    }
  });
});
