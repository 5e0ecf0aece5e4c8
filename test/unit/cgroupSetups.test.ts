// CPU time, the kill and the labels in five real-kernel setups of this machine (run/cgroups.ts,
// run/limits.ts, run/measurement.ts), each through the real `satlution` command in its own process:
// (a) root on cgroup v1; (b) root in a mount namespace where only cgroup2 is mounted at /sys/fs/cgroup,
// as in a container; (c) a normal user (made with useradd) in a cgroup-v2 subtree chowned to it, as
// systemd's Delegate=yes hands one out; (d) a normal user with no writable cgroup; (e) a normal user in
// a session cgroup of root's below a real `systemd --user` manager (as an ssh login sits beside
// user@.service): the evaluator asks that manager for a transient scope with Delegate=yes and moves
// into it (no pid 1 systemd here: the manager runs in a subtree chowned to the user). The solver's detached
// child (its own session) burns 0.8 s of CPU before the solver answers: rusage would miss it, a cgroup
// counts it. Where the memory and pids controllers are on the v2 hierarchy, (b) and (c) also exercise
// them; here they are bound to v1, so those runs fall back to RLIMIT_AS and counted processes, and say so.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cgroupMounts, ownCgroups } from '../../src/core/run/cgroups';
import { CLI, RULES, tempDir, write } from './helpers';

const SPIN_C = `
#include <stdlib.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) { double s = atof(argv[1]); volatile unsigned long x = 0; while (cpu() < s) for (int i = 0; i < 100000; i++) x += i; return 0; }
`;

/** Answers once its detached child has burnt 0.8 s of CPU time (a file in the proof directory says so). */
const BURN = `#!/bin/sh
d=$(dirname "$0")
setsid sh -c '"$1" 0.8; : > "$2/burnt"' sh "$d/SPIN" "$2" < /dev/null > /dev/null 2>&1 &
while [ ! -e "$2/burnt" ]; do sleep 0.02; done
echo "s SATISFIABLE"; echo "v 1 0"
exit 10
`;

/** Answers at once, leaving a detached child that would spin for a minute: the run's end must kill it. */
const LINGER = `#!/bin/sh
setsid "$(dirname "$0")/SPIN" 60 < /dev/null > /dev/null 2>&1 &
echo "s SATISFIABLE"; echo "v 1 0"
exit 10
`;

/** Never answers: a detached child spins, the solver sleeps; its evaluator is killed while it runs. */
const HANG = `#!/bin/sh
setsid "$(dirname "$0")/SPIN" 60 < /dev/null > /dev/null 2>&1 &
exec sleep 60
`;

const INSTANCES = 3;
const BURN_S = 0.8;

const isRoot = process.getuid?.() === 0;
const has = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

interface Setup {
  name: string;
  /** The command line before `node cli.js ...`. */
  prefix: () => string[];
  /** Whether this setup runs as the test user. */
  user: boolean;
  /** Where CPU time should come from, or null where none can be measured. */
  cpu: 'cgroup-v1' | 'cgroup-v2' | null;
  /** Extra environment (the user manager's runtime directory). */
  env?: () => NodeJS.ProcessEnv;
  /** What `satlution runners` must also say of CPU time here. */
  says?: RegExp;
  /** Why this setup cannot be made here, if it cannot. */
  unavailable?: () => string | undefined;
}

const SYSTEMD = ['/lib/systemd/systemd', '/usr/lib/systemd/systemd'].find((f) => fs.existsSync(f));

/** The v1 name=systemd hierarchy's mount (the hybrid layout's), where the user manager also keeps its cgroups. */
const namedSystemd = () =>
  cgroupMounts(fs.readFileSync('/proc/self/mountinfo', 'utf8')).find((m) => !m.v2 && m.controllers.includes('name=systemd'))?.mountPoint;

/** Runs `argv` and resolves with its exit code and output (never through a shell string). */
function run(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('CPU time, the kill and the labels in five cgroup setups (real kernel, real satlution command)', function () {
  this.timeout(300000);
  const user = `satlcg${process.pid}`;
  let uid = 0;
  let gid = 0;
  let root = '';
  let cli = '';
  let deleg = '';
  let spinName = '';
  /** (e): the user manager's trees (v2, and v1 name=systemd where mounted), its runtime directory and pid. */
  const manager = { trees: [] as string[], runtime: '', pid: 0, why: '' };

  before(async function () {
    const missing = [
      !isRoot && 'root (to make the setups)',
      !has('useradd', '--help') && 'useradd',
      !has('setpriv', '--help') && 'setpriv',
      !has('unshare', '--help') && 'unshare',
      !has('bwrap', '--version') && 'bubblewrap',
      !ownCgroups().v2 && 'a cgroup2 mount',
    ].filter(Boolean);
    if (missing.length) {
      if (process.env.CI) throw new Error(`these setups need ${missing.join(', ')}`);
      console.log(`    skipped: needs ${missing.join(', ')}`);
      this.skip();
    }
    root = tempDir('cgsetups-');
    fs.chmodSync(root, 0o755);
    // The command, copied where the test user can read it, with the rulebase beside it as in a package.
    fs.mkdirSync(path.join(root, 'dist'));
    cli = path.join(root, 'dist', 'cli.js');
    fs.copyFileSync(CLI, cli);
    fs.cpSync(RULES, path.join(root, 'rules'), { recursive: true });
    // A name of its own, so the check for leftovers sees only this test's spinners.
    spinName = `spin${process.pid}x`;
    write(path.join(root, 'spin.c'), SPIN_C);
    execFileSync('cc', ['-O1', '-o', path.join(root, spinName), path.join(root, 'spin.c')]);
    // The hanging solver's spinner has a name of its own: what a killed evaluator left is told from the rest.
    for (const [name, script, spin] of [
      ['burn', BURN, spinName],
      ['linger', LINGER, spinName],
      ['hang', HANG, `${spinName}h`],
    ] as const) {
      const bin = path.join(root, name, 'bin');
      fs.mkdirSync(bin, { recursive: true });
      fs.copyFileSync(path.join(root, spinName), path.join(bin, spin));
      write(path.join(bin, 'starexec_run_default'), script.replace('SPIN', spin));
      fs.chmodSync(path.join(bin, 'starexec_run_default'), 0o755);
    }
    for (let i = 1; i <= INSTANCES; i++) write(path.join(root, 'bench', `i${i}.cnf`), 'p cnf 1 1\n1 0\n');
    write(path.join(root, 'one', 'i1.cnf'), 'p cnf 1 1\n1 0\n');
    execFileSync(process.execPath, [cli, 'init', '--dir', path.join(root, 'ws'), '--seed', `s=${path.join(root, 'burn')}`, '--no-generate'], {
      stdio: 'ignore',
    });
    // A workspace whose runs are not sandboxed: with a cgroup, what a killed evaluator left is found by the next one's sweep alone.
    execFileSync(process.execPath, [cli, 'init', '--dir', path.join(root, 'wsoff'), '--seed', `s=${path.join(root, 'burn')}`, '--no-generate'], {
      stdio: 'ignore',
    });
    const yaml = path.join(root, 'wsoff', 'satlution.yaml');
    fs.writeFileSync(yaml, fs.readFileSync(yaml, 'utf8').replace(/^sandbox: on$/m, 'sandbox: off'));
    execFileSync('useradd', ['-M', '-d', path.join(root, 'home'), '-s', '/usr/sbin/nologin', user]);
    uid = Number(execFileSync('id', ['-u', user]).toString());
    gid = Number(execFileSync('id', ['-g', user]).toString());
    fs.mkdirSync(path.join(root, 'home'));
    execFileSync('chown', ['-R', `${uid}:${gid}`, root]);
    // (c): a v2 subtree of this user's own, as Delegate=yes gives one (not named satlution-: no sweep touches it).
    deleg = path.join(ownCgroups().v2!, `cgtest-deleg-${process.pid}`);
    fs.mkdirSync(deleg);
    for (const f of ['', 'cgroup.procs', 'cgroup.subtree_control', 'cgroup.threads']) fs.chownSync(path.join(deleg, f), uid, gid);
    await startUserManager();
  });

  /**
   * (e): a `systemd --user` of the test user's own in cgroup trees chowned to it (as pid 1 hands
   * user@.service its tree), with a `session.scope` of root's in each for the command to start in. The
   * manager checks that the machine runs systemd: a private mount namespace shows it /run/systemd/system.
   */
  async function startUserManager(): Promise<void> {
    if (!SYSTEMD || !has('busctl', '--version')) return void (manager.why = 'systemd and busctl');
    for (const base of [ownCgroups().v2!, namedSystemd()].filter((b): b is string => !!b)) {
      const tree = path.join(base, `cgtest-user-${process.pid}`);
      fs.mkdirSync(path.join(tree, 'session.scope'), { recursive: true });
      execFileSync('chown', ['-R', `${uid}:${gid}`, tree]);
      // The session's cgroup stays root's, as an ssh login's scope is.
      execFileSync('chown', ['-R', '0:0', path.join(tree, 'session.scope')]);
      manager.trees.push(tree);
    }
    manager.runtime = `/run/user/${uid}`;
    fs.mkdirSync(manager.runtime, { recursive: true, mode: 0o700 });
    fs.chownSync(manager.runtime, uid, gid);
    const join = manager.trees.map((t) => `echo $$ > ${t}/cgroup.procs`).join(' && ');
    const child = spawn(
      'unshare',
      [
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        `${join} && mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && exec "$@"`,
        'sh',
        'setpriv',
        `--reuid=${uid}`,
        `--regid=${gid}`,
        '--clear-groups',
        '--',
        'env',
        '-i',
        `HOME=${path.join(root, 'home')}`,
        `XDG_RUNTIME_DIR=${manager.runtime}`,
        'PATH=/usr/bin:/bin',
        SYSTEMD,
        '--user',
      ],
      { stdio: 'ignore' },
    );
    manager.pid = child.pid ?? 0;
    child.unref();
    // Ready once it answers on its bus.
    for (let i = 0; i < 150; i++) {
      const r = spawnSync(
        'setpriv',
        [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', 'env', `XDG_RUNTIME_DIR=${manager.runtime}`, 'busctl', '--user', 'status'],
        { stdio: 'ignore' },
      );
      if (r.status === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    manager.why = 'a systemd --user that answers on its bus';
  }

  after(async () => {
    if (manager.pid) {
      process.kill(manager.pid, 'SIGTERM');
      for (let i = 0; i < 100 && spawnSync('kill', ['-0', String(manager.pid)]).status === 0; i++) await new Promise((r) => setTimeout(r, 50));
    }
    // The manager's slices and scopes are empty once it is gone: removed deepest first.
    for (const tree of manager.trees) spawnSync('find', [tree, '-depth', '-type', 'd', '-exec', 'rmdir', '{}', ';']);
    if (manager.runtime) fs.rmSync(manager.runtime, { recursive: true, force: true });
    if (deleg) {
      // Whatever the user made below its subtree goes with it; a process still there fails the test below, not here.
      for (const e of fs.readdirSync(deleg, { withFileTypes: true })) if (e.isDirectory()) fs.rmdirSync(path.join(deleg, e.name));
      fs.rmdirSync(deleg);
    }
    if (uid) spawnSync('userdel', [user]);
  });

  const asUser = () => ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'];
  const setups: Setup[] = [
    // This machine's own layout: cgroup v1 (hybrid) here; where v1 is not mounted, the same test is root on v2.
    { name: `(a) root on cgroup ${ownCgroups().cpuacct ? 'v1' : 'v2'}`, prefix: () => [], user: false, cpu: ownCgroups().cpuacct ? 'cgroup-v1' : 'cgroup-v2' },
    {
      name: '(b) root where only cgroup2 is mounted at /sys/fs/cgroup (as in a container)',
      prefix: () => [
        'unshare',
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        'umount -l /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && exec "$@"',
        'sh',
      ],
      user: false,
      cpu: 'cgroup-v2',
    },
    {
      name: '(c) a normal user in a cgroup-v2 subtree delegated to it',
      prefix: () => ['sh', '-c', 'echo $$ > "$0" && exec "$@"', path.join(deleg, 'cgroup.procs'), ...asUser()],
      user: true,
      cpu: 'cgroup-v2',
    },
    { name: '(d) a normal user without a writable cgroup', prefix: asUser, user: true, cpu: null },
    {
      name: "(e) a normal user in root's session cgroup beside its systemd user manager",
      prefix: () => ['sh', '-c', `${manager.trees.map((t) => `echo $$ > ${t}/session.scope/cgroup.procs`).join(' && ')} && exec "$@"`, 'sh', ...asUser()],
      user: true,
      cpu: 'cgroup-v2',
      env: () => ({ XDG_RUNTIME_DIR: manager.runtime }),
      says: /in the transient systemd scope satlution-\d+-\d+\.scope/,
      unavailable: () => (manager.why ? `needs ${manager.why}` : undefined),
    },
  ];

  for (const [i, s] of setups.entries()) {
    it(`${s.name}: ${s.cpu ? "the detached child's CPU is in cpu_s" : 'cpu_s is absent'}, the kill leaves no process (nor a killed evaluator, once the next one starts), every label says what was measured`, async function () {
      const why = s.unavailable?.();
      if (why) {
        if (process.env.CI) throw new Error(why);
        console.log(`    skipped: ${why}`);
        this.skip();
      }
      const home = path.join(root, 'home');
      // A results store of its own (XDG_CACHE_HOME): no setup reuses another's runs.
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        XDG_CACHE_HOME: path.join(root, `cache-${i}`),
        ...(process.env.SATLUTION_DRAT_TRIM ? { SATLUTION_DRAT_TRIM: process.env.SATLUTION_DRAT_TRIM } : {}),
        ...s.env?.(),
      };
      const cmd = (...args: string[]) => run([...s.prefix(), process.execPath, cli, ...args], env);
      const json = path.join(root, `burn-${i}.json`);
      const ev = await cmd(
        'eval',
        path.join(root, 'burn'),
        '--bench',
        path.join(root, 'bench'),
        '--stage',
        'perf',
        '--no-build',
        '--no-rules',
        '--no-proofs',
        '--jobs',
        '1',
        '--json',
        json,
      );
      assert.equal(ev.code, 0, ev.out);
      const doc = JSON.parse(fs.readFileSync(json, 'utf8')) as { instances: { status: string; time_s: number; cpu_s: number | null }[] };
      assert.equal(doc.instances.length, INSTANCES);
      for (const r of doc.instances) {
        assert.equal(r.status, 'solved', ev.out);
        if (s.cpu) assert.ok(r.cpu_s !== null && r.cpu_s >= BURN_S && r.cpu_s < BURN_S + 1, `cpu_s ${r.cpu_s} should count the detached child's ${BURN_S} s`);
        else assert.equal(r.cpu_s, null, 'no cgroup: no CPU time, never a partial one');
      }
      // compare: its JSON `on` and its text say what the figures are.
      const cj = await cmd('compare', json, json, '--on', 'cpu', '--json');
      assert.equal((JSON.parse(cj.out) as { on: string }).on, s.cpu ? 'cpu' : 'wall', cj.out);
      const ct = await cmd('compare', json, json, '--on', 'cpu');
      assert.match(ct.out, s.cpu ? /PAR-2 on CPU time/ : /PAR-2 on wall time/);
      // runners: how CPU time is measured here, or what to do to get it.
      const rn = await cmd('runners', '--dir', path.join(root, 'ws'), '--json');
      const local = (JSON.parse(rn.out) as Record<string, { check: string; level: string; detail: string }[]>).local!;
      const cpu = local.find((f) => f.check === 'CPU time');
      assert.ok(cpu, rn.out);
      if (s.cpu) {
        assert.equal(cpu.level, 'ok', cpu.detail);
        assert.match(cpu.detail, s.cpu === 'cgroup-v2' ? /cpu\.stat .*cgroup-v2/ : /cpuacct\.usage .*cgroup-v1/);
        if (s.says) assert.match(cpu.detail, s.says);
      } else {
        assert.equal(cpu.level, 'warning');
        assert.match(cpu.detail, /not measured.*wall time.*To get it: /);
      }
      // The kill: a solver that leaves a spinning child behind leaves nothing once its run is over.
      const ln = await cmd(
        'eval',
        path.join(root, 'linger'),
        '--bench',
        path.join(root, 'bench'),
        '--stage',
        'perf',
        '--no-build',
        '--no-rules',
        '--no-proofs',
        '--jobs',
        '1',
      );
      assert.equal(ln.code, 0, ln.out);
      const left = spawnSync('pgrep', ['-f', spinName]).stdout.toString().trim();
      assert.equal(left, '', `processes left behind: ${left}`);
      // An evaluator killed with SIGKILL while its solver's detached child spins: gone once the next
      // evaluation starts. With a cgroup, unsandboxed (a workspace with sandbox: off), so that only the
      // next one's sweep can find it; without one, in the sandbox, whose pid namespace dies with it.
      const hangSpin = `${spinName}h`;
      const argv = [
        ...s.prefix(),
        process.execPath,
        cli,
        'eval',
        path.join(root, 'hang'),
        '--bench',
        path.join(root, 'one'),
        '--stage',
        'perf',
        '--no-build',
        '--no-rules',
        '--no-proofs',
        '--jobs',
        '1',
      ];
      const victim = spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore', cwd: path.join(root, s.cpu ? 'wsoff' : 'ws') });
      const spinning = () => spawnSync('pgrep', ['-f', hangSpin]).stdout.toString().trim();
      for (let t = 0; t < 300 && !spinning(); t++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(spinning(), 'the hanging solver started its spinner');
      // Every command of the prefix execs the next: the pid is the evaluator's.
      victim.kill('SIGKILL');
      await new Promise((r) => victim.once('exit', r));
      if (s.cpu) assert.ok(spinning(), 'unsandboxed, the spinner outlives its killed evaluator until a sweep');
      const next = await cmd(
        'eval',
        path.join(root, 'burn'),
        '--bench',
        path.join(root, 'bench'),
        '--stage',
        'perf',
        '--no-build',
        '--no-rules',
        '--no-proofs',
        '--jobs',
        '1',
      );
      assert.equal(next.code, 0, next.out);
      for (let t = 0; t < 20 && spinning(); t++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(spinning(), '', 'what the killed evaluator left is gone');
      if (s.name.startsWith('(c)'))
        assert.deepEqual(
          fs
            .readdirSync(deleg, { withFileTypes: true })
            .filter((e) => e.isDirectory() && e.name.startsWith('satlution-') && !e.name.startsWith('satlution-self-'))
            .map((e) => e.name),
          [],
          'run cgroups removed',
        );
    });
  }
});
