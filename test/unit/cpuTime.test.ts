// CPU time of a run (user + system of its whole process tree), measured by the run's cgroup
// (src/core/run/limits.ts) next to the wall time, in the sandbox as real runs are: a busy solver, a
// sleeping one, one that computes in two children at once, the RLIMIT_AS fallback (unknown, null),
// a run without a memory limit, and results stored before CPU time was measured.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ownCgroups } from '../../src/core/run/cgroups';
import { accountingJail, memoryJail } from '../../src/core/run/limits';
import { ownerTag } from '../../src/core/run/owner';
import { InstanceResult, StoredRun } from '../../src/core/run/result';
import { runInstance, type InstanceRunRequest } from '../../src/core/run/runInstance';
import { formatRunLog } from '../../src/core/run/runLog';
import { runSolver } from '../../src/core/run/runSolver';
import { tempDir, write } from './helpers';

/**
 * Spins until it has used `argv[1]` seconds of its own CPU time, in `argv[2]` forked children at once
 * (0: in itself). Counting CPU rather than wall time makes the expected total exact on a busy machine.
 */
const SPIN_C = `
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static void spin(double s) { volatile unsigned long x = 0; while (cpu() < s) for (int i = 0; i < 100000; i++) x += i; }
int main(int argc, char **argv) {
  double s = argc > 1 ? atof(argv[1]) : 0.5;
  int n = argc > 2 ? atoi(argv[2]) : 0;
  pid_t kids[64];
  if (n == 0) spin(s);
  for (int i = 0; i < n && i < 64; i++) if ((kids[i] = fork()) == 0) { spin(s); _exit(0); }
  /* Only its own: a daemon its run script started before exec is a child too, and is not waited for. */
  for (int i = 0; i < n && i < 64; i++) waitpid(kids[i], NULL, 0);
  printf("s UNKNOWN\\n");
  return 0;
}
`;

const hasBwrap = spawnSync('bwrap', ['--version']).status === 0;

describe('CPU time of a run (cgroup accounting, in the sandbox)', function () {
  this.timeout(60000);
  let cnf: string;
  let spinBin: string;
  let cgroups = false;

  /** A solver whose run script is `body` (bash); `$SPIN` is the spinning program. */
  const solver = (body: string): string => {
    const dir = path.join(tempDir('cpu-solver-'), 'SATLUTION_1');
    write(path.join(dir, 'bin', 'starexec_run_default'), `#!/usr/bin/env bash\nSPIN="$(dirname "$0")/spin"\n${body}\n`);
    fs.chmodSync(path.join(dir, 'bin', 'starexec_run_default'), 0o755);
    fs.copyFileSync(spinBin, path.join(dir, 'bin', 'spin'));
    return dir;
  };

  const run = (solverDir: string, extra: Partial<InstanceRunRequest> = {}) =>
    runInstance({
      solverDir,
      name: 'one.cnf',
      cnf,
      vars: 1,
      family: null,
      expected: null,
      expectedFrom: 'none',
      timeoutS: 20,
      memMb: 1024,
      checkProofs: false,
      maxProofMb: 10,
      checkerTimeoutS: 10,
      ...extra,
    });

  before(async function () {
    if (!hasBwrap) {
      if (process.env.CI) throw new Error('bubblewrap is required');
      this.skip();
    }
    const dir = tempDir('cpu-spin-');
    cnf = write(path.join(dir, 'one.cnf'), 'p cnf 1 1\n1 0\n');
    write(path.join(dir, 'spin.c'), SPIN_C);
    spinBin = path.join(dir, 'spin');
    execFileSync('cc', ['-O1', '-o', spinBin, path.join(dir, 'spin.c')]);
    const probe = await memoryJail(16).catch(() => undefined);
    await probe?.dispose();
    cgroups = !!probe?.cpu && (await probeCpu());
  });

  /** Whether this machine's cgroups account CPU (v1: a writable cpuacct hierarchy; v2: always), checked on a real run. */
  async function probeCpu(): Promise<boolean> {
    const j = await accountingJail();
    if (!j) return false;
    const [cmd, args] = j.wrap('true', []);
    spawnSync(cmd, args);
    const s = await j.cpuS();
    await j.dispose();
    return s !== undefined;
  }

  const needCgroups = (ctx: Mocha.Context) => {
    if (!cgroups) {
      console.log('    skipped: no writable cgroup with CPU accounting here, so CPU time is not measured');
      ctx.skip();
    }
  };

  /**
   * Runs `dir` until its CPU and wall times relate as `fits` says, at most three times: the CPU time
   * is exact, but the wall time grows whenever other work on the machine takes the cores. On a machine
   * that stays busy throughout (other test suites, builds) the relation is reported, not asserted.
   */
  async function untilWallFits(dir: string, check: (cpu: number) => void, fits: (cpu: number, wall: number) => boolean): Promise<void> {
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await run(dir);
      assert.equal(r.status, 'unknown', r.detail);
      assert.ok(r.cpu_s !== null, 'CPU time measured');
      check(r.cpu_s);
      if (fits(r.cpu_s, r.time_s)) return;
      seen.push(`cpu ${r.cpu_s} s, wall ${r.time_s.toFixed(3)} s`);
    }
    const load = os.loadavg()[0]!;
    if (load >= 1) console.log(`    wall time not compared: the machine is busy (load ${load.toFixed(1)}): ${seen.join('; ')}`);
    else assert.fail(`the wall time never fit: ${seen.join('; ')}`);
  }

  it('a busy solver: its CPU time is close to its wall time', async function () {
    needCgroups(this);
    await untilWallFits(
      solver('exec "$SPIN" 0.5 0'),
      // At least what the program counted itself, plus a little for bash and bubblewrap.
      (cpu) => assert.ok(cpu >= 0.5 && cpu < 0.8, `cpu ${cpu} s`),
      (cpu, wall) => Math.abs(cpu - wall) <= 0.3 * wall,
    );
  });

  it('a sleeping solver: almost no CPU time in a second of wall time', async function () {
    needCgroups(this);
    const r = await run(solver('sleep 1\necho "s UNKNOWN"'));
    assert.equal(r.status, 'unknown', r.detail);
    assert.ok(r.time_s >= 1, `wall ${r.time_s} s`);
    assert.ok(r.cpu_s !== null && r.cpu_s < 0.2, `cpu ${r.cpu_s} s`);
  });

  it('two children computing at once: the whole process tree is counted', async function () {
    needCgroups(this);
    await untilWallFits(
      solver('exec "$SPIN" 0.6 2'),
      (cpu) => assert.ok(cpu >= 1.2 && cpu < 1.6, `cpu ${cpu} s`),
      // On two free cores they overlap: the CPU time is about twice the wall time (loosely: bubblewrap's start counts as wall time).
      (cpu, wall) => os.availableParallelism() < 2 || (cpu / wall >= 1.4 && cpu / wall <= 2.2),
    );
  });

  it("a daemon that leaves the process group is counted until it is killed at the solver's exit", async function () {
    needCgroups(this);
    const r = await run(solver('setsid "$SPIN" 30 0 > /dev/null 2>&1 < /dev/null &\nexec "$SPIN" 0.5 0'));
    assert.equal(r.status, 'unknown', r.detail);
    // Both spin while the solver does (two cores), and the daemon does not outlive the run.
    assert.ok(r.cpu_s !== null && r.cpu_s >= 0.5 && r.cpu_s < 1.5, `cpu ${r.cpu_s} s`);
  });

  it('with RLIMIT_AS (no cgroup) the CPU time is unknown: null, and the log says so', async () => {
    const r = await run(solver('exec "$SPIN" 0.2 0'), { memoryMethod: 'rlimit' });
    assert.equal(r.status, 'unknown', r.detail);
    assert.equal(r.cpu_s, null);
    assert.match(formatRunLog({ result: r, timeoutS: 20, memMb: 1024, at: 'now' }), /^time: {6}\d+\.\d{3} s wall clock, CPU not measured/m);
  });

  it('a run without a memory limit is still accounted (runSolver)', async function () {
    needCgroups(this);
    const out = await runSolver({ solverDir: solver('exec "$SPIN" 0.3 0'), cnf, timeoutS: 20 });
    assert.equal(out.memoryMethod, 'none');
    assert.ok(out.cpuS !== undefined && out.cpuS >= 0.3 && out.cpuS < 0.6, `cpu ${out.cpuS} s`);
    const off = await runSolver({ solverDir: solver('exec "$SPIN" 0.1 0'), cnf, timeoutS: 20, memoryMethod: 'rlimit' });
    assert.equal(off.cpuS, undefined);
  });

  it('the run log shows the CPU time next to the wall time', async function () {
    needCgroups(this);
    const r = await run(solver('exec "$SPIN" 0.1 0'));
    assert.match(formatRunLog({ result: r, timeoutS: 20, memMb: 1024, at: 'now' }), /^time: {6}\d+\.\d{3} s wall clock, \d+\.\d{3} s CPU, peak /m);
  });

  it('leaves none of its cgroups behind', async function () {
    needCgroups(this);
    const own = ownCgroups();
    const mine = `satlution-${ownerTag()}-`;
    for (const base of [own.memory, own.cpuacct, own.v2].filter((b): b is string => !!b))
      assert.deepEqual(
        fs.readdirSync(base).filter((n) => n.startsWith(mine)),
        [],
        base,
      );
  });
});

describe('CPU time in stored results', () => {
  const old = {
    instance: 'a.cnf',
    family: null,
    expected: 'SAT',
    expected_from: 'meta',
    answer: 'SAT',
    status: 'solved',
    time_s: 0.5,
    mem_mb: 3,
    exit_code: 10,
    signal: null,
    check: { kind: 'model', ok: true, time_s: 0.01, detail: 'ok' },
    detail: '',
  };

  it('a result stored before CPU time was measured parses, with cpu_s null', () => {
    assert.equal(InstanceResult.parse(old).cpu_s, null);
    assert.equal(StoredRun.parse({ key: 'k', solver_hash: 'h', instance_hash: 'i', at: 'now', result: old }).result.cpu_s, null);
  });

  it('a measured one keeps it; a negative one is refused', () => {
    assert.equal(InstanceResult.parse({ ...old, cpu_s: 0.42 }).cpu_s, 0.42);
    assert.equal(InstanceResult.safeParse({ ...old, cpu_s: -1 }).success, false);
  });
});
