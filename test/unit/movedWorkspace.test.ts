// A workspace moved or copied to another folder still builds: kissat's configure links
// `src/makefile -> <absolute dir>/makefile` and fails when that link dangles, which in a moved
// workspace it does. The seed here does what kissat's configure does, at a fraction of the cost. And a
// build that fails without a compiler error shows the end of its log.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runGates } from '../../src/core/eval/gates';
import { InstanceCache } from '../../src/core/instances/instances';
import { ResultsStore } from '../../src/core/eval/resultsStore';
import { silentLogger } from '../../src/core/ports';
import { buildSolver } from '../../src/core/run/buildSolver';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { newCandidate } from '../../src/core/workspace/newCandidate';
import { FIXTURES, RULES, tempDir, write } from './helpers';

/** tinysat with a configure that links src/makefile by its absolute path, and fails on a dangling one, as kissat's does. */
function kissatLikeSeed(): string {
  const seed = path.join(tempDir(), 'tinysat');
  write(path.join(seed, 'src', 'tinysat.c'), fs.readFileSync(path.join(FIXTURES, 'seeds', 'tinysat', 'tinysat.c'), 'utf8'));
  write(
    path.join(seed, 'configure'),
    [
      '#!/bin/sh',
      'ROOT="$(pwd)"',
      "printf 'all:\\n\\tcc -O2 -o tinysat src/tinysat.c\\n' > makefile",
      '# as kissat: -f follows the link, so a dangling one is not removed, and ln then fails',
      'if [ -f src/makefile ]; then rm -f src/makefile; fi',
      'ln -s "$ROOT/makefile" src/makefile',
      '',
    ].join('\n'),
  );
  fs.chmodSync(path.join(seed, 'configure'), 0o755);
  return seed;
}

describe('a workspace moved to another folder', function () {
  this.timeout(180000);
  it('still builds its champion and new candidates (the configure link is made relative, or pointed home)', async () => {
    const from = path.join(tempDir(), 'first-place');
    await initWorkspace({
      dir: from,
      seeds: [{ name: 'tinysat', source: kissatLikeSeed() }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const built = await buildSolver(path.join(from, 'SATLUTION_0'), 120);
    assert.ok(built.ok, `${built.detail}\n${built.log}`);
    assert.equal(fs.readlinkSync(path.join(from, 'SATLUTION_0', 'src', 'makefile')), '../makefile', 'the build left an absolute link into its own tree');
    // A workspace from before relative links: the absolute link the configure wrote, in the old place.
    fs.unlinkSync(path.join(from, 'SATLUTION_0', 'src', 'makefile'));
    fs.symlinkSync(path.join(from, 'SATLUTION_0', 'makefile'), path.join(from, 'SATLUTION_0', 'src', 'makefile'));
    const to = path.join(tempDir(), 'second-place');
    fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    fs.rmSync(from, { recursive: true, force: true });
    const rec = await newCandidate(to);
    assert.equal(fs.readlinkSync(path.join(to, rec.dir, 'src', 'makefile')), '../makefile', 'the copy kept a link to the old place');
    const child = await buildSolver(path.join(to, rec.dir), 120);
    assert.ok(child.ok, `${child.detail}\n${child.log}`);
    const champion = await buildSolver(path.join(to, 'SATLUTION_0'), 120);
    assert.ok(champion.ok, `${champion.detail}\n${champion.log}`);
  });

  it('a build that fails with no compiler error shows the end of its log in the build gate', async () => {
    const dir = path.join(tempDir(), 'SATLUTION_1');
    write(
      path.join(dir, 'starexec_build'),
      '#!/bin/sh\necho "configuring..."\necho "ln: failed to create symbolic link \'src/makefile\': File exists" >&2\nexit 1\n',
    );
    const r = await runGates({
      solverDir: dir,
      build: true,
      buildTimeoutS: 60,
      stages: [],
      jobs: 1,
      cache: new InstanceCache(tempDir()),
      store: new ResultsStore(path.join(tempDir(), 'runs.jsonl')),
      maxProofMb: 64,
    });
    const gate = r.gates.find((g) => g.gate === 'build')!;
    assert.equal(gate.ok, false);
    assert.match(gate.detail, /build failed \(exit 1, 0 errors\)/);
    assert.deepEqual(gate.failures, ["the end of the build's output:", 'configuring...', "ln: failed to create symbolic link 'src/makefile': File exists"]);
  });
});
