// Benchmark: what the sandbox costs a build. kissat's source (Debian's tarball, fetched into the cache
// by scripts/fetch-solver-source.sh, or SATLUTION_KISSAT_SRC) built with `bash starexec_build` through
// buildSolver, alternately with the sandbox on and off, three times each.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSolver } from '../src/core/run/buildSolver';
import { DEFAULT_ISOLATION, type IsolationSettings } from '../src/core/isolation/settings';

const ROOT = path.resolve(__dirname, '..', '..');
const REPS = Number(process.env.BENCH_REPS ?? 3);

/** kissat's upstream source directory. */
function kissatSource(): string {
  return (
    process.env.SATLUTION_KISSAT_SRC ?? execFileSync('bash', [path.join(ROOT, 'scripts', 'fetch-solver-source.sh'), 'kissat'], { encoding: 'utf8' }).trim()
  );
}

/** A fresh copy of kissat with a StarExec build script, built once; its build time in seconds. */
async function timeBuild(src: string, dir: string, isolation: IsolationSettings): Promise<number> {
  const c = path.join(dir, `kissat-${isolation.mode}-${Date.now()}`);
  fs.cpSync(src, c, { recursive: true, verbatimSymlinks: true });
  fs.writeFileSync(
    path.join(c, 'starexec_build'),
    '#!/bin/bash\nset -e\n./configure --quiet >/dev/null\nmake -s -C build -j2 kissat\nmkdir -p bin\ncp build/kissat bin/\nprintf \'#!/bin/sh\\nexec "$(dirname "$0")/kissat" -q "$1" "$2/proof.out"\\n\' > bin/starexec_run_default\nchmod +x bin/starexec_run_default\n',
  );
  const b = await buildSolver(c, 900, undefined, isolation);
  if (!b.ok) throw new Error(`${isolation.mode}: ${b.detail}\n${b.log.slice(-2000)}`);
  fs.rmSync(c, { recursive: true, force: true });
  return b.timeS;
}

async function main(): Promise<void> {
  const src = kissatSource();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-build-'));
  try {
    const on: number[] = [];
    const off: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      on.push(await timeBuild(src, dir, DEFAULT_ISOLATION));
      off.push(await timeBuild(src, dir, { ...DEFAULT_ISOLATION, mode: 'off' }));
      console.log(`rep ${rep + 1}: kissat built in ${on[rep]!.toFixed(1)} s with the sandbox, ${off[rep]!.toFixed(1)} s without`);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      `kissat build, median of ${REPS}: ${med(on).toFixed(1)} s with the sandbox, ${med(off).toFixed(1)} s without (${(med(on) / med(off)).toFixed(3)}x)`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
