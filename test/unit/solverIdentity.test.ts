// Stored results are reused only for the same solver, and "the same" covers everything a run can
// execute: a liar whose bin/ matches an honest solver's (a link, or a script that starts code outside
// bin/) gets no results of the honest one. Only the candidate's documents do not count.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigSchema } from '../../src/core/config/schema';
import { solverIdentity } from '../../src/core/eval/resultsStore';
import { evaluateSolver } from '../../src/core/eval/service';
import { planted3Sat } from '../../src/core/instances/generators';
import { tempDir, write } from './helpers';

/** A solver whose bin/ is the same for every `impl`: its run script starts impl/run.sh. */
function viaImpl(impl: string, how: 'link' | 'script'): string {
  const dir = tempDir();
  write(path.join(dir, 'starexec_build'), '#!/bin/sh\nexit 0\n');
  write(path.join(dir, 'impl', 'run.sh'), `#!/usr/bin/env bash\n${impl}\n`);
  fs.chmodSync(path.join(dir, 'impl', 'run.sh'), 0o755);
  fs.mkdirSync(path.join(dir, 'bin'));
  if (how === 'link') fs.symlinkSync('../impl/run.sh', path.join(dir, 'bin', 'starexec_run_default'));
  else {
    write(path.join(dir, 'bin', 'starexec_run_default'), '#!/bin/sh\nexec "$(dirname "$0")/../impl/run.sh" "$@"\n');
    fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
  }
  return dir;
}

/** Solves with cadical (honest), or claims UNSAT at once (a liar: every formula here is SAT). */
const HONEST = 'exec cadical -q "$1"';
const LIAR = 'echo "s UNSATISFIABLE"; exit 20';

describe('the solver identity of stored results', function () {
  this.timeout(60000);

  for (const how of ['link', 'script'] as const) {
    it(`a liar whose bin/ equals an honest solver's (${how}) reuses none of its results`, async () => {
      const honest = viaImpl(HONEST, how);
      const liar = viaImpl(LIAR, how);
      assert.notEqual(await solverIdentity(honest), await solverIdentity(liar));
      const set = tempDir();
      for (const s of [1, 2, 3]) write(path.join(set, `p${s}.cnf`), planted3Sat(20, 4.0, s));
      const config = ConfigSchema.parse({ seeds: [{ name: 'none', source: '.' }] });
      const cache = tempDir();
      const prev = process.env.XDG_CACHE_HOME;
      process.env.XDG_CACHE_HOME = cache; // one results store for both
      try {
        const run = (dir: string) =>
          evaluateSolver({
            ws: undefined,
            config,
            solverDir: dir,
            overrides: { stage: 'verify', bench: set, noProofs: true, jobs: 1 },
            runnerEnv: { workerFile: '' },
          });
        const h = await run(honest);
        const hv = h.gates.find((g) => g.gate === 'verify')!;
        assert.equal(h.verdict, 'pass', hv.detail);
        const l = await run(liar);
        const lv = l.gates.find((g) => g.gate === 'verify')!;
        assert.equal(lv.reused, 0);
        assert.equal(l.verdict, 'fail', "the liar passed on the honest solver's results");
      } finally {
        if (prev === undefined) delete process.env.XDG_CACHE_HOME;
        else process.env.XDG_CACHE_HOME = prev;
      }
    });
  }

  it('ignores the candidate documents, not hidden folders, the sources or the exec bit', async () => {
    const a = viaImpl(LIAR, 'script');
    const base = await solverIdentity(a);
    write(path.join(a, 'RESULTS.md'), '# anything\n');
    assert.equal(await solverIdentity(a), base);
    // A run script can start code from any folder, a hidden one too.
    write(path.join(a, '.git', 'HEAD'), 'ref: x\n');
    assert.notEqual(await solverIdentity(a), base);
    write(path.join(a, 'src', 'x.c'), 'int x;\n');
    const withSource = await solverIdentity(a);
    assert.notEqual(withSource, base);
    fs.chmodSync(path.join(a, 'src', 'x.c'), 0o755);
    assert.notEqual(await solverIdentity(a), withSource);
  });
});
