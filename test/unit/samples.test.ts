// A first run: sample benchmarks with answers known by construction, and a drat-trim found or located
// and probed, are enough for the seed's first evaluation to pass every gate, proofs checked.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../../src/core/config/load';
import { evaluateSolver } from '../../src/core/eval/service';
import { vacuousWarnings } from '../../src/core/eval/evalDoc';
import { silentLogger } from '../../src/core/ports';
import { dratTrimBuildCommand, findDratTrim, probeDratTrim } from '../../src/core/run/checkers';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { addSampleBenchmarks, stageSamples } from '../../src/core/workspace/samples';
import { spawnSync } from 'node:child_process';
import { CLI, ROOT, RULES, tempDir, WORKER, write } from './helpers';

const DRAT_TRIM = findDratTrim();

describe('first run: sample benchmarks and drat-trim', function () {
  this.timeout(600000);

  it('samples are deterministic, with a planted SAT and a pigeonhole UNSAT family per stage', () => {
    for (const stage of ['smoke', 'verify', 'perf'] as const) {
      const a = stageSamples(stage);
      assert.deepEqual(
        a.map((s) => s.text),
        stageSamples(stage).map((s) => s.text),
      );
      assert.deepEqual([...new Set(a.map((s) => `${s.family}:${s.expected}`))].sort(), ['pigeonhole:UNSAT', 'planted:SAT']);
      assert.equal(new Set(a.map((s) => s.name)).size, a.length, 'names are unique');
    }
  });

  it('fills the empty sets, leaves one with instances alone, and the seed passes every gate on them with proofs checked', async function () {
    if (!DRAT_TRIM) this.skip();
    const ws = tempDir();
    await initWorkspace({
      dir: ws,
      seeds: [{ name: 'minicdcl', source: path.join(ROOT, 'examples', 'minicdcl') }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const mine = write(path.join(ws, 'benchmarks', 'smoke', 'mine.cnf'), 'p cnf 1 1\n1 0\n');
    const config = await loadConfig(ws);
    const r = await addSampleBenchmarks(ws, config);
    assert.deepEqual(
      r.map((x) => [x.set, x.written, x.kept]),
      [
        ['smoke', 0, 1],
        ['verify', 5, 0],
        ['perf', 12, 0],
      ],
    );
    assert.equal(fs.readFileSync(mine, 'utf8'), 'p cnf 1 1\n1 0\n');
    assert.deepEqual(
      fs.readdirSync(path.join(ws, 'benchmarks', 'smoke')).filter((n) => n.endsWith('.cnf')),
      ['mine.cnf'],
    );
    const meta = fs.readFileSync(path.join(ws, 'benchmarks', 'verify', 'meta.csv'), 'utf8');
    assert.match(meta, /^instance,family,expected,proved,disputed\nplanted-80-200\.cnf,planted,SAT,construction,\n/);
    assert.match(meta, /php-6-5-s200\.cnf,pigeonhole,UNSAT,construction,/);
    // Adding again writes nothing: every set has instances now.
    assert.deepEqual(
      (await addSampleBenchmarks(ws, config)).map((x) => x.written),
      [0, 0, 0],
    );
    assert.ok(config.stages.verify?.check_proofs, 'the template checks proofs in verify');
    const e = await evaluateSolver({
      ws,
      config,
      solverDir: path.join(ws, 'SATLUTION_0'),
      overrides: { stage: 'all', jobs: 2 },
      dratTrim: DRAT_TRIM!,
      runnerEnv: { workerFile: WORKER },
    });
    const bad = e.gates.find((g) => !g.ok);
    assert.equal(bad, undefined, bad && `${bad.gate}: ${bad.detail}\n${bad.failures.join('\n')}`);
    assert.equal(e.verdict, 'pass');
    assert.deepEqual(vacuousWarnings(e.doc), []);
    const verify = e.gates.find((g) => g.gate === 'verify')!;
    assert.equal(verify.metrics?.solved, 5);
    assert.equal(verify.metrics?.solved_unsat, 2, 'both UNSAT answers proved with DRAT');
    assert.equal(e.gates.find((g) => g.gate === 'perf')?.metrics?.solved, 12);
  });

  it('satlution generate samples fills the sets of the workspace it is run in, once', async () => {
    const ws = tempDir();
    await initWorkspace({
      dir: ws,
      seeds: [{ name: 'minicdcl', source: path.join(ROOT, 'examples', 'minicdcl') }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const run = () => spawnSync(process.execPath, [CLI, 'generate', 'samples'], { cwd: path.join(ws, 'benchmarks'), encoding: 'utf8' });
    const first = run();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /^smoke: 3 sample instances written to .*\nverify: 5 .*\nperf: 12 /);
    assert.match(run().stdout, /^smoke: kept \(3 instances already there\)/);
    const outside = spawnSync(process.execPath, [CLI, 'generate', 'samples'], { cwd: tempDir(), encoding: 'utf8' });
    assert.equal(outside.status, 2);
    assert.match(outside.stderr, /no satlution\.yaml/);
  });

  it('a located drat-trim must verify a real proof and reject a bogus one', async function () {
    if (!DRAT_TRIM) this.skip();
    assert.equal(await probeDratTrim(DRAT_TRIM!), undefined);
    // A program that prints no verdict verifies nothing; one that says yes to everything is no checker either.
    assert.match((await probeDratTrim('/bin/true')) ?? '', /^it did not verify a correct proof \(.*exit 0, no status line/);
    const yes = write(path.join(tempDir(), 'yes-drat'), '#!/bin/sh\necho "s VERIFIED"\n');
    fs.chmodSync(yes, 0o755);
    assert.match((await probeDratTrim(yes)) ?? '', /accepted a bogus proof/);
    assert.match((await probeDratTrim('/bin/false')) ?? '', /did not verify a correct proof/);
    assert.match((await probeDratTrim(path.join(tempDir(), 'nothing'))) ?? '', /cannot run drat-trim/);
  });

  it('the build command clones the public source and installs where the evaluator looks, quoted', () => {
    const c = dratTrimBuildCommand("/home/o'brien/.cache/satlution-dev");
    assert.match(c, /git clone --depth 1 https:\/\/github\.com\/marijnheule\/drat-trim '\/home\/o'\\''brien\/\.cache\/satlution-dev\/sources\/drat-trim-git'/);
    assert.match(c, /cp '.*drat-trim-git\/drat-trim' '\/home\/o'\\''brien\/\.cache\/satlution-dev\/bin'\/$/);
  });
});
