// Post-mortem and rule evolution on real failures: a real segfault, a real drat-trim rejection, real
// compiler errors; patches round-trip through apply, reject and the history; the pre-commit hook.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pigeonhole } from '../../src/core/instances/generators';
import { silentLogger } from '../../src/core/ports';
import { applyPatch, history, listPatches, rejectPatch, ruleStats } from '../../src/core/rules/evolution';
import { normalize, SignatureLog } from '../../src/core/rules/postmortem';
import { CandidateStore } from '../../src/core/store/candidates';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { CLI, FIXTURES, RULES, tempDir, write } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;
const cli = (args: string[], cwd?: string) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd });

async function workspace(git = false): Promise<string> {
  const ws = tempDir();
  if (git) execFileSync('git', ['init', '-q'], { cwd: ws });
  await initWorkspace({
    dir: ws,
    seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
    defaultRulesDir: RULES,
    approver: { confirm: async () => true },
    log: silentLogger,
  });
  fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'smoke', 'sat-small.cnf'));
  return ws;
}

/** A child of SATLUTION_0 whose tinysat.c is edited by `edit` (the record first, then the directory). */
async function child(ws: string, id: number, edit: (src: string) => string, docs = true): Promise<string> {
  await new CandidateStore(ws).create({ id, parent: 0, status: 'coding' });
  const dir = path.join(ws, `SATLUTION_${id}`);
  fs.cpSync(path.join(ws, 'SATLUTION_0'), dir, { recursive: true });
  const src = path.join(dir, 'tinysat.c');
  fs.writeFileSync(src, edit(fs.readFileSync(src, 'utf8')));
  if (docs) write(path.join(dir, 'HYPOTHESIS.md'), '# h\n## Rationale\nr\n## Expected effect\ne\n');
  return dir;
}

const segfault = (s: string) =>
  s.replace('int main(int argc, char **argv) {', 'int main(int argc, char **argv) {\n  if (argc > 1) { volatile int *p = 0; *p = 1; }');

describe('rule evolution', function () {
  this.timeout(120000);

  it('normalizes compiler messages so repeats match', () => {
    assert.equal(normalize('implicit declaration of function ‘kissat_foo’ at /tmp/x/y.c line 12'), "implicit declaration of function '*' at <path> line N");
  });

  it('a real segfault in two candidates becomes a FORBIDDEN block that a person applies', async () => {
    const ws = await workspace();
    for (const id of [1, 2]) {
      const dir = await child(ws, id, segfault);
      const r = cli(['eval', dir, '--stage', 'smoke', '--no-proofs']);
      assert.equal(r.status, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /✗ smoke .*segfault \(SIGSEGV\) on sat-small\.cnf/);
      if (id === 1) assert.doesNotMatch(r.stderr, /rule patch proposed/);
      else assert.match(r.stderr, /rule patch proposed: P-\S+ for R04-forbidden-patterns/);
    }
    const sigs = await new SignatureLog(ws).all();
    assert.deepEqual([...new Set(sigs.map((s) => s.key))], ['crash:SIGSEGV']);
    const [p] = (await listPatches(ws)).filter((x) => x.status === 'pending');
    assert.ok(p);
    assert.match(p.diff, /^\+## FORBIDDEN: changes that crash the solver \(SIGSEGV\)$/m);
    assert.match(p.diff, /^-version: 1$/m);
    assert.match(p.diff, /^\+version: 2$/m);
    assert.match(p.diff, /SATLUTION_1: segfault \(SIGSEGV\) on sat-small\.cnf/);
    assert.equal((await new CandidateStore(ws).load()).index.candidates.find((c) => c.id === 2)?.status, 'failed');

    const pending = cli(['rules', 'pending', '--diff'], ws);
    assert.match(pending.stdout, new RegExp(`${p.id} {2}R04-forbidden-patterns \\(04_forbidden_patterns\\.md\\)`));
    assert.equal(cli(['rules', 'apply', p.id], ws).status, 0);
    const text = fs.readFileSync(path.join(ws, '.rules', '04_forbidden_patterns.md'), 'utf8');
    assert.equal(text, p.after);
    assert.match(text, /^version: 2$/m);
    const h = await history(ws);
    assert.deepEqual(
      h.map((e) => [e.version, e.patch]),
      [
        [1, null],
        [2, p.id],
      ],
    );
    assert.match(h[1]!.why, /crash failure "crash:SIGSEGV" repeated in 2 candidates: SATLUTION_1, SATLUTION_2/);
    assert.match(fs.readFileSync(path.join(ws, '.rules', '.history', 'v1', '04_forbidden_patterns.md'), 'utf8'), /^version: 1$/m);
    assert.equal(fs.readFileSync(path.join(ws, '.rules', '.history', 'v2', '04_forbidden_patterns.md'), 'utf8'), p.after);
    assert.match(cli(['rules', 'history'], ws).stdout, /^v2 .* R04-forbidden-patterns {2}P-/m);
    // the evolved rule set still loads and a third identical failure proposes nothing new
    await assert.rejects(applyPatch(ws, p.id), /already applied/);
    const third = cli(['eval', await child(ws, 3, segfault), '--stage', 'smoke', '--no-proofs']);
    assert.doesNotMatch(third.stderr, /rule patch proposed/);
  });

  it('a real drat-trim rejection and real compiler errors become signatures; a patch can be rejected', async function () {
    if (!DRAT_TRIM) return this.skip();
    const ws = await workspace();
    write(path.join(ws, 'benchmarks', 'smoke', 'php-4-3.cnf'), pigeonhole(4, 3));
    for (const id of [1, 2]) {
      const dir = await child(ws, id, (s) => s);
      // a bogus proof: tinysat now writes an unjustified empty clause to the proof file
      fs.writeFileSync(
        path.join(dir, 'tinysat.c'),
        fs
          .readFileSync(path.join(dir, 'tinysat.c'), 'utf8')
          .replace(
            'printf("s UNSATISFIABLE\\n");',
            'printf("s UNSATISFIABLE\\n");\n    if (argc > 2) { FILE *p = fopen(argv[2], "w"); if (p) { fputs("0\\n", p); fclose(p); } }',
          ),
      );
      const r = cli(['eval', dir, '--stage', 'smoke', '--drat-trim', DRAT_TRIM]);
      assert.equal(r.status, 1);
      assert.match(r.stdout, /UNSAT claimed on php-4-3\.cnf, proof rejected by drat-trim/);
    }
    const broken = await child(ws, 3, (s) => s.replace('int pick = 0;', 'int pick = undefined_variable;'));
    const b = cli(['eval', broken, '--stage', 'smoke', '--no-proofs']);
    assert.equal(b.status, 1);
    const keys = (await new SignatureLog(ws).all()).map((s) => s.key);
    assert.ok(keys.includes('invalid_proof'));
    assert.ok(
      keys.some((k) => /^build:'\*' undeclared/.test(k)),
      keys.join('\n'),
    );
    const p = (await listPatches(ws)).find((x) => x.key === 'invalid_proof');
    assert.ok(p);
    assert.match(p.after, /## FORBIDDEN: proof output that drat-trim rejects/);
    await rejectPatch(ws, p.id);
    assert.equal((await listPatches(ws)).find((x) => x.id === p.id)?.status, 'rejected');
    assert.match(cli(['rules', 'pending'], ws).stdout, /no pending rule patches/);
  });

  it('refuses to apply a patch to a rule that changed since', async () => {
    const ws = await workspace();
    for (const id of [1, 2]) cli(['eval', await child(ws, id, segfault), '--stage', 'smoke', '--no-proofs']);
    const [p] = await listPatches(ws);
    fs.appendFileSync(path.join(ws, '.rules', '04_forbidden_patterns.md'), '\nedited by a person\n');
    const r = cli(['rules', 'apply', p!.id], ws);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /04_forbidden_patterns\.md changed since patch P-\S+ was proposed/);
  });

  it('tracks how often a rule fired, stopped a candidate, and was followed by a fix', async () => {
    const ws = await workspace();
    const dir = await child(ws, 1, (s) => s + '\nstatic int h (void) { return fork (); }\n');
    assert.equal(cli(['eval', dir, '--stage', 'smoke', '--no-proofs']).status, 1);
    fs.writeFileSync(path.join(dir, 'tinysat.c'), fs.readFileSync(path.join(ws, 'SATLUTION_0', 'tinysat.c')));
    assert.equal(cli(['eval', dir, '--stage', 'smoke', '--no-proofs']).status, 0);
    assert.deepEqual(await ruleStats(ws), [{ rule: 'R04-forbidden-patterns', fired: 1, prevented: 1, fixed: 1 }]);
    assert.match(cli(['rules', 'stats'], ws).stdout, /R04-forbidden-patterns +1 +1 +1/);
  });

  it('the pre-commit hook stops a commit that breaks a rule', async () => {
    const ws = await workspace(true);
    const g = (...a: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: ws, encoding: 'utf8' });
    assert.equal(cli(['rules', 'install-hook'], ws).status, 0);
    const dir = await child(ws, 1, (s) => s + '\nstatic int h (void) { return fork (); }\n');
    g('add', path.relative(ws, dir));
    const bad = g('commit', '-qm', 'candidate 1');
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr + bad.stdout, /R04-forbidden-patterns threads-and-processes/);
    fs.writeFileSync(path.join(dir, 'tinysat.c'), fs.readFileSync(path.join(ws, 'SATLUTION_0', 'tinysat.c')));
    g('add', path.relative(ws, dir));
    assert.equal(g('commit', '-qm', 'candidate 1').status, 0);
    assert.match(cli(['rules', 'install-hook'], ws).stdout, /installed/); // re-installing its own hook is fine
    fs.writeFileSync(path.join(ws, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n');
    assert.match(cli(['rules', 'install-hook'], ws).stderr, /exists and was not written by SATLUTION/);
  });
});
