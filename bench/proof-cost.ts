// Benchmark: what proofs cost. Every perf run writes the DRAT proof of its answer (so that an UNSAT
// answer can be checked from the very run that gave it), on both sides of every comparison; this
// measures that writing on the demo's families (`satlution generate suite`): the CPU time of each
// instance solved with a proof file against the same solver without one, in alternating pairs, and the
// proof's size. Then checking: drat-trim's time on each UNSAT proof against the solving time, and what
// the perf audit costs per checked answer now (drat-trim on the kept proof) against before (the answer
// run again with a proof, then drat-trim). Needs scripts/setup-sat-tools.sh (cadical, drat-trim,
// berkeley-abc); with SATLUTION_KISSAT naming a kissat binary (the demo's solver) it measures kissat,
// else cadical (which takes minutes on the miters).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findDratTrim } from '../src/core/run/checkers';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
/** Pairs per instance (with, without), alternating which runs first. */
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);

/** User + system CPU seconds of one solver run (bash's `time`), and the proof's size when one was asked for. */
function cpuOf(solver: string, cnf: string, proof?: string): { cpu: number; bytes: number } {
  const cmd = `TIMEFORMAT='%3U %3S'; { time ${[solver, '-q', cnf, ...(proof ? [proof] : [])].map((w) => `'${w}'`).join(' ')} > /dev/null; } 2>&1; exit 0`;
  const r = spawnSync('bash', ['-c', `${cmd}`], { encoding: 'utf8' });
  const [u, s] = r.stdout.trim().split('\n').pop()!.split(' ').map(Number);
  const bytes = proof && fs.existsSync(proof) ? fs.statSync(proof).size : 0;
  return { cpu: u! + s!, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const geomean = (xs: number[]) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

function main(): void {
  const dratTrim = findDratTrim();
  if (!dratTrim || spawnSync('cadical', ['--version']).status !== 0) throw new Error('cadical and drat-trim are needed: bash scripts/setup-sat-tools.sh');
  const solvers = process.env.SATLUTION_KISSAT ? [['kissat', process.env.SATLUTION_KISSAT]] : [['cadical', 'cadical']];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-'));
  try {
    const set = path.join(dir, 'set');
    const g = spawnSync(
      process.execPath,
      [CLI, 'generate', 'suite', '--out', set, '--seed', '3', '--count', 'planted=4,uniform-unsat=6,pigeonhole=4,miter=4', '--prover', solvers[0]![1]!],
      { encoding: 'utf8', env: { ...process.env, SATLUTION_DRAT_TRIM: dratTrim } },
    );
    if (g.status !== 0) throw new Error(`generate suite failed: ${g.stdout}${g.stderr}`);
    const meta = fs
      .readFileSync(path.join(set, 'meta.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    for (const [name, bin] of solvers) {
      console.log(`\n${name}: CPU time with a proof file vs without (median of ${PAIRS} alternating pairs each)`);
      const ratios: number[] = [];
      let [withTotal, withoutTotal, bytes] = [0, 0, 0];
      const unsat: { instance: string; solve: number; check: number; proofMb: number }[] = [];
      for (const [instance, family, expected] of meta) {
        const cnf = path.join(set, instance!);
        const proof = path.join(dir, 'proof.out');
        const w: number[] = [];
        const wo: number[] = [];
        let size = 0;
        for (let k = 0; k < PAIRS; k++) {
          const order = k % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
          for (const o of order) {
            if (o === 'with') {
              fs.rmSync(proof, { force: true });
              const r = cpuOf(bin!, cnf, proof);
              w.push(r.cpu);
              size = r.bytes;
            } else wo.push(cpuOf(bin!, cnf).cpu);
          }
        }
        const [mw, mwo] = [median(w), median(wo)];
        ratios.push(Math.max(mw, 0.01) / Math.max(mwo, 0.01));
        withTotal += mw;
        withoutTotal += mwo;
        bytes += size;
        let check = '';
        if (expected === 'UNSAT') {
          // CPU time, as the solving time it is set against.
          const c = spawnSync('bash', ['-c', `TIMEFORMAT='%3U %3S'; { time '${dratTrim}' '${cnf}' '${proof}' -t 600 > /dev/null; } 2>&1`], {
            encoding: 'utf8',
          });
          const t = c.stdout
            .trim()
            .split('\n')
            .pop()!
            .split(' ')
            .map(Number)
            .reduce((a, b) => a + b, 0);
          unsat.push({ instance: instance!, solve: mw, check: t, proofMb: size / 2 ** 20 });
          check = `   drat-trim ${t.toFixed(2)} s CPU`;
        }
        console.log(
          `${instance!.padEnd(34)} ${family!.padEnd(14)} ${mwo.toFixed(2)} -> ${mw.toFixed(2)} s CPU  (x${(mw / Math.max(mwo, 0.001)).toFixed(3)})  proof ${(size / 2 ** 20).toFixed(1)} MB${check}`,
        );
      }
      console.log(
        `${name}: writing proofs costs x${geomean(ratios).toFixed(3)} CPU time (geometric mean of ${ratios.length} instances; in total ${withoutTotal.toFixed(1)} -> ${withTotal.toFixed(1)} s, x${(withTotal / withoutTotal).toFixed(3)}); ${(bytes / 2 ** 20).toFixed(0)} MB of proofs, ${(bytes / 2 ** 20 / withTotal).toFixed(1)} MB per CPU second`,
      );
      const solve = unsat.reduce((s, u) => s + u.solve, 0);
      const check = unsat.reduce((s, u) => s + u.check, 0);
      console.log(
        `${name}: checking the ${unsat.length} UNSAT proofs: drat-trim ${check.toFixed(1)} s CPU for ${solve.toFixed(1)} s CPU of solving (x${(check / solve).toFixed(2)}); the largest proof ${Math.max(...unsat.map((u) => u.proofMb)).toFixed(1)} MB`,
      );
      console.log(
        `${name}: the perf audit per checked answer: now drat-trim on the kept proof, ${(check / unsat.length).toFixed(2)} s CPU on average; before, the answer was run again with a proof first: ${((solve + check) / unsat.length).toFixed(2)} s CPU (the check is ${(100 * (check / (solve + check))).toFixed(0)}% of that)`,
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
