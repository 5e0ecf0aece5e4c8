// Benchmark: how much a run's CPU time depends on what runs beside it on the other core. The race runs
// the champion and a challenger at the same moment on two pinned cores; a challenger whose memory traffic
// slows the run beside it would gain in a way no paired test sees. Here the champion (cadical on a
// shuffled pigeonhole formula, through the product's runSolver: its cgroup CPU time, pinned to core 0)
// runs beside itself (the same run on core 1) and beside a memory-heavy challenger (cadical on a large
// random 3-SAT formula of 400,000 variables, on core 1), and, as the worst a challenger could do, beside
// a process that only streams through 1 GB of memory, alternating, BENCH_ROUNDS (8) rounds. Prints the
// champion's CPU time in each condition and each neighbour's effect with a 95% interval (paired log
// ratios, t), on CPU and wall time. Needs cadical and taskset.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pigeonhole, shuffleCnf, uniform3Sat } from '../src/core/instances/generators';
import { DEFAULT_ISOLATION } from '../src/core/isolation/settings';
import { runSolver } from '../src/core/run/runSolver';
import { tQuantile } from '../src/core/decide/race';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);

/** A solver directory whose starexec_run_default runs cadical on its instance (no proof). */
function cadicalSolver(dir: string): string {
  const solver = path.join(dir, 'cadical');
  fs.mkdirSync(path.join(solver, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(solver, 'bin', 'starexec_run_default'), '#!/bin/sh\nexec cadical -q "$1"\n', { mode: 0o755 });
  return solver;
}

/** A process that streams through 1 GB of memory until killed: memory traffic and nothing else. */
const STREAM = 'const a = new Float64Array(1 << 27); for (;;) for (let i = 0; i < a.length; i += 8) a[i] += 1;';

/** A neighbour on core 1 until stopped, started again whenever it ends: `cadical` on `cnf`, or the memory stream. */
function neighbour(what: { cnf: string } | 'stream'): { stop: () => Promise<void> } {
  let stopped = false;
  let child = start();
  function start() {
    const args = what === 'stream' ? [process.execPath, '-e', STREAM] : ['cadical', '-q', what.cnf];
    const c = spawn('taskset', ['-c', '1', ...args], { stdio: 'ignore' });
    c.on('exit', () => {
      if (!stopped) child = start();
    });
    return c;
  }
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** The mean and 95% interval of exp(mean log ratio), as percent changes. */
function ratioCi(xs: readonly number[], ys: readonly number[]): { pct: number; lo: number; hi: number } {
  const l = xs.map((x, i) => Math.log(ys[i]! / x));
  const n = l.length;
  const m = l.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(l.reduce((s, x) => s + (x - m) ** 2, 0) / Math.max(1, n - 1));
  const h = tQuantile(0.975, Math.max(1, n - 1)) * (sd / Math.sqrt(n));
  const p = (x: number) => 100 * (Math.exp(x) - 1);
  return { pct: p(m), lo: p(m - h), hi: p(m + h) };
}

async function main(): Promise<void> {
  if (os.cpus().length < 2) {
    console.log('interference: needs two cores');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-interference-'));
  try {
    const solver = cadicalSolver(dir);
    const champion = path.join(dir, 'php.cnf');
    fs.writeFileSync(champion, shuffleCnf(pigeonhole(10, 9), 7));
    const heavy = path.join(dir, 'heavy.cnf');
    fs.writeFileSync(heavy, uniform3Sat(400_000, 4.2, 11));
    const one = async () => {
      const r = await runSolver({ solverDir: solver, cnf: champion, timeoutS: 600, memMb: 4096, cpu: 0, isolation: { ...DEFAULT_ISOLATION, mode: 'off' } });
      if (r.cpuS === undefined) throw new Error('no CPU time measured here: run as a user with a cgroup (docs/measurement.md)');
      return { cpu: r.cpuS, wall: r.timeS };
    };
    const kinds = ['self', 'heavy', 'stream'] as const;
    const beside = Object.fromEntries(kinds.map((k) => [k, { cpu: [] as number[], wall: [] as number[] }])) as Record<
      (typeof kinds)[number],
      { cpu: number[]; wall: number[] }
    >;
    for (let k = 0; k < ROUNDS; k++)
      for (const kind of [...kinds.slice(k % 3), ...kinds.slice(0, k % 3)]) {
        const n = neighbour(kind === 'self' ? { cnf: champion } : kind === 'heavy' ? { cnf: heavy } : 'stream');
        // Let the neighbour get going (the large formula takes a moment to parse).
        await new Promise((r) => setTimeout(r, kind === 'heavy' ? 3000 : 500));
        const m = await one();
        await n.stop();
        beside[kind].cpu.push(m.cpu);
        beside[kind].wall.push(m.wall);
      }
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const fmt = (c: { pct: number; lo: number; hi: number }) => `${c.pct >= 0 ? '+' : ''}${c.pct.toFixed(2)}% (95% ${c.lo.toFixed(2)} .. ${c.hi.toFixed(2)}%)`;
    const out: Record<string, unknown> = { bench: 'interference', rounds: ROUNDS, self_cpu_s: mean(beside.self.cpu) };
    console.log(`the champion's CPU time beside itself: ${mean(beside.self.cpu).toFixed(3)} s (${ROUNDS} rounds)`);
    for (const kind of ['heavy', 'stream'] as const) {
      const [cpu, wall] = [ratioCi(beside.self.cpu, beside[kind].cpu), ratioCi(beside.self.wall, beside[kind].wall)];
      const who = kind === 'heavy' ? 'a memory-heavy challenger (cadical, 400,000 variables)' : 'a 1 GB memory stream';
      console.log(`beside ${who}: ${mean(beside[kind].cpu).toFixed(3)} s, CPU ${fmt(cpu)}, wall ${fmt(wall)}`);
      out[kind] = { cpu_change_pct: cpu, wall_change_pct: wall };
    }
    console.log(JSON.stringify(out));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
