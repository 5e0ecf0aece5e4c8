// Rules that see data access: forbidden patterns with `in_strings: true` match inside string literals
// (paths, file names), and the default R06 checks stop a solver that names meta.csv, benchmarks/,
// home directories, /tmp or ../.. without tripping on real solvers' own sources.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../src/core/ports';
import { checkCompliance, type ComplianceReport } from '../../src/core/rules/check';
import { blankComments, commentStyleOf } from '../../src/core/rules/lexer';
import { loadRules, parseRule } from '../../src/core/rules/loadRules';
import type { Rule } from '../../src/core/rules/ruleSchema';
import { CandidateStore } from '../../src/core/store/candidates';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { renderRunScript } from '../../src/core/workspace/starexec';
import { FIXTURES, ROOT, RULES, tempDir, write } from './helpers';

const R06 = 'R06-data-access';
const rule = (front: string) => parseRule('t.md', `---\n${front}\n---\ntext\n`);

/** The default rulebase's data-access rule alone, for raw hits on a source tree. */
async function dataAccessRules(): Promise<Rule[]> {
  const rules = (await loadRules(RULES)).filter((r) => r.id === R06);
  assert.equal(rules.length, 1, `${R06} is in the default rulebase`);
  return rules;
}

/** Every hit of `rules` in `dir`, as if nothing were inherited. */
const rawHits = async (dir: string, rules: Rule[]): Promise<ComplianceReport> => checkCompliance({ dir, rules, phase: 'pre-evaluation', keepSourceHits: true });

/** A workspace with the tinysat seed and a faithful child SATLUTION_1 to edit. */
async function candidate(): Promise<{ parent: string; cand: string }> {
  const ws = tempDir();
  await initWorkspace({
    dir: ws,
    seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
    defaultRulesDir: RULES,
    approver: { confirm: async () => true },
    log: silentLogger,
  });
  const cand = path.join(ws, 'SATLUTION_1');
  await new CandidateStore(ws).create({ id: 1, parent: 0, status: 'coding' });
  fs.cpSync(path.join(ws, 'SATLUTION_0'), cand, { recursive: true });
  write(path.join(cand, 'HYPOTHESIS.md'), '# Try\n## Change\nx\n## Rationale\ny\n## Expected effect\nz\n');
  return { parent: path.join(ws, 'SATLUTION_0'), cand };
}

const checkChild = async (c: { parent: string; cand: string }) =>
  checkCompliance({ dir: c.cand, parentDir: c.parent, rules: await loadRules(RULES), phase: 'pre-evaluation' });

/** Appends lines to a file; returns the 1-based line number of the first one. */
function appendLines(file: string, lines: string[]): number {
  const before = fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
  fs.writeFileSync(file, [...before, ...lines].join('\n') + '\n');
  return before.length + 1;
}

/** The kissat source tree: SATLUTION_KISSAT_SRC, else what the fetch script has (or fetches); undefined when neither works. */
function kissatSource(): string | undefined {
  const env = process.env.SATLUTION_KISSAT_SRC;
  if (env) return fs.existsSync(path.join(env, 'src', 'kissat.h')) ? env : undefined;
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'fetch-solver-source.sh'), 'kissat'], { encoding: 'utf8', timeout: 100000 });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  return dir && fs.existsSync(path.join(dir, 'src', 'kissat.h')) ? dir : undefined;
}

describe('rules in strings: the lexer keeps strings and blanks comments', () => {
  it('blankComments keeps C strings, blanks comments, and keeps every offset', () => {
    const src = 'f = fopen ("../../benchmarks/meta.csv", "r"); // "meta.csv"\n/* ../.. */ char c = \'/\';\n';
    const out = blankComments(src);
    assert.equal(out.length, src.length);
    assert.equal(out.split('\n').length, src.split('\n').length);
    assert.equal(out.match(/meta\.csv/g)?.length, 1, out);
    assert.equal(out.match(/\.\.\/\.\./g)?.length, 1, out);
    assert.match(out, /char c = '\/';/);
  });

  it('scripts get # comments blanked, but not $# or a # inside quotes', () => {
    assert.deepEqual(['src/a.c', 'x/y.hpp', 'bin/starexec_run_default', 'starexec_build', 'build/go.sh', 'Makefile', 'README.md'].map(commentStyleOf), [
      'c',
      'c',
      'hash',
      'hash',
      'hash',
      'hash',
      'none',
    ]);
    const src = '#!/usr/bin/env bash\n# never read ../../benchmarks\nn=$# ; echo "a#b" \'c#d\' # $HOME here\ncat "$HOME/x"\n';
    const out = blankComments(src, 'hash');
    assert.equal(out.length, src.length);
    assert.doesNotMatch(out, /benchmarks|bash/);
    assert.match(out, /n=\$# ; echo "a#b" 'c#d' {13}\n/);
    assert.equal(out.match(/\$HOME/g)?.length, 1);
  });
});

describe('rules in strings: the in_strings field', () => {
  const fp = (extra: string) =>
    rule(
      `id: T\ntitle: t\nphases: [pre-evaluation]\nchecks:\n  - { kind: forbidden_pattern, id: meta, pattern: 'meta\\.csv', message: 'reads metadata'${extra} }`,
    );

  it('defaults to false and rejects a non-boolean', () => {
    const c = fp('').checks[0]!;
    assert.ok(c.kind === 'forbidden_pattern' && c.in_strings === false);
    const d = fp(', in_strings: true').checks[0]!;
    assert.ok(d.kind === 'forbidden_pattern' && d.in_strings === true);
    assert.throws(() => fp(', in_strings: "yes"'), /t\.md: checks\.0\.in_strings: /);
  });

  it('a string literal is matched only with the opt-in, a comment never', async () => {
    const dir = tempDir();
    write(path.join(dir, 'src', 'io.c'), '#include <stdio.h>\n// meta.csv in a comment\nstatic FILE *f (void) { return fopen ("meta.csv", "r"); }\n');
    const off = await rawHits(dir, [fp('')]);
    assert.deepEqual(off.violations, [], 'strings are blanked by default');
    const on = await rawHits(dir, [fp(', in_strings: true')]);
    assert.deepEqual(
      on.violations.map((v) => [v.rule, v.check, v.file, v.line, v.severity]),
      [['T', 'meta', 'src/io.c', 3, 'error']],
    );
    assert.match(on.violations[0]!.message, /^reads metadata \(`meta\.csv`\)$/);
  });
});

describe('rules in strings: the default data-access checks', () => {
  it('report a candidate that opens ../../benchmarks/perf/meta.csv, with rule id and file:line', async () => {
    const c = await candidate();
    const first = appendLines(path.join(c.cand, 'tinysat.c'), [
      'static FILE *peek (void) { return fopen ("../../benchmarks/perf/meta.csv", "r"); }',
      'static void name (char *p, const char *dir) { sprintf (p, "%s/%s", dir, "meta.csv"); }',
      'static const char *cache = "/tmp/answers";',
      'static const char *home = "/home/me/.answers";',
      '/* fopen ("../../benchmarks/perf/meta.csv") in a comment is fine */',
    ]);
    const r = await checkChild(c);
    const hits = r.violations.filter((v) => v.rule === R06).map((v) => `${v.check} ${v.file}:${v.line}`);
    assert.deepEqual(hits.sort(), [
      `benchmark-metadata tinysat.c:${first}`,
      `benchmark-metadata tinysat.c:${first + 1}`,
      `home-paths tinysat.c:${first + 3}`,
      `parent-directory-escape tinysat.c:${first}`,
      `tmp-paths tinysat.c:${first + 2}`,
    ]);
    assert.equal(r.errors, 5);
    const meta = r.violations.find((v) => v.check === 'benchmark-metadata')!;
    assert.match(meta.message, /expected answers belong to the evaluator/);
  });

  it('catch the run script reading $HOME, not its comments, and not #include "../src/x.h"', async () => {
    const c = await candidate();
    const run = path.join(c.cand, 'bin', 'starexec_run_default');
    const line = appendLines(run, ['# never cat ../../benchmarks/meta.csv', 'cat "$HOME/answers" >/dev/null']);
    appendLines(path.join(c.cand, 'tinysat.c'), ['#include "../src/x.h"', '#  include "../../src/y.h"']);
    const r = await checkChild(c);
    assert.deepEqual(
      r.violations.filter((v) => v.rule === R06).map((v) => `${v.check} ${v.file}:${v.line}`),
      [`home-paths bin/starexec_run_default:${line + 1}`],
    );
  });

  it('do not count a string the parent has too (inherited), but do count a new copy', async () => {
    const c = await candidate();
    const before = (await checkChild(c)).inherited; // tinysat's own hits (raw-allocation warnings)
    const code = 'static FILE *peek (void) { return fopen ("../../benchmarks/perf/meta.csv", "r"); }';
    appendLines(path.join(c.parent, 'tinysat.c'), [code]);
    appendLines(path.join(c.cand, 'tinysat.c'), [code]);
    const same = await checkChild(c);
    assert.deepEqual(
      same.violations.filter((v) => v.rule === R06),
      [],
    );
    assert.equal(same.inherited - before, 2, 'benchmark-metadata and parent-directory-escape, both inherited');
    const line = appendLines(path.join(c.cand, 'tinysat.c'), [code.replace('peek', 'peek2')]);
    const more = await checkChild(c);
    const counted = more.violations.filter((v) => v.rule === R06);
    assert.deepEqual(counted.map((v) => v.check).sort(), ['benchmark-metadata', 'parent-directory-escape'], 'one copy is inherited, the new one counts');
    assert.ok(
      counted.every((v) => v.file === 'tinysat.c' && (v.line === line || v.line === line - 1)),
      'reported at one of the two copies',
    );
  });

  it('give examples/minicdcl, with its generated run script, no hit', async () => {
    const dir = tempDir();
    fs.cpSync(path.join(ROOT, 'examples', 'minicdcl'), dir, { recursive: true });
    write(path.join(dir, 'bin', 'starexec_run_default'), renderRunScript('minicdcl'));
    const r = await rawHits(dir, await dataAccessRules());
    assert.equal(r.checksRun, 4);
    assert.deepEqual(r.violations, []);
    write(path.join(dir, 'src', 'leak.c'), 'const char *p = "../../benchmarks/x";\n');
    assert.equal((await rawHits(dir, await dataAccessRules())).errors, 2, 'the same checks do fire on this tree');
  });

  it('give the kissat source no hit (SATLUTION_KISSAT_SRC or scripts/fetch-solver-source.sh)', async function () {
    this.timeout(180000);
    const src = kissatSource();
    if (!src) this.skip();
    const r = await rawHits(src!, await dataAccessRules());
    assert.equal(r.checksRun, 4);
    assert.deepEqual(
      r.violations.map((v) => `${v.severity} ${v.check} ${v.file}:${v.line} ${v.match}`),
      [],
    );
  });
});

describe('rules in strings: short instance names', function () {
  this.timeout(120000);

  it('flag a candidate that names a short instance in a string ("php-9-8"), as a whole token, not identifiers, comments or words', async () => {
    const { parent, cand } = await candidate();
    const src = path.join(cand, 'tinysat.c');
    const text = fs.readFileSync(src, 'utf8');
    const entry = 'int main(int argc, char **argv) {';
    assert.ok(text.includes(entry));
    fs.writeFileSync(
      src,
      text.replace(
        entry,
        `${entry}\n  int ph6 = 0; (void) ph6; /* "php-9-8" in a comment */\n  const char *words = "true sat php-9-80 xphp-9-8";\n  (void) words;\n  if (argc > 1 && strstr (argv[1], "benchmarks/php-9-8.cnf")) { printf ("s UNSATISFIABLE\\n"); return 20; }`,
      ),
    );
    const rules = (await loadRules(RULES)).filter((r) => r.id === 'R02-critical-correctness');
    const r = await checkCompliance({
      dir: cand,
      parentDir: parent,
      rules,
      phase: 'pre-evaluation',
      instanceNames: ['php-9-8.cnf', 'ph6.cnf', 'true.cnf', 'sat.cnf'],
    });
    const leaks = r.violations.filter((v) => v.check === 'instance_name_leak');
    assert.deepEqual(
      leaks.map((v) => `${v.file}:${v.match}`),
      ['tinysat.c:php-9-8'],
      JSON.stringify(leaks),
    );
    assert.match(leaks[0]!.message, /benchmark instance "php-9-8" is named in the source/);
  });

  it("do not fire on kissat's solver sources with every one of its test formulas as instances", async function () {
    const src = kissatSource();
    if (!src) {
      if (process.env.CI) throw new Error('kissat source unavailable');
      return this.skip();
    }
    const names = fs.readdirSync(path.join(src, 'test', 'cnf')).filter((f) => f.endsWith('.cnf'));
    const rules = (await loadRules(RULES)).filter((r) => r.id === 'R02-critical-correctness');
    const r = await checkCompliance({ dir: src, rules, phase: 'pre-evaluation', keepSourceHits: true, instanceNames: names });
    // kissat's own test harness (test/) names its test formulas; its solver (src/) names none.
    const hits = r.violations.filter((v) => v.check === 'instance_name_leak');
    assert.ok(
      hits.some((v) => v.match!.length < 8),
      'short names are looked for',
    );
    assert.deepEqual(
      hits.filter((v) => !v.file!.startsWith('test/')).map((v) => `${v.file}:${v.line} ${v.match}`),
      [],
    );
  });
});
