// Benchmark: what the one layer for a candidate's files costs on a real tree. kissat's source (as in
// build-overhead.ts) is built once through buildSolver (which runs the tree check after the build);
// then, on the built tree, each of the layer's operations is timed several times: the walk, the check
// after a build or a coding step, the solver identity (every file streamed), and the copy a new
// candidate is made with, beside `fs.cp` (what copies used before) for scale.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { solverIdentity } from '../src/core/eval/resultsStore';
import { buildSolver } from '../src/core/run/buildSolver';
import { copyCandidate } from '../src/core/workspace/candidateCopy';
import { inspectCandidate } from '../src/core/workspace/candidateCheck';
import { walkCandidate } from '../src/core/workspace/candidateFs';

const ROOT = path.resolve(__dirname, '..', '..');
const REPS = Number(process.env.BENCH_REPS ?? 7);

/** kissat's upstream source directory. */
function kissatSource(): string {
  return (
    process.env.SATLUTION_KISSAT_SRC ?? execFileSync('bash', [path.join(ROOT, 'scripts', 'fetch-solver-source.sh'), 'kissat'], { encoding: 'utf8' }).trim()
  );
}

/** The median of `REPS` timings of `f`, in milliseconds. */
async function medianMs(f: (rep: number) => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const t0 = process.hrtime.bigint();
    await f(rep);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-files-'));
  try {
    const c = path.join(dir, 'SATLUTION_0');
    await copyCandidate(kissatSource(), c);
    fs.writeFileSync(
      path.join(c, 'starexec_build'),
      '#!/bin/bash\nset -e\n./configure --quiet >/dev/null\nmake -s -C build -j2 kissat\nmkdir -p bin\ncp build/kissat bin/\nprintf \'#!/bin/sh\\nexec "$(dirname "$0")/kissat" -q "$1" "$2/proof.out"\\n\' > bin/starexec_run_default\nchmod +x bin/starexec_run_default\n',
    );
    const b = await buildSolver(c, 900);
    if (!b.ok) throw new Error(`${b.detail}\n${b.log.slice(-2000)}`);
    const entries = await walkCandidate(c);
    const files = entries.filter((e) => e.kind === 'file');
    const mb = files.reduce((s, e) => s + e.size, 0) / 2 ** 20;
    console.log(
      `kissat built in ${b.timeS.toFixed(1)} s (the tree check included); the tree: ${entries.length} entries, ${files.length} files, ${mb.toFixed(1)} MB, ${entries.filter((e) => e.kind === 'link').length} links`,
    );
    const walk = await medianMs(() => walkCandidate(c));
    const check = await medianMs(() => inspectCandidate(c, { maxBytes: 1024 * 2 ** 20 }));
    const identity = await medianMs(() => solverIdentity(c));
    const copy = await medianMs((rep) => copyCandidate(c, path.join(dir, `copy-${rep}`)));
    const cp = await medianMs((rep) => fs.promises.cp(c, path.join(dir, `cp-${rep}`), { recursive: true, verbatimSymlinks: true, preserveTimestamps: true }));
    console.log(
      `median of ${REPS}: walk ${walk.toFixed(0)} ms, tree check ${check.toFixed(0)} ms, identity ${identity.toFixed(0)} ms, copy ${copy.toFixed(0)} ms (fs.cp ${cp.toFixed(0)} ms)`,
    );
    console.log(`the tree check is ${((100 * check) / 1000 / b.timeS).toFixed(2)}% of this build's time`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
