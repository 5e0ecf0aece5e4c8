// The example seed solver the project ships (examples/minicdcl) must be sound: every SAT model and
// every UNSAT DRAT proof is checked by the evaluator, on formulas no one here wrote included.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { parseOptions } from '../../src/core/agents/tuner';
import { CLI, ROOT, tempDir, write } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;

describe('examples/minicdcl', function () {
  this.timeout(120000);

  it('builds, and passes verify with every model and DRAT proof checked', function () {
    if (!DRAT_TRIM) {
      if (process.env.CI) throw new Error('drat-trim is required (scripts/setup-sat-tools.sh)');
      return this.skip();
    }
    const solver = path.join(tempDir(), 'minicdcl');
    fs.cpSync(path.join(ROOT, 'examples', 'minicdcl'), solver, { recursive: true });
    assert.equal(spawnSync('make', ['-s'], { cwd: solver }).status, 0);
    write(path.join(solver, 'bin', 'starexec_run_default'), '#!/bin/sh\nexec "$(dirname "$0")/../minicdcl" "$1" ${2:+"$2/proof.out"}\n');
    fs.chmodSync(path.join(solver, 'bin', 'starexec_run_default'), 0o755);
    const set = tempDir();
    let meta = 'instance,family,expected\n';
    for (const [p, h] of [
      [5, 4],
      [6, 5],
      [7, 6],
    ] as const) {
      write(path.join(set, `php-${p}-${h}.cnf`), pigeonhole(p, h));
      meta += `php-${p}-${h}.cnf,pigeonhole,UNSAT\n`;
    }
    for (const s of [1, 2, 3, 4]) {
      write(path.join(set, `planted-${s}.cnf`), planted3Sat(150, 4.2, s));
      meta += `planted-${s}.cnf,planted,SAT\n`;
    }
    write(path.join(set, 'meta.csv'), meta);
    const abc = spawnSync(
      'berkeley-abc',
      [
        '-q',
        'gen -m -N 6 m.blif; read m.blif; strash; dc2; if -K 4; strash; dch; if -K 6; strash; write_blif r.blif; miter m.blif r.blif; write_cnf miter-6.cnf',
      ],
      { cwd: set },
    );
    if (abc.status === 0) for (const f of ['m.blif', 'r.blif']) fs.rmSync(path.join(set, f), { force: true });
    const json = path.join(tempDir(), 'r.json');
    const r = spawnSync(process.execPath, [CLI, 'eval', solver, '--bench', set, '--no-build', '--drat-trim', DRAT_TRIM, '--json', json], {
      encoding: 'utf8',
      env: { ...process.env, XDG_CACHE_HOME: tempDir() },
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const j = JSON.parse(fs.readFileSync(json, 'utf8')) as { instances: { status: string; check: { kind: string; ok: boolean } }[] };
    assert.ok(j.instances.length >= 7);
    assert.ok(
      j.instances.every((i) => i.status === 'solved' && i.check.ok === true),
      JSON.stringify(j.instances),
    );
    assert.ok(j.instances.some((i) => i.check.kind === 'drat') && j.instances.some((i) => i.check.kind === 'model'));
  });

  it('declares its options in the layout the tuner reads', () => {
    const opts = parseOptions(fs.readFileSync(path.join(ROOT, 'examples', 'minicdcl', 'src', 'options.h'), 'utf8'));
    assert.deepEqual(
      opts.map((o) => o.name),
      ['restartint', 'decay', 'phase'],
    );
  });
});
