// A gate with nothing to check must not pass: an empty smoke or perf set, or a verify stage whose runs
// gave no answer that could be checked, fails and says what to add; evaluation.vacuous_gates: warn
// lets it pass with a warning that the document, RESULTS.md, `satlution eval` and `status` show.
// Real solvers (the fixtures, cadical), real drat-trim, through the evaluation service and the CLI.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import type { Config } from '../../src/core/config/schema';
import { parseEvalDoc, vacuousWarnings } from '../../src/core/eval/evalDoc';
import { type Evaluation, evaluateSolver } from '../../src/core/eval/service';
import type { StageName } from '../../src/core/config/schema';
import { pigeonhole, planted3Sat } from '../../src/core/instances/generators';
import { silentLogger } from '../../src/core/ports';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { RESULTS_FILE, writeResults } from '../../src/core/workspace/resultsFile';
import { CLI, FIXTURES, RULES, tempDir, WORKER, write } from './helpers';

const DRAT_TRIM = process.env.SATLUTION_DRAT_TRIM;
const HONEST = path.join(FIXTURES, 'liars', 'honest');
const HANG = path.join(FIXTURES, 'liars', 'hang');

/** A set of two SAT and one UNSAT formula, with their answers in meta.csv unless told otherwise. */
function fill(dir: string, withMeta = true): string {
  let meta = 'instance,family,expected\n';
  for (const s of [1, 2]) {
    write(path.join(dir, `planted-${s}.cnf`), planted3Sat(60, 4.0, 700 + s));
    meta += `planted-${s}.cnf,planted,SAT\n`;
  }
  write(path.join(dir, 'php-5-4.cnf'), pigeonhole(5, 4));
  meta += 'php-5-4.cnf,pigeonhole,UNSAT\n';
  if (withMeta) write(path.join(dir, 'meta.csv'), meta);
  return dir;
}

/** A workspace directory with these sets filled (the others exist, empty). */
function workspace(filled: string[]): string {
  const ws = tempDir();
  for (const set of ['smoke', 'verify', 'perf']) {
    fs.mkdirSync(path.join(ws, 'benchmarks', set), { recursive: true });
    if (filled.includes(set)) fill(path.join(ws, 'benchmarks', set));
  }
  return ws;
}

/** The config of a workspace with the default sets; `extra` is appended YAML. */
function config(extra = ''): Config {
  const r = parseConfig(
    `seeds: [{ name: s, source: . }]\nstages:\n  smoke: { timeout_s: 5 }\n  verify: { timeout_s: 2 }\n  perf: { timeout_s: 5, audit: { min: 0, share: 0 } }\n${extra}`,
  );
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.key}: ${i.message}`).join('\n'));
  return r.config;
}

function evaluate(ws: string, solverDir: string, cfg: Config, stage: StageName | 'all' = 'all', noProofs = false): Promise<Evaluation> {
  return evaluateSolver({
    ws,
    config: cfg,
    solverDir,
    overrides: { stage, jobs: 2, noProofs },
    build: false,
    rules: false,
    record: false,
    dratTrim: DRAT_TRIM!,
    runnerEnv: { workerFile: WORKER },
  });
}

const gate = (e: Evaluation, name: string) => e.doc.gates.find((g) => g.gate === name);

describe('vacuous gates', function () {
  this.timeout(180000);
  before(function () {
    if (!DRAT_TRIM || spawnSync('cadical', ['--version']).status !== 0) {
      if (process.env.CI) throw new Error('cadical and drat-trim are required (scripts/setup-sat-tools.sh)');
      this.skip();
    }
  });

  it('defaults to fail', () => {
    assert.equal(config().evaluation.vacuous_gates, 'fail');
    assert.equal(config('evaluation: { vacuous_gates: warn }').evaluation.vacuous_gates, 'warn');
    assert.ok(!parseConfig('seeds: [{ name: s, source: . }]\nevaluation: { vacuous_gates: maybe }\n').ok);
  });

  it('fails an empty smoke set and says what to add', async () => {
    const ws = workspace(['verify', 'perf']);
    const e = await evaluate(ws, HONEST, config());
    assert.equal(e.verdict, 'fail');
    assert.deepEqual(
      e.doc.gates.map((g) => [g.gate, g.ok]),
      [['smoke', false]],
      'nothing runs after the empty set',
    );
    assert.equal(
      gate(e, 'smoke')!.detail,
      'no instances in benchmarks/smoke: nothing to check — add instances (or run `satlution generate`), or set evaluation.vacuous_gates: warn',
    );
    assert.deepEqual(vacuousWarnings(e.doc), []);
  });

  it('fails an empty perf set after smoke and verify passed', async () => {
    const ws = workspace(['smoke', 'verify']);
    const e = await evaluate(ws, HONEST, config());
    assert.equal(e.verdict, 'fail');
    assert.deepEqual(
      e.doc.gates.map((g) => [g.gate, g.ok]),
      [
        ['smoke', true],
        ['verify', true],
        ['perf', false],
      ],
    );
    assert.match(gate(e, 'perf')!.detail, /^no instances in benchmarks\/perf: nothing to check — add instances/);
  });

  it('fails a verify stage where every run timed out: no answer was checked', async () => {
    const ws = workspace(['smoke', 'verify', 'perf']);
    const e = await evaluate(ws, HANG, config(), 'verify');
    assert.equal(e.verdict, 'fail');
    const v = gate(e, 'verify')!;
    assert.equal(v.ok, false);
    assert.equal(
      v.detail,
      'none of the 3 answers could be checked (3 timed out) — add instances the solver solves within the verify timeout (2 s), or known answers in meta.csv, or set evaluation.vacuous_gates: warn',
    );
    assert.deepEqual(
      e.doc.instances.map((i) => i.status),
      ['timeout', 'timeout', 'timeout'],
    );
  });

  it('counts an answer that agrees with meta.csv as checked, and an unproven one without it as not', async () => {
    // Two workspaces: a run stored in one (with meta.csv's answer) would be reused for the other.
    const [known, unknown] = [true, false].map((meta) => {
      const ws = tempDir();
      const dir = path.join(ws, 'set');
      write(path.join(dir, 'php-5-4.cnf'), pigeonhole(5, 4));
      write(path.join(dir, 'php-6-5.cnf'), pigeonhole(6, 5));
      if (meta) write(path.join(dir, 'meta.csv'), 'instance,family,expected\nphp-5-4.cnf,pigeonhole,UNSAT\nphp-6-5.cnf,pigeonhole,UNSAT\n');
      return ws;
    });
    // Without proofs an UNSAT answer is checked only against a known one.
    const run = (ws: string) =>
      evaluateSolver({
        ws,
        config: config(),
        solverDir: HONEST,
        overrides: { bench: path.join(ws, 'set'), jobs: 2, noProofs: true },
        build: false,
        rules: false,
        record: false,
        runnerEnv: { workerFile: WORKER },
      });
    const ok = await run(known!);
    assert.equal(ok.verdict, 'pass', ok.doc.gates.map((g) => g.detail).join('; '));
    const bad = await run(unknown!);
    assert.equal(bad.verdict, 'fail');
    assert.match(gate(bad, 'verify')!.detail, /^none of the 2 answers could be checked \(2 answered with nothing to check it against\)/);
  });

  it('with vacuous_gates: warn, passes with the warning in the document and in RESULTS.md', async () => {
    const ws = workspace(['smoke', 'verify']);
    const cfg = config('evaluation: { vacuous_gates: warn }');
    const e = await evaluate(ws, HONEST, cfg);
    assert.equal(e.verdict, 'pass');
    assert.deepEqual(
      e.doc.gates.map((g) => [g.gate, g.ok, g.warning !== undefined]),
      [
        ['smoke', true, false],
        ['verify', true, false],
        ['perf', true, true],
      ],
    );
    assert.equal(gate(e, 'perf')!.detail, 'no instances in benchmarks/perf: nothing to check');
    const warnings = vacuousWarnings(e.doc);
    assert.deepEqual(warnings, ['perf checked nothing: no instances in benchmarks/perf: nothing to check — add instances (or run `satlution generate`)']);
    // The document keeps it through a write and a read (still version 1).
    const read = parseEvalDoc(JSON.parse(JSON.stringify(e.doc)));
    assert.ok(read.ok);
    assert.deepEqual(vacuousWarnings(read.doc), warnings);
    assert.equal(read.doc.version, 1);

    const cand = path.join(tempDir(), 'SATLUTION_4');
    fs.mkdirSync(cand);
    await writeResults(cand, 2, e.doc);
    const md = fs.readFileSync(path.join(cand, RESULTS_FILE), 'utf8');
    const lines = md.split('\n');
    assert.equal(lines[2], `> **Warning:** ${warnings[0]}`, 'at the top, before the verdict');
    assert.match(md, /Verdict: \*\*pass\*\*/);
  });

  it('with vacuous_gates: warn, a verify stage that timed out everywhere passes with a warning', async () => {
    const ws = workspace(['smoke', 'verify', 'perf']);
    const e = await evaluate(ws, HANG, config('evaluation: { vacuous_gates: warn }'), 'verify');
    assert.equal(e.verdict, 'pass');
    const v = gate(e, 'verify')!;
    assert.equal(v.ok, true);
    assert.match(v.detail, /^0\/3 solved, PAR-2 /);
    assert.equal(
      v.warning,
      'verify checked nothing: none of the 3 answers could be checked (3 timed out) — add instances the solver solves within the verify timeout (2 s), or known answers in meta.csv',
    );
  });

  it('satlution eval and status say the warning with the verdict; a failure says what to add', async () => {
    const ws = tempDir();
    await initWorkspace({
      dir: ws,
      seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: ws, encoding: 'utf8' });
    // The sets init makes are empty: the smoke gate fails and says what to add.
    const failed = cli('eval', 'SATLUTION_0', '--stage', 'smoke', '--no-build', '--no-rules');
    assert.equal(failed.status, 1, failed.stdout + failed.stderr);
    assert.match(
      failed.stdout,
      /✗ smoke +no instances in benchmarks\/smoke: nothing to check — add instances \(or run `satlution generate`\), or set evaluation\.vacuous_gates: warn/,
    );
    assert.match(failed.stdout, /verdict: fail\n$/);

    const yaml = path.join(ws, 'satlution.yaml');
    fs.writeFileSync(yaml, fs.readFileSync(yaml, 'utf8').replace(/^ {2}vacuous_gates: fail\b/m, '  vacuous_gates: warn'));
    const passed = cli('eval', 'SATLUTION_0', '--stage', 'smoke', '--no-build', '--no-rules');
    assert.equal(passed.status, 0, passed.stdout + passed.stderr);
    // Not a terminal: the warning is plain text (red only on a TTY).
    assert.match(passed.stdout, /verdict: pass\nwarning: smoke checked nothing: no instances in benchmarks\/smoke: nothing to check — add instances/);
    assert.ok(!passed.stdout.includes('\x1b['), 'no ANSI colour escapes');

    const status = cli('status');
    assert.match(status.stdout, /SATLUTION_0 .*\n +warning: smoke checked nothing: no instances in benchmarks\/smoke/);
    const json = JSON.parse(cli('status', '--json').stdout) as { candidates: { dir: string; warnings: string[] }[] };
    assert.deepEqual(json.candidates.find((c) => c.dir === 'SATLUTION_0')!.warnings, [
      'smoke checked nothing: no instances in benchmarks/smoke: nothing to check — add instances (or run `satlution generate`)',
    ]);
  });
});
