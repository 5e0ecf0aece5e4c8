// Generated benchmark suites (satlution generate suite): families with real signal whose answers are
// proved while generating, by a reference solver's evidence checked here, never assumed; a reference
// solver that lies gets nothing into meta.csv.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/load';
import { graphColoring, pigeonhole, planted, shuffleCnf, tseitinTorus } from '../../src/core/instances/generators';
import { listSet } from '../../src/core/instances/instances';
import { findDratTrim, findOnPath } from '../../src/core/run/checkers';
import { draw, drawSeed } from '../../src/core/suite/families';
import { MITER_SCRIPTS, multiplierMiter } from '../../src/core/suite/miter';
import { proveAnswer } from '../../src/core/suite/prove';
import { generateSuite, PROVENANCE_FILE, ProvenanceSchema, splitPerFamily, writeSuiteSet, type ProvedInstance } from '../../src/core/suite/suite';
import { CLI, FIXTURES, tempDir, write } from './helpers';

/** Clauses of a DIMACS text as sorted literal lists (for comparing formulas). */
const clausesOf = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() && !/^[cp]/.test(l))
    .map((l) => l.trim().split(/\s+/).map(Number).slice(0, -1));

describe('generated suites: answers proved, never assumed', function () {
  this.timeout(600000);
  const dratTrim = findDratTrim();
  const cadical = findOnPath('cadical');
  const abc = findOnPath('berkeley-abc');

  before(function () {
    if (!dratTrim || !cadical || !abc) {
      if (process.env.CI) throw new Error('drat-trim, cadical and berkeley-abc are needed (scripts/setup-sat-tools.sh)');
      this.skip();
    }
  });

  it('a shuffle is the same formula up to isomorphism: a renamed, re-signed model still satisfies it; fixed by its seed', () => {
    const p = planted(40, 4.0, 7);
    const text = p.header + p.clauses.join('\n') + '\n';
    const a = shuffleCnf(text, 3);
    assert.equal(a, shuffleCnf(text, 3), 'the same seed gives the same shuffle');
    assert.notEqual(a, shuffleCnf(text, 4));
    const before = clausesOf(text);
    const after = clausesOf(a);
    assert.equal(after.length, before.length);
    assert.deepEqual(after.map((c) => c.length).sort(), before.map((c) => c.length).sort());
    assert.notDeepEqual(after, before, 'the clauses moved');
    // That its answer is the original's is checked by proving shuffles below.
    assert.match(a, /^p cnf 40 160$/m);
    assert.throws(() => shuffleCnf('1 2 0\n', 1), /clauses before the "p cnf" header/);
    assert.throws(() => shuffleCnf('p cnf 2 1\n1 3 0\n', 1), /"3" is not a literal of a formula with 2 variables/);
    assert.throws(() => shuffleCnf('c nothing\n', 1), /no "p cnf" header/);
  });

  it('proves shuffles, miters and pigeonhole UNSAT by drat-trim, planted SAT by a checked model', async () => {
    const dir = tempDir();
    const provers = { solver: cadical!, dratTrim: dratTrim!, timeoutS: 120 };
    const php = write(path.join(dir, 'php.cnf'), shuffleCnf(pigeonhole(6, 5), 11));
    assert.deepEqual(await proveAnswer(php, provers).then((r) => r.answer === 'UNSAT' && r.evidence), 'DRAT proof verified by drat-trim');
    const p = planted(60, 4.2, 5);
    const sat = write(path.join(dir, 'planted.cnf'), shuffleCnf(p.header + p.clauses.join('\n') + '\n', 2));
    assert.deepEqual(await proveAnswer(sat, provers).then((r) => r.answer === 'SAT' && r.evidence), 'model checked');
    for (let s = 1; s <= MITER_SCRIPTS.length; s++) {
      const m = write(path.join(dir, `miter-${s}.cnf`), await multiplierMiter(abc!, 4, s));
      const r = await proveAnswer(m, provers);
      assert.equal(r.answer, 'UNSAT', `miter script ${s}: ${JSON.stringify(r)}`);
    }
    await assert.rejects(multiplierMiter(abc!, 4, 9), /no miter for 4 bits and script 9/);
    await assert.rejects(multiplierMiter(path.join(dir, 'no-abc'), 4, 1), /cannot run berkeley-abc .*install the Debian package berkeley-abc/);
  });

  it('Tseitin tori and colourings: the formulas their definitions say, UNSAT proved by drat-trim, SAT where the definition is satisfiable', async () => {
    const dir = tempDir();
    const provers = { solver: cadical!, dratTrim: dratTrim!, timeoutS: 120 };
    // 3 x 4 torus: 12 vertices of degree 4, 24 edges; each vertex forbids the 8 assignments of its 4 edges of the wrong parity.
    const t = tseitinTorus(3, 4, 9);
    assert.match(t, /^p cnf 24 96$/m);
    const vertexClauses = clausesOf(t);
    assert.ok(vertexClauses.every((c) => c.length === 4));
    // Each edge occurs in the clauses of exactly its two end points: 8 clauses each.
    for (let e = 1; e <= 24; e++) assert.equal(vertexClauses.filter((c) => c.some((l) => Math.abs(l) === e)).length, 16, `edge ${e}`);
    // Exactly one vertex has odd charge: its clauses have an even number of negated literals.
    const oddVertexClauses = vertexClauses.filter((c) => c.filter((l) => l < 0).length % 2 === 0);
    assert.equal(oddVertexClauses.length, 8, 'one vertex of odd charge');
    assert.equal(tseitinTorus(3, 4, 9), t, 'fixed by its seed');
    assert.throws(() => tseitinTorus(2, 4, 1), /no torus of 2 x 4/);
    const torus = write(path.join(dir, 'torus.cnf'), shuffleCnf(tseitinTorus(4, 5, 3), 3));
    assert.equal((await proveAnswer(torus, provers)).answer, 'UNSAT');
    // K4 (4 vertices at degree 3: every edge) has no 3-colouring and a 4-colouring.
    const k4 = graphColoring(4, 3, 3, 1);
    assert.match(k4, /^p cnf 12 34$/m, '4 vertex clauses, 4 x 3 at-most-one, 6 edges x 3 colours');
    assert.equal((await proveAnswer(write(path.join(dir, 'k4-3.cnf'), k4), provers)).answer, 'UNSAT');
    assert.equal((await proveAnswer(write(path.join(dir, 'k4-4.cnf'), graphColoring(4, 3, 4, 1)), provers)).answer, 'SAT');
    assert.throws(() => graphColoring(4, 4, 3, 1), /no 3-colouring graph with 4 vertices at degree 4/, 'more edges than pairs');
    // The families' draws are these formulas, shuffled.
    const tseitinDraw = await draw('tseitin', 1, 0, 0, {});
    assert.match(tseitinDraw.name, /^tseitin-5x[67]-\d+\.cnf$/);
    assert.equal(tseitinDraw.keep, 'UNSAT');
    const colouringDraw = await draw('coloring', 1, 0, 0, {});
    assert.match(colouringDraw.name, /^color3-(3[89]\d|4[01]\d|420)-\d+\.cnf$/);
    const vertices = Number(/color3-(\d+)/.exec(colouringDraw.name)![1]);
    assert.match(colouringDraw.text, new RegExp(`^p cnf ${vertices * 3} ${vertices * 4 + 3 * Math.round((vertices * 4.7) / 2)}$`, 'm'));
  });

  it('a lying reference solver proves nothing: a bogus proof or a wrong model keeps the instance out', async () => {
    const dir = tempDir();
    // Both liars take the reference solver's command line: -q --no-binary CNF PROOF.
    const unsatLiar = write(path.join(dir, 'unsat-liar'), '#!/bin/sh\necho "s UNSATISFIABLE"\necho "1 0" > "$4"\necho "0" >> "$4"\nexit 20\n');
    const satLiar = write(path.join(dir, 'sat-liar'), '#!/bin/sh\necho "s SATISFIABLE"\necho "v 1 2 3 -4 0"\nexit 10\n');
    fs.chmodSync(unsatLiar, 0o755);
    fs.chmodSync(satLiar, 0o755);
    const ask = (solver: string, counts: Parameters<typeof generateSuite>[0]['counts']) =>
      generateSuite({ seed: 1, counts, provers: { solver, dratTrim: dratTrim!, timeoutS: 60 }, tools: {}, jobs: 1, maxAttempts: 2 });
    await assert.rejects(
      ask(unsatLiar, { pigeonhole: 1 }),
      /pigeonhole instance 1: no usable draw in 2 attempts \(the reference solver's proof was not verified: proof rejected by drat-trim/,
    );
    await assert.rejects(
      ask(satLiar, { planted: 1 }),
      /planted instance 1: no usable draw in 2 attempts \(the reference solver's model does not check: clause \d+ .* is not satisfied/,
    );
    // The SAT liar's answer for an UNSAT family is dropped too (the family keeps UNSAT draws only, and a wrong model is no SAT answer).
    await assert.rejects(ask(satLiar, { 'uniform-unsat': 1 }), /uniform-unsat instance 1: no usable draw/);
  });

  it('generates deterministically, keeps only UNSAT uniform draws, and splits each family at random', async () => {
    assert.equal(drawSeed(1, 'planted', 0, 0), drawSeed(1, 'planted', 0, 0));
    assert.notEqual(drawSeed(1, 'planted', 0, 0), drawSeed(2, 'planted', 0, 0));
    assert.notEqual(drawSeed(1, 'planted', 0, 0), drawSeed(1, 'planted', 1, 0));
    const lines: string[] = [];
    const got = await generateSuite({
      seed: 3,
      counts: { 'uniform-unsat': 3, pigeonhole: 2 },
      provers: { solver: cadical!, dratTrim: dratTrim!, timeoutS: 120 },
      tools: {},
      jobs: 2,
      onProgress: (l) => lines.push(l),
    });
    assert.equal(got.length, 5);
    assert.ok(
      got.every((i) => i.expected === 'UNSAT' && i.evidence === 'DRAT proof verified by drat-trim'),
      JSON.stringify(got.map((g) => [g.name, g.expected])),
    );
    assert.equal(lines.length, 5);
    assert.match(lines.at(-1)!, /^5\/5 proved: \S+\.cnf UNSAT \(DRAT proof verified by drat-trim, reference solver [\d.]+ s\)$/);
    const { train, heldout } = splitPerFamily(got, 0.5, 3);
    assert.equal(train.length + heldout.length, 5);
    assert.equal(new Set([...train, ...heldout].map((i) => i.name)).size, 5, 'no instance in both');
    assert.deepEqual([...new Set(heldout.map((i) => i.family))].sort(), ['pigeonhole', 'uniform-unsat'], 'each family is split');
    assert.deepEqual([...new Set(train.map((i) => i.family))].sort(), ['pigeonhole', 'uniform-unsat']);
    assert.deepEqual(splitPerFamily(got, 0.5, 3), { train, heldout }, 'the split is fixed by the seed');
    // A family held out whole: all its instances held out, the other split as before.
    const whole = splitPerFamily(got, 0.5, 3, ['pigeonhole']);
    assert.deepEqual(
      whole.heldout
        .filter((i) => i.family === 'pigeonhole')
        .map((i) => i.name)
        .sort(),
      got
        .filter((i) => i.family === 'pigeonhole')
        .map((i) => i.name)
        .sort(),
    );
    assert.ok(whole.train.every((i) => i.family === 'uniform-unsat'));
    assert.deepEqual(
      whole.train.map((i) => i.name),
      train.filter((i) => i.family === 'uniform-unsat').map((i) => i.name),
    );

    const set = tempDir();
    await writeSuiteSet(set, heldout, { seed: 3, provers: { solver: cadical!, dratTrim: dratTrim!, timeoutS: 120 } });
    const listed = await listSet(set);
    assert.deepEqual(
      listed.map((i) => [i.name, i.family, i.expected]),
      heldout.map((i) => [i.name, i.family, i.expected]).sort(),
    );
    const prov = ProvenanceSchema.parse(JSON.parse(fs.readFileSync(path.join(set, PROVENANCE_FILE), 'utf8')));
    assert.equal(prov.instances.length, heldout.length);
    // A set someone filled by hand is never replaced.
    const theirs = tempDir();
    write(path.join(theirs, 'mine.cnf'), 'p cnf 1 1\n1 0\n');
    await assert.rejects(
      writeSuiteSet(theirs, heldout as ProvedInstance[], { seed: 3, provers: { solver: cadical!, dratTrim: dratTrim!, timeoutS: 1 } }),
      /already holds 1 file\(s\) that satlution generate suite did not write/,
    );
    assert.ok(fs.existsSync(path.join(theirs, 'mine.cnf')));
  });

  it('satlution generate suite in a workspace writes the training and held-out sets and names the held-out set in satlution.yaml', () => {
    const ws = tempDir();
    const init = spawnSync(process.execPath, [CLI, 'init', '--yes', '--dir', ws, '--seed', `tinysat=${path.join(FIXTURES, 'seeds', 'tinysat')}`], {
      encoding: 'utf8',
    });
    assert.equal(init.status, 0, init.stderr);
    const r = spawnSync(
      process.execPath,
      [CLI, 'generate', 'suite', '--dir', ws, '--seed', '5', '--count', 'pigeonhole=2,uniform-unsat=2', '--prover', cadical!],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^perf \(benchmarks\/perf\): 2 instances \(uniform-unsat 1, pigeonhole 1\)\nheldout \(benchmarks\/heldout\): 2 instances \(uniform-unsat 1, pigeonhole 1\), kept out of selection: stages\.perf\.holdout = heldout\n$/,
    );
    const yaml = fs.readFileSync(path.join(ws, 'satlution.yaml'), 'utf8');
    assert.match(yaml, /# The gates, cheapest first/, 'the comments stay');
    return loadConfig(ws).then(async (config) => {
      assert.equal(config.stages.perf.holdout, 'heldout');
      assert.equal(config.benchmarks.heldout, 'benchmarks/heldout');
      const held = await listSet(path.join(ws, 'benchmarks', 'heldout'));
      assert.ok(held.every((i) => i.expected === 'UNSAT'));
      // Usage errors are clear and change nothing.
      const bad = spawnSync(process.execPath, [CLI, 'generate', 'suite', '--dir', ws, '--count', 'planted=x'], { encoding: 'utf8' });
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /--count: planted needs a whole number, got "x"/);
      const unknown = spawnSync(process.execPath, [CLI, 'generate', 'suite', '--dir', ws, '--count', 'sudoku=3'], { encoding: 'utf8' });
      assert.match(unknown.stderr, /unknown family "sudoku"; families: planted, uniform-unsat, pigeonhole, miter, tseitin, coloring/);
      // Held out whole: a family not asked for, or every family asked for, is refused before anything is generated.
      const notAsked = spawnSync(process.execPath, [CLI, 'generate', 'suite', '--dir', ws, '--count', 'pigeonhole=2', '--heldout-families', 'tseitin'], {
        encoding: 'utf8',
      });
      assert.equal(notAsked.status, 2);
      assert.match(notAsked.stderr, /--heldout-families: tseitin has no instances in --count/);
      const all = spawnSync(process.execPath, [CLI, 'generate', 'suite', '--dir', ws, '--count', 'pigeonhole=2', '--heldout-families', 'pigeonhole'], {
        encoding: 'utf8',
      });
      assert.equal(all.status, 2);
      assert.match(all.stderr, /leave one at least to train on/);
      const whole = spawnSync(
        process.execPath,
        [CLI, 'generate', 'suite', '--dir', ws, '--seed', '6', '--count', 'pigeonhole=2,tseitin=2', '--heldout-families', 'tseitin', '--prover', cadical!],
        { encoding: 'utf8' },
      );
      assert.equal(whole.status, 0, whole.stderr);
      assert.match(whole.stdout, /heldout \(benchmarks\/heldout\): 3 instances \(pigeonhole 1, tseitin 2; tseitin held out whole\)/);
      const trained = await listSet(path.join(ws, 'benchmarks', 'perf'));
      assert.deepEqual(
        trained.map((i) => i.family),
        ['pigeonhole'],
      );
      const heldNow = await listSet(path.join(ws, 'benchmarks', 'heldout'));
      assert.equal(heldNow.filter((i) => i.family === 'tseitin').length, 2);
    });
  });
});
