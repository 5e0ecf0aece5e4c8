// A workspace for strategy tests: "optsat", tinysat with a busy-loop `delay` option in kissat's
// options.h layout (so the offline tuner has something that really moves PAR-2), approval auto,
// models checked but no proofs (tinysat writes none), a one-instance smoke set and planted 3-SAT perf
// formulas. `edit` rewrites satlution.yaml (strategy, tiers, models...).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { planted3Sat } from '../../src/core/instances/generators';
import { silentLogger } from '../../src/core/ports';
import { initWorkspace } from '../../src/core/workspace/init';
import { FIXTURES, RULES, tempDir, write } from './helpers';

export async function optsatWorkspace(o: { perf: number; perfSeed: number; delay?: number; edit?: (yaml: string) => string }): Promise<string> {
  const seed = tempDir();
  const tiny = fs.readFileSync(path.join(FIXTURES, 'seeds', 'tinysat', 'tinysat.c'), 'utf8');
  write(path.join(seed, 'src', 'options.h'), `#define OPTIONS \\\n  OPTION (delay, ${o.delay ?? 100000000}, 0, 1000000000, "busy-loop iterations before solving")\n`);
  write(path.join(seed, 'src', 'optsat.c'), '#include "options.h"\n#define OPTION(N, V, L, H, D) static const long opt_##N = V;\nOPTIONS\n#undef OPTION\n' + tiny.replace('int main(int argc, char **argv) {\n', 'int main(int argc, char **argv) {\n  for (volatile long spin = 0; spin < opt_delay; spin++) {}\n'));
  write(path.join(seed, 'Makefile'), 'optsat: src/optsat.c src/options.h\n\t$(CC) -O2 -o optsat src/optsat.c\n');
  const ws = tempDir();
  await initWorkspace({ dir: ws, seeds: [{ name: 'optsat', source: seed }], defaultRulesDir: RULES, approver: { confirm: async () => true }, log: silentLogger });
  const cfg = path.join(ws, 'satlution.yaml');
  const base = fs.readFileSync(cfg, 'utf8').replace(/check_proofs: true/g, 'check_proofs: false').replace('approval: semi', 'approval: auto').replace(/timeout_s: \d+/g, 'timeout_s: 20');
  fs.writeFileSync(cfg, o.edit ? o.edit(base) : base);
  fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'smoke', 'sat-small.cnf'));
  for (let i = 0; i < o.perf; i++) write(path.join(ws, 'benchmarks', 'perf', `p${i}.cnf`), planted3Sat(30, 4.0, o.perfSeed + i));
  return ws;
}

/** satlution.yaml's `strategy:` line replaced. */
export const withStrategy = (strategy: string) => (y: string) => y.replace(/^strategy:.*$/m, `strategy: ${strategy}`);
