// A tinysat workspace for cycle tests: small sets with known answers, models checked (tinysat writes
// no DRAT proofs), the approval mode as given, and `perf` planted 3-SAT formulas from `perfSeed`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { planted3Sat } from '../../src/core/instances/generators';
import { silentLogger } from '../../src/core/ports';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { FIXTURES, RULES, tempDir, write } from './helpers';

export async function tinysatCycleWorkspace(o: { approval: 'auto' | 'semi' | 'manual'; perf: number; perfSeed: number }): Promise<string> {
  const ws = tempDir();
  await initWorkspace({
    dir: ws,
    seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
    defaultRulesDir: RULES,
    approver: { confirm: async () => true },
    log: silentLogger,
  });
  const cfg = path.join(ws, 'satlution.yaml');
  fs.writeFileSync(
    cfg,
    fs
      .readFileSync(cfg, 'utf8')
      .replace(/check_proofs: true/g, 'check_proofs: false')
      .replace('approval: semi', `approval: ${o.approval}`)
      .replace(/timeout_s: \d+/g, 'timeout_s: 20'),
  );
  fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'smoke', 'sat-small.cnf'));
  for (const f of ['sat-small.cnf', 'unsat-small.cnf']) fs.copyFileSync(path.join(FIXTURES, 'cnf', f), path.join(ws, 'benchmarks', 'verify', f));
  write(path.join(ws, 'benchmarks', 'verify', 'meta.csv'), 'instance,family,expected\nsat-small.cnf,tiny,SAT\nunsat-small.cnf,tiny,UNSAT\n');
  for (let i = 0; i < o.perf; i++) write(path.join(ws, 'benchmarks', 'perf', `p${i}.cnf`), planted3Sat(30, 4.0, o.perfSeed + i));
  return ws;
}
