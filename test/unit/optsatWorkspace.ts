// A workspace for strategy tests: "optsat", tinysat with a busy-loop `delay` option in kissat's
// options.h layout (so the offline tuner has something that really moves PAR-2) and any `inert` options it
// never reads, approval auto,
// models checked but no proofs (tinysat writes none), a one-instance smoke set, a verify set with known
// answers (an empty one would fail its gate) and planted 3-SAT perf formulas. `edit` rewrites satlution.yaml (strategy, tiers, models...).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { planted3Sat } from '../../src/core/instances/generators';
import { silentLogger } from '../../src/core/ports';
import { initWorkspace } from '../../src/core/workspace/init';
import { FIXTURES, RULES, tempDir, write } from './helpers';
import { writeOptsat } from '../fixtures/optsat';

export async function optsatWorkspace(o: { perf: number; perfSeed: number; delay?: number; inert?: readonly string[]; edit?: (yaml: string) => string }): Promise<string> {
  const seed = tempDir();
  writeOptsat(seed, path.join(FIXTURES, 'seeds', 'tinysat', 'tinysat.c'), { delay: o.delay ?? 100000000, inert: o.inert ?? [] });
  const ws = tempDir();
  await initWorkspace({ dir: ws, seeds: [{ name: 'optsat', source: seed }], defaultRulesDir: RULES, approver: { confirm: async () => true }, log: silentLogger });
  const cfg = path.join(ws, 'satlution.yaml');
  const base = fs.readFileSync(cfg, 'utf8').replace(/check_proofs: true/g, 'check_proofs: false').replace('approval: semi', 'approval: auto').replace(/\btimeout_s: \d+/g, 'timeout_s: 20');
  fs.writeFileSync(cfg, o.edit ? o.edit(base) : base);
  fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'smoke', 'sat-small.cnf'));
  for (const f of ['sat-small.cnf', 'unsat-small.cnf']) fs.copyFileSync(path.join(FIXTURES, 'cnf', f), path.join(ws, 'benchmarks', 'verify', f));
  write(path.join(ws, 'benchmarks', 'verify', 'meta.csv'), 'instance,family,expected\nsat-small.cnf,tiny,SAT\nunsat-small.cnf,tiny,UNSAT\n');
  for (let i = 0; i < o.perf; i++) write(path.join(ws, 'benchmarks', 'perf', `p${i}.cnf`), planted3Sat(30, 4.0, o.perfSeed + i));
  return ws;
}

/** satlution.yaml's `strategy:` line replaced. */
export const withStrategy = (strategy: string) => (y: string) => y.replace(/^strategy:.*$/m, `strategy: ${strategy}`);
