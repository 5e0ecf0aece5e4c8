import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseConfig } from '../../src/core/config/load';
import { checkRunnerHealth } from '../../src/core/runners/health';
import { diffCandidates, unifiedDiff } from '../../src/core/workspace/candidateDiff';
import { statusText } from '../../src/extension/statusText';
import { tempDir, write } from './helpers';

describe('candidate diff', () => {
  it('lists added, deleted and modified sources with line counts, and nothing that is equal', async () => {
    const d = tempDir();
    const a = path.join(d, 'SATLUTION_1');
    const b = path.join(d, 'SATLUTION_2');
    write(path.join(a, 'src/solver.c'), 'int a;\nint b;\nint c;\n');
    write(path.join(b, 'src/solver.c'), 'int a;\nint B;\nint c;\nint d;\n');
    write(path.join(a, 'src/same.h'), '#define X 1\n');
    write(path.join(b, 'src/same.h'), '#define X 1\n');
    write(path.join(a, 'src/gone.c'), 'x\ny\n');
    write(path.join(b, 'src/new.c'), 'one\n');
    write(path.join(b, 'CHANGELOG.md'), '- changed solver.c\n');
    const changes = await diffCandidates(a, b);
    assert.deepEqual(changes, [
      { path: 'CHANGELOG.md', kind: 'added', added: 1, removed: 0 },
      { path: 'src/gone.c', kind: 'deleted', added: 0, removed: 2 },
      { path: 'src/new.c', kind: 'added', added: 1, removed: 0 },
      { path: 'src/solver.c', kind: 'modified', added: 2, removed: 1 },
    ]);
  });

  it('leaves out build products, binaries and the documents shown beside the diff', async () => {
    const d = tempDir();
    const a = path.join(d, 'A');
    const b = path.join(d, 'B');
    write(path.join(a, 'main.c'), 'int main(){}\n');
    write(path.join(b, 'main.c'), 'int main(){}\n');
    write(path.join(b, 'main.o'), 'object');
    write(path.join(b, 'build/kissat'), 'binary');
    write(path.join(b, 'bin/solver'), 'binary');
    write(path.join(b, 'data.bin'), 'a\0b');
    write(path.join(b, 'HYPOTHESIS.md'), '# plan\n');
    write(path.join(b, 'RESULTS.md'), '# results\n');
    write(path.join(b, 'bin/starexec_run_default'), '#!/bin/sh\n');
    assert.deepEqual(
      (await diffCandidates(a, b)).map((c) => c.path),
      ['bin/starexec_run_default'],
    );
  });

  it('compares large files byte for byte without counting lines', async () => {
    const d = tempDir();
    const big = 'x'.repeat(3 << 20);
    write(path.join(d, 'A/big.cnf'), big);
    write(path.join(d, 'B/big.cnf'), big);
    assert.deepEqual(await diffCandidates(path.join(d, 'A'), path.join(d, 'B')), []);
    write(path.join(d, 'B/big.cnf'), big + 'y');
    assert.deepEqual(await diffCandidates(path.join(d, 'A'), path.join(d, 'B')), [{ path: 'big.cnf', kind: 'modified', added: null, removed: null }]);
  });

  it('shows a link as its target and a special file as its kind, never reading through either', async () => {
    const d = tempDir();
    write(path.join(d, 'A/x.c'), 'x\n');
    write(path.join(d, 'A/.hidden/y.c'), 'y\n');
    write(path.join(d, 'secret'), 'do not show\n');
    fs.mkdirSync(path.join(d, 'B/.hidden'), { recursive: true });
    write(path.join(d, 'B/.hidden/y.c'), 'y changed\n');
    fs.symlinkSync(path.join(d, 'secret'), path.join(d, 'B', 'x.c'));
    fs.symlinkSync('x.c', path.join(d, 'B', 'inside'));
    spawnSync('mkfifo', [path.join(d, 'B', 'pipe')]);
    const changes = await diffCandidates(path.join(d, 'A'), path.join(d, 'B'));
    assert.deepEqual(
      changes.map((c) => [c.path, c.kind]),
      [
        ['.hidden/y.c', 'modified'],
        ['inside', 'added'],
        ['pipe', 'added'],
        ['x.c', 'modified'],
      ],
    );
    assert.deepEqual(changes.find((c) => c.path === 'x.c')!.after, { link: path.join(d, 'secret'), outside: true });
    assert.deepEqual(changes.find((c) => c.path === 'inside')!.after, { link: 'x.c', outside: true });
    assert.deepEqual(changes.find((c) => c.path === 'pipe')!.after, { special: 'a FIFO (named pipe)' });
    const text = await unifiedDiff(path.join(d, 'A'), path.join(d, 'B'));
    assert.match(text, /\+symbolic link -> .*secret \(leads outside the candidate\)/);
    assert.match(text, /\+a FIFO \(named pipe\)/);
    assert.doesNotMatch(text, /do not show/);
  });
});

describe('runner health', () => {
  const config = (yaml: string) => {
    const r = parseConfig(yaml);
    if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
    return r.config;
  };
  const base = 'seeds:\n  - { name: s, source: ./s }\n';

  it('checks node, cores, drat-trim, CPU time, the memory, processes and disk limits and disk space of a local runner', async () => {
    const c = config(base + 'runners: [{name: local, kind: local, jobs: 1}]\n');
    const f = await checkRunnerHealth(c.runners[0]!, c, tempDir());
    assert.deepEqual(
      f.map((x) => x.check),
      ['node', 'cores', 'drat-trim', 'sandbox', 'CPU time', 'memory limit', 'processes limit', 'disk limit', 'disk'],
    );
    assert.match(
      f.find((x) => x.check === 'CPU time')!.detail,
      /^(user \+ system of each run's whole process tree, orphans included, from (cpuacct\.usage|cpu\.stat) of its own cgroup|not measured: .* To get it: )/,
    );
    assert.match(
      f.find((x) => x.check === 'processes limit')!.detail,
      /^256 per build or run, (enforced with cgroup-v[12] pids\.max|but (no cgroup can hold it here|the cgroup-v2 here has no pids controller))/,
    );
    assert.match(f.find((x) => x.check === 'disk limit')!.detail, /^1024 MB for a build's directory/);
    assert.equal(f.find((x) => x.check === 'node')!.level, 'ok');
    assert.match(f.find((x) => x.check === 'cores')!.detail, /^1 parallel run on \d+ cores$/);
    assert.match(f.find((x) => x.check === 'disk')!.detail, /GB free/);
    assert.deepEqual(
      [f.find((x) => x.check === 'sandbox')!.level, f.find((x) => x.check === 'sandbox')!.detail],
      ['ok', 'bubblewrap on this machine: builds and runs see only the candidate (and their instance), no network, a cleared environment'],
    );
  });

  it('says when a runner measures without isolation, and what a missing bubblewrap needs', async () => {
    const off = config(base + 'runners: [{name: local, kind: local, jobs: 1, sandbox: off}]\n');
    const w = (await checkRunnerHealth(off.runners[0]!, off, tempDir())).find((x) => x.check === 'sandbox')!;
    assert.equal(w.level, 'warning');
    assert.match(w.detail, /measured without isolation/);
    const missing = config(base + 'runners: [{name: local, kind: local, jobs: 1}]\nsandbox: { mode: on, bwrap: /nonexistent/bwrap }\n');
    const e = (await checkRunnerHealth(missing.runners[0]!, missing, tempDir())).find((x) => x.check === 'sandbox')!;
    assert.equal(e.level, 'error');
    assert.match(e.detail, /sandbox\.bwrap names \/nonexistent\/bwrap/);
  });

  it('warns when more slots than cores are configured, and errors on a missing checker that stages need', async () => {
    const c = config(base + 'runners: [{name: local, kind: local, jobs: 4096}]\nevaluation: {drat_trim: /nonexistent/drat-trim}\n');
    const f = await checkRunnerHealth(c.runners[0]!, c, tempDir());
    assert.equal(f.find((x) => x.check === 'cores')!.level, 'warning');
    // A configured path is used as given (so a typo is reported where it is used, by the proof gate).
    assert.equal(f.find((x) => x.check === 'drat-trim')!.detail, '/nonexistent/drat-trim');
  });

  it('reports an SSH host it cannot reach as a connection error', async () => {
    const c = config(base + 'runners: [{name: local, kind: local}, {name: box, kind: ssh, host: lab.invalid, jobs: 2}]\n');
    const f = await checkRunnerHealth(c.runners[1]!, c, tempDir());
    assert.equal(f.length, 1);
    assert.equal(f[0]!.check, 'connection');
    assert.equal(f[0]!.level, 'error');
    assert.match(f[0]!.detail, /cannot connect to lab\.invalid/);
  });
});

describe('status bar text', () => {
  const cycle = {
    cycle: 3,
    step: 'code' as const,
    parent: 1,
    candidate: 4,
    title: 'restarts',
    started_at: '',
    updated_at: '',
    outcome: null,
    champion_changed: false,
    proposals: [],
    hint: null,
    island: null,
    selected: null,
  };
  it('shows the running phase and the champion with its PAR-2', () => {
    const t = statusText(cycle, true, { dir: 'SATLUTION_1', par2: 12.345 });
    assert.equal(t.text, '$(sync~spin) cycle 3: code  $(star-full) SATLUTION_1 12.35 s');
    assert.match(t.tooltip, /Cycle 3 is at step "code" — restarts/);
  });
  it('says how to continue an interrupted cycle, and when nothing was measured', () => {
    const t = statusText(cycle, false, { dir: 'SATLUTION_0', par2: null });
    assert.match(t.text, /debug-pause/);
    assert.match(t.tooltip, /Resume Evolution Cycle continues it/);
    assert.match(t.tooltip, /not measured yet/);
    assert.equal(statusText(undefined, false, undefined).text, '$(beaker) SATLUTION  $(star-empty) no champion');
  });
});
