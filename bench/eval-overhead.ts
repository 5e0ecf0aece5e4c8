// Benchmark: what the evaluator costs on top of the solver. Wall time of `satlution eval` over a set
// (limits, output parsing, model checks, result records) vs the same solver runs launched raw with the
// same parallelism. Target: <= 1.05x. Needs cadical (scripts/setup-sat-tools.sh).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planted3Sat } from '../src/core/instances/generators';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const JOBS = Number(process.env.BENCH_JOBS ?? 2);
const N = Number(process.env.BENCH_INSTANCES ?? 24);

async function raw(solver: string, files: string[]): Promise<number> {
  const t0 = Date.now();
  let next = 0;
  const slot = async () => {
    while (next < files.length) {
      const f = files[next++]!;
      await new Promise<void>((resolve) => {
        const c = spawn(path.join(solver, 'bin', 'starexec_run_default'), [f], { stdio: ['ignore', 'ignore', 'ignore'] });
        c.on('close', () => resolve());
      });
    }
  };
  await Promise.all(Array.from({ length: JOBS }, slot));
  return (Date.now() - t0) / 1000;
}

function viaEval(solver: string, set: string, cache: string): number {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, 'eval', solver, '--bench', set, '--no-build', '--no-proofs', '--jobs', String(JOBS), '--timeout', '120'], { env: { ...process.env, XDG_CACHE_HOME: cache }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stdout + r.stderr);
  return (Date.now() - t0) / 1000;
}

async function main(): Promise<void> {
  if (spawnSync('cadical', ['--version']).status !== 0) throw new Error('cadical is needed: bash scripts/setup-sat-tools.sh');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-'));
  try {
    const set = path.join(dir, 'set');
    fs.mkdirSync(set);
    for (let i = 0; i < N; i++) fs.writeFileSync(path.join(set, `planted-${i}.cnf`), planted3Sat(Number(process.env.BENCH_VARS ?? 420), 4.26, 1000 + i));
    const files = fs.readdirSync(set).map((f) => path.join(set, f)).sort();
    const solver = path.join(dir, 'cadical');
    fs.mkdirSync(path.join(solver, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(solver, 'bin', 'starexec_run_default'), '#!/bin/sh\nexec cadical -q "$1"\n', { mode: 0o755 });
    await raw(solver, files); // warm the page cache
    const rows: [number, number][] = [];
    for (let rep = 0; rep < 3; rep++) {
      const r = await raw(solver, files);
      const e = viaEval(solver, set, fs.mkdtempSync(path.join(dir, 'cache-'))); // fresh store: nothing reused
      rows.push([r, e]);
      console.log(`rep ${rep + 1}: raw ${r.toFixed(2)} s, satlution eval ${e.toFixed(2)} s, ratio ${(e / r).toFixed(3)}`);
    }
    const raws = rows.map((x) => x[0]).sort((a, b) => a - b);
    const evals = rows.map((x) => x[1]).sort((a, b) => a - b);
    console.log(`${N} instances, ${JOBS} jobs: median raw ${raws[1]!.toFixed(2)} s, median eval ${evals[1]!.toFixed(2)} s, overhead ${(evals[1]! / raws[1]!).toFixed(3)}x (includes node start-up, instance hashing/validation and every model check)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
