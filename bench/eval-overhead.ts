// Benchmark: what the evaluator costs on top of the solver. Wall time of `satlution eval` over a set
// (the sandbox, limits, output parsing, model checks, result records) vs the same solver runs launched
// raw with the same parallelism, and the same evaluation with `sandbox: off`, which gives the sandbox's
// own cost per run. Target: <= 1.05x with the sandbox on. Then (alone with BENCH_PART=audit) perf with its proof audit: short UNSAT
// formulas, each run keeping its DRAT proof and a sample of them checked by drat-trim, against the same
// runs launched raw, each writing its proof. Target: <= 1.15x (the checks run beside the remaining runs).
// Needs cadical, drat-trim and bubblewrap (scripts/setup-sat-tools.sh).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planted3Sat, uniform3Sat } from '../src/core/instances/generators';
import { findDratTrim } from '../src/core/run/checkers';
import { DEFAULT_ISOLATION } from '../src/core/isolation/settings';
import { runSolver } from '../src/core/run/runSolver';

/** The sandbox's start-up cost per run, measured on a solver that exits at once (alternating, 100 runs each). */
async function startupCost(dir: string): Promise<void> {
  const solver = path.join(dir, 'instant');
  fs.mkdirSync(path.join(solver, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(solver, 'bin', 'starexec_run_default'), '#!/bin/sh\necho "s UNKNOWN"\n', { mode: 0o755 });
  const cnf = path.join(dir, 'one.cnf');
  fs.writeFileSync(cnf, 'p cnf 1 1\n1 0\n');
  const times = { bwrap: [] as number[], off: [] as number[] };
  for (let i = 0; i < 100; i++)
    for (const mode of ['bwrap', 'off'] as const) {
      const t0 = process.hrtime.bigint();
      await runSolver({ solverDir: solver, cnf, timeoutS: 10, memMb: 1024, isolation: { ...DEFAULT_ISOLATION, mode } });
      times[mode].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log(
    `one run of a solver that exits at once (memory cgroup, output parsing, run directory): median ${med(times.bwrap).toFixed(1)} ms in the sandbox, ${med(times.off).toFixed(1)} ms without: the sandbox costs ${(med(times.bwrap) - med(times.off)).toFixed(1)} ms per run`,
  );
}

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const JOBS = Number(process.env.BENCH_JOBS ?? 2);
const N = Number(process.env.BENCH_INSTANCES ?? 24);

/** The runs launched raw, `JOBS` at a time; with `proofs`, each writes its proof into a directory of its own there. */
async function raw(solver: string, files: string[], proofs?: string): Promise<number> {
  const t0 = Date.now();
  let next = 0;
  const slot = async () => {
    while (next < files.length) {
      const i = next++;
      const f = files[i]!;
      const args = proofs ? [f, fs.mkdtempSync(path.join(proofs, `run-${i}-`))] : [f];
      await new Promise<void>((resolve) => {
        const c = spawn(path.join(solver, 'bin', 'starexec_run_default'), args, { stdio: ['ignore', 'ignore', 'ignore'] });
        c.on('close', () => resolve());
      });
    }
  };
  await Promise.all(Array.from({ length: JOBS }, slot));
  return (Date.now() - t0) / 1000;
}

/** `satlution eval` in a workspace of its own whose satlution.yaml sets `sandbox`; with `audit`, perf keeps every UNSAT answer's proof and audits a sample (the default policy); `perf`: the perf stage's checks, else verify's. */
function viaEval(solver: string, set: string, ws: string, sandbox: 'on' | 'off', audit = false, perf = audit): number {
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(
    path.join(ws, 'satlution.yaml'),
    `seeds: [{ name: cadical, source: ${JSON.stringify(solver)} }]\nsandbox: ${sandbox}\n${audit ? '' : 'stages: { perf: { audit: { min: 0, share: 0 } } }\n'}`,
  );
  const t0 = Date.now();
  const stage = [...(perf ? ['--stage', 'perf'] : []), ...(audit ? [] : ['--no-proofs'])];
  const r = spawnSync(process.execPath, [CLI, 'eval', solver, '--bench', set, '--no-build', ...stage, '--jobs', String(JOBS), '--timeout', '120'], {
    cwd: ws,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stdout + r.stderr);
  if (audit && !/audit: the proofs of \d+ of \d+ UNSAT answers checked/.test(r.stdout + r.stderr)) throw new Error(`no audit ran:\n${r.stdout}${r.stderr}`);
  return (Date.now() - t0) / 1000;
}

/** A set of N instances (`instance(i)`: its name and text) in `dir/name`, and its files in order. */
function setOf(dir: string, name: string, instance: (i: number) => [string, string]): { set: string; files: string[] } {
  const set = path.join(dir, name);
  fs.mkdirSync(set);
  for (let i = 0; i < N; i++) {
    const [file, text] = instance(i);
    fs.writeFileSync(path.join(set, file), text);
  }
  const files = fs
    .readdirSync(set)
    .map((f) => path.join(set, f))
    .sort();
  return { set, files };
}

/** A solver directory `dir/name` whose run script is `line` (sh). */
function solverOf(dir: string, name: string, line: string): string {
  const solver = path.join(dir, name);
  fs.mkdirSync(path.join(solver, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(solver, 'bin', 'starexec_run_default'), `#!/bin/sh\n${line}\n`, { mode: 0o755 });
  return solver;
}

/** perf with its audit on short UNSAT formulas (about 0.4 s each for cadical) against the same runs raw, each writing its proof. */
async function auditOverhead(dir: string): Promise<void> {
  if (!findDratTrim()) throw new Error('drat-trim is needed: bash scripts/setup-sat-tools.sh');
  const { set, files } = setOf(dir, 'unsat', (i) => [`uniform-${i}.cnf`, uniform3Sat(Number(process.env.BENCH_UNSAT_VARS ?? 230), 4.8, 2000 + i)]);
  const solver = solverOf(dir, 'cadical-proofs', 'exec cadical -q "$1" ${2:+"$2/proof.out"}');
  const proofs = () => fs.mkdtempSync(path.join(dir, 'proofs-'));
  await raw(solver, files, proofs());
  const rows: [number, number, number][] = [];
  for (let rep = 0; rep < 5; rep++) {
    const r = await raw(solver, files, proofs());
    const on = viaEval(solver, set, fs.mkdtempSync(path.join(dir, 'ws-')), 'on', true);
    const off = viaEval(solver, set, fs.mkdtempSync(path.join(dir, 'ws-')), 'on', false, true);
    rows.push([r, on, off]);
    console.log(
      `audit rep ${rep + 1}: raw with proofs ${r.toFixed(2)} s, satlution eval --stage perf ${on.toFixed(2)} s with its audit, ${off.toFixed(2)} s without (no proofs); ratio ${(on / r).toFixed(3)}`,
    );
  }
  const med = (i: 0 | 1 | 2) => rows.map((x) => x[i]).sort((a, b) => a - b)[2]!;
  console.log(
    `${N} UNSAT instances, ${JOBS} jobs, perf with its audit: median raw ${med(0).toFixed(2)} s, median eval ${med(1).toFixed(2)} s: overhead ${(med(1) / med(0)).toFixed(3)}x (target <= 1.15x); the same eval without the audit (and without proofs) ${med(2).toFixed(2)} s`,
  );
}

async function main(): Promise<void> {
  if (spawnSync('cadical', ['--version']).status !== 0) throw new Error('cadical is needed: bash scripts/setup-sat-tools.sh');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-'));
  try {
    const { set, files } = setOf(dir, 'set', (i) => [`planted-${i}.cnf`, planted3Sat(Number(process.env.BENCH_VARS ?? 420), 4.26, 1000 + i)]);
    const solver = solverOf(dir, 'cadical', 'exec cadical -q "$1"');
    if (process.env.BENCH_PART === 'audit') return await auditOverhead(dir);
    await raw(solver, files); // warm the page cache
    await startupCost(dir);
    const rows: [number, number, number][] = [];
    for (let rep = 0; rep < 5; rep++) {
      // Alternated, each in a fresh workspace (fresh store: nothing reused).
      const r = await raw(solver, files);
      const on = viaEval(solver, set, fs.mkdtempSync(path.join(dir, 'ws-')), 'on');
      const off = viaEval(solver, set, fs.mkdtempSync(path.join(dir, 'ws-')), 'off');
      rows.push([r, on, off]);
      console.log(
        `rep ${rep + 1}: raw ${r.toFixed(2)} s, satlution eval ${on.toFixed(2)} s (sandbox on), ${off.toFixed(2)} s (off); ratio ${(on / r).toFixed(3)} / ${(off / r).toFixed(3)}`,
      );
    }
    const med = (i: 0 | 1 | 2) => rows.map((x) => x[i]).sort((a, b) => a - b)[2]!;
    const [r, on, off] = [med(0), med(1), med(2)];
    console.log(`${N} instances, ${JOBS} jobs: median raw ${r.toFixed(2)} s, median eval ${on.toFixed(2)} s with the sandbox, ${off.toFixed(2)} s without`);
    console.log(
      `overhead ${(on / r).toFixed(3)}x with the sandbox, ${(off / r).toFixed(3)}x without (includes node start-up, instance hashing/validation and every model check)`,
    );
    console.log(`the sandbox's own cost: ${(((on - off) * 1000 * JOBS) / N).toFixed(1)} ms per run`);
    await auditOverhead(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
