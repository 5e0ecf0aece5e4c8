import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../src/core/ports';
import { checkCompliance } from '../../src/core/rules/check';
import { blankNonCode } from '../../src/core/rules/lexer';
import { loadRules, parseRule, RuleError, selectRules } from '../../src/core/rules/loadRules';
import { CandidateStore } from '../../src/core/store/candidates';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { CLI, FIXTURES, RULES, tempDir, write } from './helpers';

const rule = (front: string, body = 'text') => `---\n${front}\n---\n${body}\n`;

describe('rules: format and selection', () => {
  it("the default rulebase loads, with the paper's rule family", async () => {
    const rules = await loadRules(RULES);
    const ids = rules.map((r) => r.id);
    for (const id of [
      'R00-compliance',
      'R01-pre-evaluation',
      'R02-critical-correctness',
      'R03-mandatory-logging',
      'R04-forbidden-patterns',
      'R05-rule-evolution',
      'K15-solver-constraints',
    ])
      assert.ok(ids.includes(id), id);
    assert.ok(
      rules.every((r) => r.body.length > 100),
      'every rule explains itself',
    );
  });

  it('reports a broken rule file with the file and the key', () => {
    assert.throws(() => parseRule('x.md', 'no front matter'), /x\.md: no YAML front matter/);
    assert.throws(() => parseRule('x.md', rule('id: a\ntitle: t\nphases: [cooking]')), /x\.md: phases\.0: /);
    assert.throws(
      () => parseRule('x.md', rule('id: a\ntitle: t\nphases: [coding]\nchecks:\n  - { kind: forbidden_pattern, id: p, pattern: "(", message: m }')),
      /checks\.0\.pattern: not a valid regular expression/,
    );
    assert.throws(() => parseRule('x.md', rule('id: a\ntitle: t\nscope: auto\nphases: [coding]')), /globs: scope auto needs at least one glob/);
    assert.ok(new RuleError('x') instanceof Error);
  });

  it('selects the rules for a phase and the files being changed', async () => {
    const rules = await loadRules(RULES);
    const ids = (phase: Parameters<typeof selectRules>[1], files: string[] = []) => selectRules(rules, phase, files).map((r) => r.id);
    assert.ok(ids('coding', ['src/search.c']).includes('R04-forbidden-patterns'));
    assert.ok(!ids('coding', ['README.md']).includes('R04-forbidden-patterns'), 'an auto rule needs a matching file');
    assert.ok(!ids('planning').includes('R05-rule-evolution'));
    assert.ok(ids('post-evaluation').includes('R05-rule-evolution'));
    const manual = [parseRule('m.md', rule('id: M1\ntitle: t\nscope: manual\nphases: [coding]'))];
    assert.deepEqual(selectRules(manual, 'coding').length, 0);
    assert.deepEqual(selectRules(manual, 'coding', [], { manual: ['M1'] }).length, 1);
  });
});

describe('rules: the C/C++ lexer', () => {
  it('blanks comments and string literals but keeps lines and code', () => {
    const src = 'int a = fork(); // fork()\n/* fork()\n */ char *s = "fork() \\" x"; char c = \'"\';\nauto r = R"x(fork())x"; int n = 1\'000;\n';
    const out = blankNonCode(src);
    assert.equal(out.length, src.length);
    assert.equal(out.split('\n').length, src.split('\n').length);
    assert.equal(out.match(/fork/g)?.length, 1, out);
    assert.match(out, /int n = 1'000;/);
    assert.equal(blankNonCode(src, { keepStrings: true }).match(/fork/g)?.length, 3);
  });
});

describe('rules: compliance checks', () => {
  async function candidate(): Promise<{ ws: string; parent: string; cand: string }> {
    const ws = tempDir();
    await initWorkspace({
      dir: ws,
      seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const cand = path.join(ws, 'SATLUTION_1');
    await new CandidateStore(ws).create({ id: 1, parent: 0, status: 'coding' }); // the record first, then the directory
    fs.cpSync(path.join(ws, 'SATLUTION_0'), cand, { recursive: true });
    write(path.join(cand, 'HYPOTHESIS.md'), '# Try\n## Change\nx\n## Rationale\ny\n## Expected effect\nz\n');
    return { ws, parent: path.join(ws, 'SATLUTION_0'), cand };
  }
  const check = async (c: { parent: string; cand: string }, names: string[] = []) =>
    checkCompliance({ dir: c.cand, parentDir: c.parent, rules: await loadRules(RULES), phase: 'pre-evaluation', instanceNames: names });

  it('a faithful copy of its parent complies', async () => {
    const r = await check(await candidate());
    assert.deepEqual(r.violations, []);
    assert.equal(r.score, 1);
  });

  it('flags new forbidden code with rule, pattern and line, but not in comments or strings', async () => {
    const c = await candidate();
    const src = path.join(c.cand, 'tinysat.c');
    const lines = fs.readFileSync(src, 'utf8').split('\n');
    lines.push(
      '/* fork() would be wrong */',
      'static const char *why = "never fork()";',
      'static int spawn_helper (void) { return fork (); }',
      'static char table[65536];',
      '#include <pthread.h>',
    );
    fs.writeFileSync(src, lines.join('\n'));
    const r = await check(c);
    const at = (id: string) => r.violations.find((v) => v.check === id);
    assert.equal(at('threads-and-processes')?.line, lines.length - 2);
    assert.equal(at('threads-and-processes')?.rule, 'R04-forbidden-patterns');
    assert.equal(at('static-buffer')?.line, lines.length - 1);
    assert.equal(at('banned_include')?.line, lines.length);
    assert.equal(r.violations.filter((v) => v.check === 'threads-and-processes').length, 1, 'comments and strings are not code');
    assert.equal(r.errors, 3);
    assert.ok(r.score < 1);
  });

  it('catches a changed run script (e.g. one that stops writing proofs) and missing sections', async () => {
    const c = await candidate();
    const run = path.join(c.cand, 'bin', 'starexec_run_default');
    fs.writeFileSync(run, fs.readFileSync(run, 'utf8').replace('"$2/proof.out"', ''));
    write(path.join(c.cand, 'HYPOTHESIS.md'), '# Try something\nno sections\n');
    const r = await check(c);
    assert.deepEqual(r.violations.map((v) => [v.rule, v.check, v.file]).sort(), [
      ['R02-critical-correctness', 'protected_path', 'bin/starexec_run_default'],
      ['R03-mandatory-logging', 'required_section', 'HYPOTHESIS.md'],
      ['R03-mandatory-logging', 'required_section', 'HYPOTHESIS.md'],
    ]);
  });

  it('finds benchmark instance names in the source, strings included', async () => {
    const c = await candidate();
    fs.appendFileSync(
      path.join(c.cand, 'tinysat.c'),
      '\nstatic int special (const char *f) { return !strcmp (f, "uf250-1065-042.cnf"); }\n// uf250-1065-017 in a comment is fine\n',
    );
    const r = await check(c, ['uf250-1065-042.cnf', 'uf250-1065-017.cnf.xz', 'add8.cnf']);
    const leaks = r.violations.filter((v) => v.check === 'instance_name_leak');
    assert.equal(leaks.length, 1);
    assert.match(leaks[0]!.message, /benchmark instance "uf250-1065-042" is named in the source/);
  });

  it('does not count what the candidate inherited from its parent', async () => {
    const c = await candidate();
    const before = (await check(c)).inherited; // tinysat's own malloc/free calls (raw-allocation warnings)
    fs.appendFileSync(path.join(c.parent, 'tinysat.c'), '\nstatic int legacy (void) { return system ("true"); }\n');
    fs.appendFileSync(path.join(c.cand, 'tinysat.c'), '\nstatic int legacy (void) { return system ("true"); }\n');
    const r = await check(c);
    assert.equal(r.errors, 0);
    assert.equal(r.inherited, before + 1);
  });

  it('satlution rules check prints rule, file:line and exits 1 on errors', async () => {
    const c = await candidate();
    fs.appendFileSync(path.join(c.cand, 'tinysat.c'), '\nstatic int spawn_helper (void) { return fork (); }\n');
    const r = spawnSync(process.execPath, [CLI, 'rules', 'check', c.cand], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^error {3}R04-forbidden-patterns threads-and-processes {2}tinysat\.c:\d+ {2}solvers are single-threaded/m);
    assert.match(
      r.stdout,
      /1 error\(s\), 0 warning\(s\), \d+ hit\(s\) in code the candidate inherited \(not counted\); compliance \d+% \(\d+\/\d+ checks passed\)/,
    );
    const j = spawnSync(process.execPath, [CLI, 'rules', 'check', c.cand, '--json'], { encoding: 'utf8' });
    assert.equal((JSON.parse(j.stdout) as { errors: number }).errors, 1);
  });

  it('satlution eval stops a non-compliant candidate before building it', async () => {
    const c = await candidate();
    fs.appendFileSync(path.join(c.cand, 'tinysat.c'), '\nstatic int spawn_helper (void) { return fork (); }\n');
    const r = spawnSync(process.execPath, [CLI, 'eval', c.cand, '--stage', 'smoke', '--no-proofs'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stdout, /✗ comply +1 rule violation, first: R04-forbidden-patterns threads-and-processes tinysat\.c:\d+: solvers are single-threaded/);
    assert.doesNotMatch(r.stdout, /build/);
    assert.ok(!fs.existsSync(path.join(c.cand, 'bin', 'tinysat')), 'nothing was built');
  });
});

describe('rules: checks that apply in some phases only', () => {
  it('asks for RESULTS.md after evaluation, not before', async () => {
    const ws = tempDir();
    await initWorkspace({
      dir: ws,
      seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const dir = path.join(ws, 'SATLUTION_0');
    fs.rmSync(path.join(dir, 'RESULTS.md'));
    const rules = await loadRules(RULES);
    const before = await checkCompliance({ dir, rules, phase: 'pre-evaluation' });
    const after = await checkCompliance({ dir, rules, phase: 'post-evaluation' });
    assert.ok(!before.violations.some((v) => v.file === 'RESULTS.md'));
    assert.deepEqual(
      after.violations.filter((v) => v.file === 'RESULTS.md').map((v) => v.message),
      ['RESULTS.md is missing'],
    );
  });
});

describe('rules: candidates without a recorded parent', () => {
  it('a directory made by hand is judged against the primary seed, not trusted as a seed', async () => {
    const ws = tempDir();
    await initWorkspace({
      dir: ws,
      seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const dir = path.join(ws, 'SATLUTION_7'); // no record: adopted from disk as "unknown"
    fs.cpSync(path.join(ws, 'SATLUTION_0'), dir, { recursive: true });
    fs.appendFileSync(path.join(dir, 'tinysat.c'), '\nstatic int h (void) { return fork (); }\n');
    const r = spawnSync(process.execPath, [CLI, 'rules', 'check', dir], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stdout, /R04-forbidden-patterns threads-and-processes {2}tinysat\.c:\d+/);
  });

  it('satlution new starts a challenger from the champion, ready to edit', () => {
    const ws = tempDir();
    spawnSync(process.execPath, [CLI, 'init', '--yes', '--dir', ws, '--seed', path.join(FIXTURES, 'seeds', 'tinysat')]);
    const r = spawnSync(process.execPath, [CLI, 'new', '--dir', ws, '--title', 'try luby restarts'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), path.join(ws, 'SATLUTION_1'));
    assert.match(fs.readFileSync(path.join(ws, 'SATLUTION_1', 'HYPOTHESIS.md'), 'utf8'), /^# SATLUTION_1: try luby restarts\n\n## Change/);
    const st = JSON.parse(spawnSync(process.execPath, [CLI, 'status', '--json', '--dir', ws], { encoding: 'utf8' }).stdout) as {
      candidates: { dir: string; parent: string | null; status: string }[];
    };
    assert.deepEqual(
      st.candidates.map((c) => [c.dir, c.parent, c.status]),
      [
        ['SATLUTION_0', null, 'seed'],
        ['SATLUTION_1', 'SATLUTION_0', 'coding'],
      ],
    );
    assert.match(
      spawnSync(process.execPath, [CLI, 'new', '--dir', ws, '--from', 'SATLUTION_9'], { encoding: 'utf8' }).stderr,
      /SATLUTION_9 is not a known candidate/,
    );
  });
});
