// Benchmark: time spent checking DRAT proofs vs time spent solving, on UNSAT pigeonhole formulas
// with cadical's proofs and drat-trim. Needs scripts/setup-sat-tools.sh.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pigeonhole } from '../src/core/instances/generators';
import { findDratTrim } from '../src/core/run/tools';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

function main(): void {
  const dratTrim = findDratTrim();
  if (!dratTrim || spawnSync('cadical', ['--version']).status !== 0) throw new Error('cadical and drat-trim are needed: bash scripts/setup-sat-tools.sh');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-'));
  try {
    const set = path.join(dir, 'set');
    fs.mkdirSync(set);
    for (const [p, h] of [[8, 7], [9, 8], [10, 9]] as const) fs.writeFileSync(path.join(set, `php-${p}-${h}.cnf`), pigeonhole(p, h));
    const solver = path.join(dir, 'cadical');
    fs.mkdirSync(path.join(solver, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(solver, 'bin', 'starexec_run_default'), '#!/bin/sh\nexec cadical -q "$1" "$2/proof.out"\n', { mode: 0o755 });
    const json = path.join(dir, 'r.json');
    const r = spawnSync(process.execPath, [CLI, 'eval', solver, '--bench', set, '--no-build', '--jobs', '1', '--timeout', '300', '--json', json, '--drat-trim', dratTrim], { env: { ...process.env, XDG_CACHE_HOME: dir }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stdout + r.stderr);
    const j = JSON.parse(fs.readFileSync(json, 'utf8')) as { instances: { instance: string; time_s: number; check: { time_s: number; ok: boolean } }[] };
    let solve = 0;
    let check = 0;
    for (const i of j.instances) {
      console.log(`${i.instance.padEnd(14)} solve ${i.time_s.toFixed(2)} s   drat-trim ${i.check.time_s.toFixed(2)} s   ratio ${(i.check.time_s / i.time_s).toFixed(2)}   verified ${i.check.ok}`);
      solve += i.time_s;
      check += i.check.time_s;
    }
    console.log(`total: solving ${solve.toFixed(2)} s, proof checking ${check.toFixed(2)} s (${((100 * check) / (solve + check)).toFixed(0)}% of the time; check/solve ${(check / solve).toFixed(2)}x)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main();
