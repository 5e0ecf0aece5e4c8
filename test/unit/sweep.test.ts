// The sweep of a killed evaluator's leftovers (src/core/run/sweep.ts), with real processes: a child
// evaluator makes a run's cgroups (memory, and cpuacct with cgroup v1) through memoryJail, starts a solver-like `sleep 300` in it and a run
// directory, and is SIGKILLed; the sweep must kill the sleep and remove both. What belongs to a live
// evaluator (another child, this process) stays, also while two sweeps run at once.
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ownCgroups } from '../../src/core/run/cgroups';
import { memoryJail, type MemoryJail } from '../../src/core/run/limits';
import { ownerTag, procStart } from '../../src/core/run/owner';
import { sweepLeftovers } from '../../src/core/run/sweep';
import { keepProof, keptProofPath, proofRoot, releaseHold, sweepHolds } from '../../src/core/run/keptProof';
import { tempDir, write } from './helpers';

/** A child "evaluator": one jail, a sleep in it, one run directory in argv[2]; prints what it made. */
const CHILD = `
const { memoryJail } = require(${JSON.stringify(require.resolve('../../src/core/run/limits'))});
const { ownerTag } = require(${JSON.stringify(require.resolve('../../src/core/run/owner'))});
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
(async () => {
  const j = await memoryJail(64);
  const [cmd, args] = j.wrap('sleep', ['300']);
  const s = spawn(cmd, args, { stdio: 'ignore' });
  const dir = fs.mkdtempSync(path.join(process.argv[2], 'satlution-run-' + ownerTag() + '-'));
  fs.writeFileSync(path.join(dir, 'instance.cnf'), 'p cnf 1 1\\n1 0\\n');
  while (!(await j.pids()).includes(s.pid)) await new Promise((r) => setTimeout(r, 20));
  console.log(JSON.stringify({ sleep: s.pid, dir }));
  setInterval(() => undefined, 1 << 30);
})();
`;

interface Evaluator {
  child: ChildProcess;
  sleep: number;
  dir: string;
  /** Every run cgroup the solver is in: memory, and with cgroup v1 its cpuacct twin. */
  cgroups: string[];
}

/** Processes this file started, with their start times: killed at the end only if still the same. */
const started: { pid: number; start: string | undefined }[] = [];
const track = (pid: number) => started.push({ pid, start: procStart(pid) });
const alive = (pid: number) => procStart(pid) !== undefined;

/** The run cgroups a process is in (memory first, then cpuacct, or the unified one), as directories under /sys/fs/cgroup. */
function cgroupsOf(pid: number): string[] {
  const out: string[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
    const [, ctrls, p] = line.split(':');
    if (p === undefined || !p.includes('/satlution-')) continue;
    if (ctrls!.split(',').includes('memory')) out.unshift(path.join('/sys/fs/cgroup/memory', p));
    else if (ctrls!.split(',').includes('cpuacct')) out.push(path.join('/sys/fs/cgroup/cpuacct', p));
    else if (ctrls === '') out.push(path.join('/sys/fs/cgroup', p));
  }
  if (!out.length) throw new Error(`process ${pid} is in no satlution cgroup`);
  return out;
}

async function startEvaluator(scratch: string, childFile: string): Promise<Evaluator> {
  const child = spawn(process.execPath, [childFile, scratch], { stdio: ['ignore', 'pipe', 'inherit'] });
  track(child.pid!);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`the child evaluator exited with ${code} before starting its run`)));
  });
  const { sleep, dir } = JSON.parse(line) as { sleep: number; dir: string };
  track(sleep);
  return { child, sleep, dir, cgroups: cgroupsOf(sleep) };
}

async function sigkill(e: Evaluator): Promise<void> {
  const exited = new Promise((r) => e.child.once('exit', r));
  e.child.kill('SIGKILL');
  await exited;
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (ok()) return;
  assert.fail(`timed out waiting until ${what}`);
}

describe('sweepLeftovers (real cgroups and processes)', function () {
  this.timeout(60000);
  let scratch: string;
  let childFile: string;

  before(async function () {
    const probe = await memoryJail(16).catch(() => undefined);
    await probe?.dispose();
    if (!probe || probe.method === 'rlimit') {
      console.log('    skipped: no writable memory cgroup here (v1 memory controller or delegated v2), so runs are not in cgroups');
      this.skip();
    }
    scratch = tempDir('sweep-scratch-');
    childFile = write(path.join(tempDir('sweep-child-'), 'evaluator.js'), CHILD);
  });

  after(async () => {
    for (const p of started.splice(0)) if (p.start !== undefined && procStart(p.pid) === p.start) process.kill(p.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    if (scratch) await sweepLeftovers({ scratchDirs: [scratch] }); // the cgroups of what was just killed
  });

  it('kills the solver a SIGKILLed evaluator left in its cgroup, and removes the cgroup and its run directory', async () => {
    const e = await startEvaluator(scratch, childFile);
    assert.ok(e.cgroups.every((c) => fs.existsSync(c)) && fs.existsSync(e.dir));
    // With cgroup v1 the run's CPU time is counted in a cpuacct cgroup beside the memory one; it is swept too.
    if (ownCgroups().memory && ownCgroups().cpuacct) assert.equal(e.cgroups.length, 2, e.cgroups.join(' '));
    await sigkill(e);
    await new Promise((r) => setTimeout(r, 300));
    // The problem: the evaluator is gone, its solver and files are not.
    assert.ok(alive(e.sleep), 'the solver outlived its evaluator');
    assert.ok(e.cgroups.every((c) => fs.existsSync(c)) && fs.existsSync(e.dir));

    const r = await sweepLeftovers({ scratchDirs: [scratch] });
    assert.deepEqual(r.errors, []);
    await until('the solver is dead', () => !alive(e.sleep));
    assert.ok(r.killed.includes(e.sleep), JSON.stringify(r));
    assert.ok(!e.cgroups.some((c) => fs.existsSync(c)), 'the cgroups were removed');
    assert.ok(!fs.existsSync(e.dir), 'the run directory was removed');
    assert.deepEqual([r.cgroups, r.dirs], [e.cgroups, [e.dir]]);
  });

  it("leaves a live evaluator's cgroup, solver and run directory alone (another child, and this process)", async () => {
    const other = await startEvaluator(scratch, childFile);
    const mine: MemoryJail = await memoryJail(64);
    const [cmd, args] = mine.wrap('sleep', ['300']);
    const s = spawn(cmd, args, { stdio: 'ignore' });
    track(s.pid!);
    const myDir = fs.mkdtempSync(path.join(scratch, `satlution-run-${ownerTag()}-`));
    try {
      await until('my sleep is in its cgroup', () => {
        try {
          return cgroupsOf(s.pid!).every((c) => fs.readFileSync(path.join(c, 'cgroup.procs'), 'utf8').split('\n').includes(String(s.pid)));
        } catch {
          return false;
        }
      });
      const myCgroups = cgroupsOf(s.pid!);
      const r = await sweepLeftovers({ scratchDirs: [scratch] });
      assert.deepEqual([r.killed, r.cgroups, r.dirs, r.errors], [[], [], [], []]);
      for (const [pid, cgs, dir] of [
        [other.sleep, other.cgroups, other.dir],
        [s.pid!, myCgroups, myDir],
      ] as const) {
        assert.ok(alive(pid), `solver ${pid} still runs`);
        for (const cg of cgs) assert.ok(fs.existsSync(cg), `${cg} is still there`);
        assert.ok(fs.existsSync(dir), `${dir} is still there`);
      }
      // Once the other evaluator dies, its leftovers go; mine still stay.
      await sigkill(other);
      const r2 = await sweepLeftovers({ scratchDirs: [scratch] });
      await until('the other solver is dead', () => !alive(other.sleep));
      assert.deepEqual([r2.cgroups, r2.dirs, r2.errors], [other.cgroups, [other.dir], []]);
      assert.ok(alive(s.pid!) && myCgroups.every((c) => fs.existsSync(c)) && fs.existsSync(myDir));
    } finally {
      s.kill('SIGKILL');
      await new Promise((r) => s.once('exit', r));
      await mine.dispose();
    }
  });

  it('is safe to run twice at once (here and in another process): each leftover is swept once, nothing fails', async () => {
    const es = [await startEvaluator(scratch, childFile), await startEvaluator(scratch, childFile)];
    for (const e of es) await sigkill(e);
    const sweeper = `require(${JSON.stringify(require.resolve('../../src/core/run/sweep'))}).sweepLeftovers({ scratchDirs: [process.argv[1]] }).then((r) => console.log(JSON.stringify(r)))`;
    const other = spawn(process.execPath, ['-e', sweeper, scratch], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    other.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const [here] = await Promise.all([sweepLeftovers({ scratchDirs: [scratch] }), new Promise((r) => other.once('exit', r))]);
    const there = JSON.parse(out) as typeof here;
    assert.deepEqual([here.errors, there.errors], [[], []]);
    for (const e of es) {
      await until(`solver ${e.sleep} is dead`, () => !alive(e.sleep));
      assert.ok(!e.cgroups.some((c) => fs.existsSync(c)) && !fs.existsSync(e.dir));
    }
    assert.deepEqual([...here.cgroups, ...there.cgroups].sort(), es.flatMap((e) => e.cgroups).sort());
  });
});

describe('sweepLeftovers: run directories by name', () => {
  it("removes a dead owner's, keeps a live one's, tells a reused pid by its start time, and ages out unnamed ones", async () => {
    const scratch = tempDir('sweep-names-');
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout.trim());
    const [pid, start] = ownerTag().split('-');
    const mk = (name: string, ageDays = 0) => {
      const d = path.join(scratch, name);
      fs.mkdirSync(path.join(d, 'proof'), { recursive: true });
      write(path.join(d, 'proof', 'proof.drat'), 'd 1 0\n');
      const t = new Date(Date.now() - ageDays * 86400e3);
      for (const f of [path.join(d, 'proof', 'proof.drat'), path.join(d, 'proof'), d]) fs.utimesSync(f, t, t);
      return d;
    };
    const removed = [
      mk(`satlution-run-${deadPid}-123-Ab12Cd`), // dead owner
      mk(`satlution-run-${deadPid}-Ab12Cd`), // dead owner, pid-only name
      mk(`satlution-build-${deadPid}-xY9zQ1`), // a dead evaluator's build scratch
      mk(`satlution-run-${pid}-1-Zz0000`), // our pid, but another process's start time: a reused pid
      mk('satlution-run-a1B2c3', 2), // unnamed, untouched for two days
    ];
    const kept = [
      mk(`satlution-run-${pid}-${start}-Qq1111`), // this live process
      mk(`satlution-run-${pid}-Rr2222`), // pid-only name of a live pid
      mk('satlution-run-d4E5f6'), // unnamed but recent
      mk('satlution-run-g7H8i9', 2), // unnamed, old, but its proof is being written
      mk(`satlution-runner-${deadPid}-Ab12Cd`), // not ours
    ];
    fs.utimesSync(path.join(kept[3]!, 'proof', 'proof.drat'), new Date(), new Date());
    // A link named like a leftover is never followed: what it points to stays.
    const target = mk('precious');
    fs.symlinkSync(target, path.join(scratch, `satlution-run-${deadPid}-Ln1234`));
    write(path.join(scratch, `satlution-run-${deadPid}-Fl1234`), 'a file, not a run directory');

    const r = await sweepLeftovers({ scratchDirs: [scratch], cgroupBases: [] });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.dirs.sort(), removed.sort());
    for (const d of removed) assert.ok(!fs.existsSync(d), d);
    for (const d of kept) assert.ok(fs.existsSync(d), d);
    assert.ok(fs.existsSync(path.join(target, 'proof', 'proof.drat')));
    assert.ok(fs.lstatSync(path.join(scratch, `satlution-run-${deadPid}-Ln1234`)).isSymbolicLink());
    assert.ok(fs.existsSync(path.join(scratch, `satlution-run-${deadPid}-Fl1234`)));
  });
});

describe('sweepLeftovers: proofs kept for the audits (run/keptProof.ts)', () => {
  it('removes the holds of dead evaluations and any hold untouched for two weeks; keeps live and recent ones; a remote host goes by age alone', async () => {
    const scratch = tempDir('sweep-holds-');
    const root = proofRoot(scratch);
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout.trim());
    const mk = (hold: string, ageDays = 0) => {
      const file = keptProofPath(root, hold, 'ab'.repeat(16));
      write(file, 'd 1 0\n');
      const t = new Date(Date.now() - ageDays * 86400e3);
      for (const f of [file, path.dirname(file)]) fs.utimesSync(f, t, t);
      return path.dirname(file);
    };
    const dead = mk(`eval-${deadPid}-123-0badcafe`);
    const old = mk('20261101T000000-abcdef12', 15);
    const live = mk(`eval-${ownerTag()}-0123abcd`);
    const race = mk('20261128T000000-abcdef12', 3);
    // A remote host cannot tell whether an evaluator elsewhere lives: the dead one's hold stays there until it is old.
    assert.deepEqual(await sweepHolds(root, { owners: false }), [old]);
    const r = await sweepLeftovers({ scratchDirs: [scratch], cgroupBases: [] });
    assert.deepEqual(r.dirs, [dead]);
    assert.deepEqual(
      [dead, old, live, race].map((d) => fs.existsSync(d)),
      [false, false, true, true],
    );
    // Names that could leave the root are refused, never sanitized.
    assert.throws(() => keptProofPath(root, '../x', 'ab'.repeat(16)), /not a hold name/);
    assert.throws(() => keptProofPath(root, 'h', '../../etc'), /not a run key/);
    // Released by keys (a dropped challenger's), then whole.
    await releaseHold(root, `eval-${ownerTag()}-0123abcd`, ['ab'.repeat(16)]);
    assert.deepEqual(fs.readdirSync(live), []);
    await releaseHold(root, '20261128T000000-abcdef12');
    assert.equal(fs.existsSync(race), false);
  });

  it("keeps proofs only in a root of this user's own: a link planted in its place is neither written through nor swept through", async () => {
    const scratch = tempDir('sweep-holds-');
    const elsewhere = tempDir('elsewhere-');
    const victim = path.join(elsewhere, 'h1');
    write(path.join(victim, 'ab'.repeat(16) + '.proof'), 'precious');
    fs.utimesSync(victim, new Date(0), new Date(0));
    // Another user of the shared temp directory got there first, with a link to a folder of theirs.
    fs.symlinkSync(elsewhere, proofRoot(scratch));
    const proof = path.join(tempDir(), 'proof.out');
    write(proof, 'd 1 0\n');
    await assert.rejects(
      keepProof(proof, keptProofPath(proofRoot(scratch), 'h2', 'cd'.repeat(16))),
      /is not a directory of this user's, so no proof is kept there/,
    );
    assert.equal(fs.existsSync(path.join(elsewhere, 'h2')), false);
    await releaseHold(proofRoot(scratch), 'h1');
    assert.deepEqual(await sweepHolds(proofRoot(scratch), { owners: true, maxAgeMs: 0 }), []);
    assert.equal(fs.readFileSync(path.join(victim, 'ab'.repeat(16) + '.proof'), 'utf8'), 'precious');
    // Its own root is made private.
    const own = tempDir('own-');
    await keepProof(proof, keptProofPath(proofRoot(own), 'h3', 'ef'.repeat(16)));
    assert.equal(fs.statSync(proofRoot(own)).mode & 0o777, 0o700);
  });
});
