import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { DimacsParser, readDimacs, type ClauseSink } from '../../src/core/instances/dimacs';
import { checkModel, ModelBuilder } from '../../src/core/run/modelCheck';
import { SolverOutputParser } from '../../src/core/run/output';
import { tempDir } from './helpers';

const CNF = 'c comment\np cnf 3 3\n1 -2 0\n2 3 0\n-1 -3 0\n';

async function errorOf(text: string): Promise<string> {
  const f = path.join(tempDir(), 'bad.cnf');
  fs.writeFileSync(f, text);
  try {
    await readDimacs(f);
  } catch (e) {
    return (e as Error).message.replace(f, 'bad.cnf');
  }
  return 'no error';
}

/** A sink that collects the clauses it is told of. */
function collect(clauses: number[][]): ClauseSink {
  let clause: number[] = [];
  return {
    literal: (l) => clause.push(l),
    clauseEnd: () => {
      clauses.push(clause);
      clause = [];
    },
  };
}

const model = (...lits: number[]) => {
  const m = new ModelBuilder();
  for (const l of lits) m.add(l);
  return m;
};

describe('DIMACS: streaming reader', () => {
  it('reads clauses, comments, and a SATLIB "%" terminator', async () => {
    const f = path.join(tempDir(), 'a.cnf');
    fs.writeFileSync(f, CNF + '%\n0\n\n');
    const clauses: number[][] = [];
    const s = await readDimacs(f, collect(clauses));
    assert.deepEqual(clauses, [
      [1, -2],
      [2, 3],
      [-1, -3],
    ]);
    assert.deepEqual([s.vars, s.clauses], [3, 3]);
  });

  it('parses the same across any chunk boundaries', () => {
    const text = Buffer.from('c x\np cnf 4 3\n1 -2\n 3 0\nc mid\n-4 0 2\n0\n');
    for (let cut = 1; cut < text.length; cut++) {
      const got: number[][] = [];
      const p = new DimacsParser('x', collect(got));
      p.push(text.subarray(0, cut));
      p.push(text.subarray(cut));
      p.end();
      assert.deepEqual(got, [[1, -2, 3], [-4], [2]], `cut at ${cut}`);
    }
  });

  it('reads strictly the same across any chunk boundaries: the clauses echoed as written, the largest variable, a number of over ten digits refused', () => {
    /** The strict parse of `text` cut at `cut`, echoed through a buffer small enough to be flushed often. */
    const strict = (text: Buffer, cut: number) => {
      const flushed: Buffer[] = [];
      const echo = {
        buf: Buffer.alloc(2 * 10 + 8),
        n: 0,
        ends: new Int32Array(14),
        e: 0,
        flush() {
          // GBD's normal form as written, with each clause's end made a line break.
          const block = Buffer.from(echo.buf.subarray(0, echo.n));
          for (let i = 0; i < echo.e; i++) block[echo.ends[i]!] = 0x0a;
          flushed.push(block);
          echo.n = 0;
          echo.e = 0;
        },
      };
      const p = new DimacsParser('x', {}, { strict: true, echo });
      p.push(text.subarray(0, cut));
      p.push(text.subarray(cut));
      const s = p.end();
      echo.flush();
      return { echo: Buffer.concat(flushed).toString(), maxVar: p.maxVar, clauses: s.clauses };
    };
    const good = Buffer.from('c x\np cnf 20 3\n1 -02  3 0\n\t-12 0\n0000000007 0\n');
    for (let cut = 0; cut <= good.length; cut++)
      assert.deepEqual(strict(good, cut), { echo: '1 -02 3 0\n-12 0\n0000000007 0\n', maxVar: 12, clauses: 3 }, `cut at ${cut}`);
    const long = Buffer.from('p cnf 3 1\n1 00000000003 0\n');
    for (let cut = 0; cut <= long.length; cut++) assert.throws(() => strict(long, cut), /x:2: a number of more than 10 digits/, `cut at ${cut}`);
    // A literal written -0 is refused also where it ends the file, with no blank after it.
    const minusZero = Buffer.from('p cnf 2 1\n1 -0');
    for (let cut = 0; cut <= minusZero.length; cut++) assert.throws(() => strict(minusZero, cut), /x:2: a literal written -0/, `cut at ${cut}`);
    // Read leniently (a local set), leading zeros are only a number's spelling.
    const lenient = Buffer.from('p cnf 3 1\n000000000000000000003 -1 0\n');
    for (let cut = 0; cut <= lenient.length; cut++) {
      const got: number[][] = [];
      const p = new DimacsParser('x', collect(got));
      p.push(lenient.subarray(0, cut));
      p.push(lenient.subarray(cut));
      p.end();
      assert.deepEqual(got, [[3, -1]], `cut at ${cut}`);
    }
  });

  it('reads .cnf.gz and .cnf.xz by their content', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'a.cnf.gz'), zlib.gzipSync(CNF));
    fs.writeFileSync(path.join(dir, 'b.cnf'), CNF);
    execFileSync('xz', ['-k', path.join(dir, 'b.cnf')]);
    for (const f of ['a.cnf.gz', 'b.cnf.xz']) assert.equal((await readDimacs(path.join(dir, f))).clauses, 3);
  });

  it('names the file and line of malformed input', async () => {
    assert.equal(await errorOf('p cnf 3\n1 0\n'), 'bad.cnf:1: bad header "p cnf 3"; expected "p cnf VARS CLAUSES"');
    assert.equal(await errorOf('1 2 0\n'), 'bad.cnf:1: clauses before the "p cnf VARS CLAUSES" header');
    assert.equal(await errorOf('p cnf 2 1\n1 3 0\n'), 'bad.cnf:2: literal 3 is out of range (the header declares 2 variables)');
    assert.equal(await errorOf('p cnf 2 3\n1 0\n2 0\n'), 'bad.cnf:3: the header declares 3 clauses but the file has 2 (truncated?)');
    assert.equal(await errorOf('p cnf 2 1\n1 0\n2 0\n'), 'bad.cnf:3: more clauses than the 1 the header declares');
    assert.equal(await errorOf('p cnf 2 2\n1 0\n2 -1'), 'bad.cnf:3: truncated: the last clause has no terminating 0');
    assert.equal(await errorOf('p cnf 2 1\n1 x 0\n'), 'bad.cnf:2: unexpected character "x"');
    assert.equal(await errorOf(''), 'bad.cnf:1: no "p cnf VARS CLAUSES" header (empty or not a DIMACS file)');
  });

  it('reports a corrupt compressed file clearly', async () => {
    const f = path.join(tempDir(), 'c.cnf.xz');
    fs.writeFileSync(f, Buffer.concat([Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), Buffer.from('garbage')]));
    await assert.rejects(readDimacs(f), /xz could not decompress .*c\.cnf\.xz/);
  });
});

describe('models: parsed from v lines and checked as a stream', () => {
  const cnf = () => {
    const f = path.join(tempDir(), 'a.cnf');
    fs.writeFileSync(f, CNF);
    return f;
  };

  it('accepts a satisfying model, also a partial one', async () => {
    assert.ok((await checkModel(cnf(), model(1, 2, -3, 0))).ok);
    assert.ok((await checkModel(cnf(), model(-1, -2, 3, 0))).ok);
    assert.equal((await checkModel(cnf(), model(-1, -2, 0))).detail, 'clause 2 (line 4: 2 3 0) is not satisfied');
  });

  it('rejects contradictions, out-of-range and unterminated models', async () => {
    assert.match((await checkModel(cnf(), model(1, -1, 0))).detail, /variable 1 is assigned both ways/);
    assert.match((await checkModel(cnf(), model(1, 2, -3, 7, 0))).detail, /assigns variable 7 but the formula has 3/);
    assert.match((await checkModel(cnf(), model(1, 2, -3))).detail, /do not end with 0/);
    assert.match((await checkModel(cnf(), model())).detail, /without a model/);
    assert.match((await checkModel(cnf(), model(1, 0, 2))).detail, /after the terminating 0/);
  });

  it('parses s and v lines from solver output split anywhere', () => {
    const text = Buffer.from('c kissat\ns SATISFIABLE\nv 1 -2\nv 3 0\nc done\n');
    for (let cut = 1; cut < text.length; cut++) {
      const p = new SolverOutputParser();
      p.push(text.subarray(0, cut));
      p.push(text.subarray(cut));
      p.end();
      assert.deepEqual(p.answers, ['SAT']);
      assert.deepEqual([p.model.value(1), p.model.value(2), p.model.value(3), p.model.terminated], [1, -1, 1, true], `cut ${cut}`);
    }
  });

  it('cannot be made to allocate for a variable beyond the formula', () => {
    const p = new SolverOutputParser(8192, 100);
    p.push(Buffer.from('s SATISFIABLE\nv 2000000000 0\n'));
    p.end();
    assert.match(p.model.problem ?? '', /literal 2000000000 is out of range \(the formula has 100 variables\)/);
  });
});
