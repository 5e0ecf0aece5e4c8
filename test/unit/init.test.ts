import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import { runSolver } from '../../src/core/run/runSolver';
import { silentLogger, type Approver } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { CHECKPOINT_REF } from '../../src/core/workspace/checkpoint';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { parseSeedArg } from '../../src/core/workspace/seeds';
import { readSnapshot } from '../../src/core/workspace/snapshot';
import { CLI, FIXTURES, RULES, tempDir, write } from './helpers';

const TINYSAT = path.join(FIXTURES, 'seeds', 'tinysat');
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();

function recordingApprover(answer: boolean): Approver & { asked: string[] } {
  const asked: string[] = [];
  return { asked, confirm: async (q) => (asked.push(q), answer) };
}

describe('workspace: init and seeds', () => {
  it('imports a directory seed, generates the StarExec scripts and lays out SATLUTION_0', async () => {
    const dir = tempDir();
    const approver = recordingApprover(true);
    const r = await initWorkspace({ dir, seeds: [{ name: 'tinysat', source: TINYSAT }], defaultRulesDir: RULES, approver, log: silentLogger });
    assert.deepEqual(approver.asked, ['Seed tinysat has no starexec_build and bin/starexec_run_default. Generate them?']);
    assert.deepEqual(r.generated, ['seeds/tinysat/starexec_build', 'seeds/tinysat/bin/starexec_run_default']);
    const cfg = parseConfig(fs.readFileSync(path.join(dir, 'satlution.yaml'), 'utf8'));
    assert.ok(cfg.ok);
    assert.deepEqual(cfg.config.seeds, [{ name: 'tinysat', source: TINYSAT, primary: false }]);
    // the seed is a read-only baseline; the candidate is writable
    const seedFile = path.join(dir, 'seeds', 'tinysat', 'tinysat.c');
    assert.equal(fs.statSync(seedFile).mode & 0o222, 0);
    assert.notEqual(fs.statSync(path.join(dir, 'SATLUTION_0', 'tinysat.c')).mode & 0o200, 0);
    assert.ok(fs.statSync(path.join(dir, 'SATLUTION_0', 'bin', 'starexec_run_default')).mode & 0o100);
    for (const f of ['HYPOTHESIS.md', 'CHANGELOG.md', 'RESULTS.md']) assert.ok(fs.readFileSync(path.join(dir, 'SATLUTION_0', f), 'utf8').length > 10);
    assert.deepEqual(fs.readdirSync(path.join(dir, '.rules')).sort(), fs.readdirSync(RULES).sort());
    for (const s of ['smoke', 'verify', 'perf']) assert.ok(fs.statSync(path.join(dir, 'benchmarks', s)).isDirectory());
    const snap = await readSnapshot(dir);
    assert.equal(snap.champion, 0);
    assert.deepEqual(
      snap.candidates.map((c) => [c.dir, c.status, c.seed, c.docs.length]),
      [['SATLUTION_0', 'seed', 'tinysat', 3]],
    );
    assert.equal(snap.seeds[0]!.name, 'tinysat');
    assert.ok(snap.seeds[0]!.files >= 2);
  });

  it('builds SATLUTION_0 with the generated starexec_build and runs it by the StarExec convention', async function () {
    this.timeout(60000);
    const dir = tempDir();
    await initWorkspace({ dir, seeds: [{ name: 'tinysat', source: TINYSAT }], defaultRulesDir: RULES, approver: recordingApprover(true), log: silentLogger });
    const cand = path.join(dir, 'SATLUTION_0');
    const out = execFileSync('bash', ['starexec_build'], { cwd: cand, encoding: 'utf8' });
    assert.match(out, /bin\/tinysat <- \.\/tinysat/);
    const proofDir = tempDir();
    const sat = await runSolver({ solverDir: cand, cnf: path.join(FIXTURES, 'cnf', 'sat-small.cnf'), timeoutS: 10 });
    assert.deepEqual([sat.answer, sat.exitCode, sat.timedOut], ['SAT', 10, false]);
    const unsat = await runSolver({ solverDir: cand, cnf: path.join(FIXTURES, 'cnf', 'unsat-small.cnf'), proofDir, timeoutS: 10 });
    assert.deepEqual([unsat.answer, unsat.exitCode], ['UNSAT', 20]);
  });

  it('leaves the scripts out when the person declines, and says what is missing', async () => {
    const dir = tempDir();
    const warnings: string[] = [];
    const r = await initWorkspace({
      dir,
      seeds: [{ name: 'tinysat', source: TINYSAT }],
      defaultRulesDir: RULES,
      approver: recordingApprover(false),
      log: { ...silentLogger, warn: (m) => warnings.push(m) },
    });
    assert.deepEqual(r.generated, []);
    assert.ok(!fs.existsSync(path.join(dir, 'SATLUTION_0', 'starexec_build')));
    assert.match(warnings.join('\n'), /keeps no starexec_build and bin\/starexec_run_default/);
  });

  it('never overwrites scripts a seed already has', async () => {
    const seed = tempDir();
    fs.cpSync(TINYSAT, seed, { recursive: true });
    write(path.join(seed, 'starexec_build'), '#!/bin/sh\n# mine\nmake\n');
    const dir = tempDir();
    const approver = recordingApprover(true);
    const r = await initWorkspace({ dir, seeds: [{ name: 's', source: seed }], defaultRulesDir: RULES, approver, log: silentLogger });
    assert.deepEqual(r.generated, ['seeds/s/bin/starexec_run_default']);
    assert.equal(fs.readFileSync(path.join(dir, 'SATLUTION_0', 'starexec_build'), 'utf8'), '#!/bin/sh\n# mine\nmake\n');
  });

  it('imports several seeds, the primary one becoming SATLUTION_0', async () => {
    const dir = tempDir();
    const other = tempDir();
    fs.cpSync(TINYSAT, other, { recursive: true });
    await initWorkspace({
      dir,
      seeds: [
        { name: 'a', source: TINYSAT },
        { name: 'b', source: other },
      ],
      primary: 'b',
      defaultRulesDir: RULES,
      approver: recordingApprover(true),
      log: silentLogger,
    });
    const cfg = parseConfig(fs.readFileSync(path.join(dir, 'satlution.yaml'), 'utf8'));
    assert.ok(cfg.ok);
    assert.deepEqual(
      cfg.config.seeds.map((s) => [s.name, s.primary]),
      [
        ['a', false],
        ['b', true],
      ],
    );
    assert.equal((await readSnapshot(dir)).candidates[0]!.seed, 'b');
  });

  it('imports a seed from a git URL at a given ref and records the commit', async () => {
    const repo = tempDir();
    fs.cpSync(TINYSAT, repo, { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'v1');
    git(repo, 'tag', 'v1');
    const v1 = git(repo, 'rev-parse', 'HEAD');
    fs.appendFileSync(path.join(repo, 'tinysat.c'), '/* v2 */\n');
    git(repo, 'commit', '-qam', 'v2');
    const dir = tempDir();
    const r = await initWorkspace({
      dir,
      seeds: [parseSeedArg(`tiny=file://${repo}#v1`)],
      defaultRulesDir: RULES,
      approver: recordingApprover(true),
      log: silentLogger,
    });
    assert.equal(r.seeds[0]!.commit, v1);
    assert.ok(!fs.existsSync(path.join(dir, 'seeds', 'tiny', '.git')));
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'SATLUTION_0', 'tinysat.c'), 'utf8'), /v2/);
  });

  it('fails clearly on a bad seed and leaves no half-made workspace', async () => {
    const dir = tempDir();
    const base = { dir, defaultRulesDir: RULES, approver: recordingApprover(true), log: silentLogger };
    await assert.rejects(initWorkspace({ ...base, seeds: [{ name: 'x', source: path.join(dir, 'nope') }] }), /seed directory .*nope does not exist/);
    await assert.rejects(
      initWorkspace({ ...base, seeds: [{ name: 'x', source: 'file:///no/such/repo.git' }] }),
      /git could not fetch seed file:\/\/\/no\/such\/repo\.git/,
    );
    await assert.rejects(initWorkspace({ ...base, seeds: [{ name: 'x', source: path.dirname(dir) }] }), /contains the workspace itself/);
    assert.ok(!fs.existsSync(path.join(dir, 'satlution.yaml')));
    assert.ok(!fs.existsSync(path.join(dir, 'SATLUTION_0')));
    assert.deepEqual(fs.readdirSync(dir), []); // no staging leftovers, no empty seeds/
  });

  it('refuses to initialize twice', async () => {
    const dir = tempDir();
    const o = { dir, seeds: [{ name: 'tinysat', source: TINYSAT }], defaultRulesDir: RULES, approver: recordingApprover(true), log: silentLogger };
    await initWorkspace(o);
    await assert.rejects(initWorkspace(o), /already exists: this workspace is initialized/);
  });

  it('parses --seed arguments', () => {
    assert.deepEqual(parseSeedArg('kissat=../k'), { name: 'kissat', source: '../k' });
    assert.deepEqual(parseSeedArg('cadical=https://example.org/x/cadical.git#rel-1.7'), {
      name: 'cadical',
      source: 'https://example.org/x/cadical.git#rel-1.7',
    });
    assert.deepEqual(parseSeedArg('/src/kissat-4.0.2/'), { name: 'kissat-4.0.2', source: '/src/kissat-4.0.2/' });
    assert.deepEqual(parseSeedArg('git@host:solvers/minisat.git'), { name: 'minisat', source: 'git@host:solvers/minisat.git' });
  });
});

describe('workspace: git checkpoints', () => {
  it("checkpoints SATLUTION_0 on its own ref without touching the user's branch or index", async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    write(path.join(dir, 'notes.txt'), 'mine\n');
    git(dir, 'add', 'notes.txt');
    git(dir, 'commit', '-qm', 'user commit');
    write(path.join(dir, 'staged.txt'), 'staged\n');
    git(dir, 'add', 'staged.txt');
    const head = git(dir, 'rev-parse', 'HEAD');
    const seed = tempDir();
    fs.cpSync(TINYSAT, seed, { recursive: true });
    execFileSync('make', ['-s'], { cwd: seed }); // a built binary must stay out of the checkpoint
    fs.writeFileSync(path.join(seed, 'tinysat.o'), 'object');
    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (m: string) => warnings.push(m) };
    const r = await initWorkspace({ dir, seeds: [{ name: 'tinysat', source: seed }], defaultRulesDir: RULES, approver: recordingApprover(true), log });
    assert.deepEqual(warnings, []);
    assert.ok(r.checkpoint);
    assert.equal(git(dir, 'rev-parse', CHECKPOINT_REF), r.checkpoint);
    assert.equal(git(dir, 'rev-parse', 'HEAD'), head, "the user's branch did not move");
    assert.equal(git(dir, 'diff', '--cached', '--name-only'), 'staged.txt', "the user's index is unchanged");
    const files = git(dir, 'ls-tree', '-r', '--name-only', CHECKPOINT_REF).split('\n');
    assert.ok(files.includes('SATLUTION_0/tinysat.c'));
    assert.ok(files.includes('SATLUTION_0/bin/starexec_run_default'));
    assert.ok(!files.includes('SATLUTION_0/tinysat'), 'the ELF binary is not versioned');
    assert.ok(!files.includes('SATLUTION_0/tinysat.o'));
    const { index } = await new CandidateStore(dir).load();
    assert.equal(index.candidates[0]!.checkpoint, r.checkpoint);
  });
});

describe('workspace: git checkpoints in an ignored directory', () => {
  it('writes no checkpoint when the workspace is ignored by the enclosing repository', async () => {
    const repo = tempDir();
    git(repo, 'init', '-q');
    write(path.join(repo, '.gitignore'), 'scratch/\n');
    const dir = path.join(repo, 'scratch', 'ws');
    const r = await initWorkspace({
      dir,
      seeds: [{ name: 'tinysat', source: TINYSAT }],
      defaultRulesDir: RULES,
      approver: recordingApprover(true),
      log: silentLogger,
    });
    assert.equal(r.checkpoint, undefined);
    assert.throws(() => git(repo, 'rev-parse', '--verify', '--quiet', CHECKPOINT_REF));
  });
});

describe('workspace: a failed init leaves the folder as it was', () => {
  it('rolls back what it created when a later step fails, and can be retried', async () => {
    const dir = tempDir();
    write(path.join(dir, 'mine.txt'), 'keep me\n');
    const o = { dir, seeds: [{ name: 'tinysat', source: TINYSAT }], approver: recordingApprover(true), log: silentLogger };
    await assert.rejects(initWorkspace({ ...o, defaultRulesDir: path.join(dir, 'no-rules') }), /default rulebase .* is missing/);
    assert.deepEqual(fs.readdirSync(dir), ['mine.txt']);
    const r = await initWorkspace({ ...o, defaultRulesDir: RULES });
    assert.ok(fs.existsSync(r.configFile));
  });

  it('stops when cancelled and leaves nothing behind', async () => {
    const dir = tempDir();
    const abort = new AbortController();
    const approver: Approver = { confirm: async () => (abort.abort(new Error('cancelled by the person')), true) };
    await assert.rejects(
      initWorkspace({
        dir,
        seeds: [
          { name: 'a', source: TINYSAT },
          { name: 'b', source: TINYSAT },
        ],
        defaultRulesDir: RULES,
        approver,
        log: silentLogger,
        signal: abort.signal,
      }),
      /cancelled by the person/,
    );
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});

describe('workspace: an init killed half-way', () => {
  it('is cleaned up by the next init, which then succeeds', async function () {
    this.timeout(60000);
    // A seed big enough that the copy is still running when the process is killed.
    const seed = tempDir();
    fs.cpSync(TINYSAT, seed, { recursive: true });
    for (let i = 0; i < 3000; i++) write(path.join(seed, 'data', `f${i}.txt`), 'x'.repeat(2000));
    for (let attempt = 0; attempt < 3; attempt++) {
      const dir = tempDir();
      const child = spawn(process.execPath, [CLI, 'init', '--yes', '--dir', dir, '--seed', `big=${seed}`], { stdio: ['ignore', 'ignore', 'pipe'] });
      await new Promise<void>((r) => child.stderr.on('data', (d: Buffer) => /Importing seed/.test(String(d)) && r()));
      await new Promise((r) => setTimeout(r, 30 + attempt * 60));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      if (fs.existsSync(path.join(dir, 'satlution.yaml'))) continue; // finished before the kill: nothing to test
      assert.ok(fs.existsSync(path.join(dir, '.satlution-init.json')), 'the interrupted init left its marker');
      const warnings: string[] = [];
      const r = await initWorkspace({
        dir,
        seeds: [{ name: 'big', source: seed }],
        defaultRulesDir: RULES,
        approver: recordingApprover(true),
        log: { ...silentLogger, warn: (m) => warnings.push(m) },
      });
      assert.match(warnings.join('\n'), /Removing what an interrupted init left/);
      assert.ok(fs.existsSync(r.configFile));
      assert.ok(!fs.existsSync(path.join(dir, '.satlution-init.json')));
      assert.deepEqual(fs.readdirSync(path.join(dir, 'seeds')), ['big']);
      return;
    }
    throw new Error('init always finished before it could be killed; make the seed bigger');
  });

  it('refuses to run beside another init that is still alive', async () => {
    const dir = tempDir();
    write(path.join(dir, '.satlution-init.json'), JSON.stringify({ pid: process.ppid, created: [] }));
    await assert.rejects(
      initWorkspace({ dir, seeds: [{ name: 'tinysat', source: TINYSAT }], defaultRulesDir: RULES, approver: recordingApprover(true), log: silentLogger }),
      /another init \(process \d+\) is creating a workspace/,
    );
  });
});

describe('workspace: generated StarExec scripts', () => {
  it('say which executables a build produced when the binary name does not match the seed name', async function () {
    this.timeout(30000);
    const dir = tempDir();
    await initWorkspace({ dir, seeds: [{ name: 'mysolver', source: TINYSAT }], defaultRulesDir: RULES, approver: recordingApprover(true), log: silentLogger });
    const cand = path.join(dir, 'SATLUTION_0');
    const r = spawnSync('bash', ['starexec_build'], { cwd: cand, encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no executable named mysolver; set BINARY at the top of this script/);
    assert.match(r.stderr, /Executables built:\n\.\/tinysat/);
    // the fix the message suggests works, for the run script as well
    for (const f of ['starexec_build', 'bin/starexec_run_default'])
      fs.writeFileSync(path.join(cand, f), fs.readFileSync(path.join(cand, f), 'utf8').replace('BINARY=mysolver', 'BINARY=tinysat'));
    assert.equal(spawnSync('bash', ['starexec_build'], { cwd: cand }).status, 0);
    const run = spawnSync(path.join(cand, 'bin', 'starexec_run_default'), [path.join(FIXTURES, 'cnf', 'unsat-small.cnf')], { encoding: 'utf8' });
    assert.equal(run.status, 20);
    assert.match(run.stdout, /^s UNSATISFIABLE$/m);
  });
});
