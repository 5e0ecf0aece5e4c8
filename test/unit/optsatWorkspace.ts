// A workspace for strategy tests: "optsat", tinysat with a busy-loop `delay` option in kissat's
// options.h layout (so the offline tuner has something that really moves PAR-2) and any `inert` options
// it never reads, in a seeded workspace (fixtures/seededWorkspace.ts) with planted 3-SAT perf formulas.
// `edit` rewrites satlution.yaml (strategy, tiers, models...).
import * as path from 'node:path';
import { planted3Sat } from '../../src/core/instances/generators';
import { FIXTURES, tempDir, write } from './helpers';
import { writeOptsat } from '../fixtures/optsat';
import { seededWorkspace } from '../fixtures/seededWorkspace';

export async function optsatWorkspace(o: {
  perf: number;
  perfSeed: number;
  delay?: number;
  inert?: readonly string[];
  edit?: (yaml: string) => string;
}): Promise<string> {
  const seed = tempDir();
  writeOptsat(seed, path.join(FIXTURES, 'seeds', 'tinysat', 'tinysat.c'), { delay: o.delay ?? 100000000, inert: o.inert ?? [] });
  return seededWorkspace({
    dir: tempDir(),
    seedName: 'optsat',
    seed,
    perf: (dir) => {
      for (let i = 0; i < o.perf; i++) write(path.join(dir, `p${i}.cnf`), planted3Sat(30, 4.0, o.perfSeed + i));
    },
    ...(o.edit ? { edit: o.edit } : {}),
  });
}

/** satlution.yaml's `strategy:` line replaced. */
export const withStrategy = (strategy: string) => (y: string) => y.replace(/^strategy:.*$/m, `strategy: ${strategy}`);
