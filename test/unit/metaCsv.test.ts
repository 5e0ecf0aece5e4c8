// meta.csv is where known answers come from, so a row that names nothing, two instances, or the same
// instance twice with different answers is an error with the file and line; and a verdict reached
// against an answer that has since been corrected is never reused. Names with commas, quotes or line
// breaks are quoted as CSV, and read back as written.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema } from '../../src/core/config/schema';
import { evaluateSolver } from '../../src/core/eval/service';
import { listSet } from '../../src/core/instances/instances';
import { planted3Sat } from '../../src/core/instances/generators';
import { formatMeta, MetaError, readMeta, recordDisputes } from '../../src/core/instances/metaCsv';
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

/** `text` as a set's meta.csv; the file's path. */
function metaFile(text: string): string {
  const dir = tempDir('meta-csv-');
  fs.writeFileSync(path.join(dir, 'meta.csv'), text);
  return path.join(dir, 'meta.csv');
}

describe('meta.csv as CSV: the one reader and writer', () => {
  it('reads back what it writes, names with commas, quotes and line breaks included', async () => {
    const names = ['plain.cnf', 'a,b.cnf', 'say "hi".cnf', 'two\nlines.cnf', ' spaced .cnf'];
    const file = metaFile(
      formatMeta(names.map((instance, i) => ({ instance, family: `f${i}`, expected: i % 2 ? 'SAT' : 'UNSAT', proved: i === 1 ? 'model' : null }))),
    );
    const rows = await readMeta(file);
    assert.deepEqual([...rows.keys()], names);
    assert.deepEqual(
      [...rows.values()].map((r) => [r.family, r.expected, r.proved]),
      [
        ['f0', 'UNSAT', null],
        ['f1', 'SAT', 'model'],
        ['f2', 'UNSAT', null],
        ['f3', 'SAT', null],
        ['f4', 'UNSAT', null],
      ],
    );
    // Each row says where it starts: the row after a two-line name starts a line later.
    assert.deepEqual(
      [...rows.values()].map((r) => Number(r.at.split(':').pop())),
      [2, 3, 4, 5, 7],
    );
  });

  it('reads CRLF files and blank lines, and names the line of a bad answer, an unclosed quote and text after a closing quote', async () => {
    const rows = await readMeta(metaFile('instance,family,expected\r\nx.cnf,f,sat\r\n\r\n"y,1.cnf" ,g,UNSAT\r\n'));
    assert.deepEqual(
      [...rows].map(([k, r]) => [k, r.family, r.expected]),
      [
        ['x.cnf', 'f', 'SAT'],
        ['y,1.cnf', 'g', 'UNSAT'],
      ],
    );
    await assert.rejects(readMeta(metaFile('instance,family,expected\nx.cnf,f,SAT\n"y.cnf,g,maybe\n')), (e: Error) => {
      assert.ok(e instanceof MetaError);
      assert.match(e.message, /meta\.csv:3: a quoted cell is not closed$/);
      return true;
    });
    await assert.rejects(readMeta(metaFile('instance,family,expected\n"x.cnf"y,f,SAT\n')), /meta\.csv:2: text after a quoted cell's closing quote$/);
    await assert.rejects(
      readMeta(metaFile('instance,family,expected\n"a\nb.cnf",f,SAT\nc.cnf,f,maybe\n')),
      /meta\.csv:4: expected must be SAT, UNSAT or empty, got "maybe"$/,
    );
  });

  it('records a dispute on a row whose name holds a comma, and keeps the other rows as they were', async () => {
    const file = metaFile(
      formatMeta([
        { instance: 'a,b.cnf', family: 'x', expected: 'SAT' },
        { instance: 'c.cnf', family: 'y', expected: 'UNSAT', proved: 'construction' },
      ]),
    );
    assert.deepEqual(await recordDisputes(path.dirname(file), [{ instance: 'a,b.cnf', claim: 'SAT', proved: 'UNSAT', by: 'drat' }]), ['a,b.cnf']);
    const rows = await readMeta(file);
    assert.deepEqual(rows.get('a,b.cnf'), { family: 'x', expected: 'UNSAT', proved: 'drat', disputed: 'SAT claimed', at: `${file}:2` });
    assert.equal(rows.get('c.cnf')?.proved, 'construction');
  });
});
