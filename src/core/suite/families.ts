// Benchmark families with real signal for tuning a CDCL solver (measured with kissat on 2 cores:
// default options take 0.1-5 s per instance, coloring's tail up to some 15 s, and option changes move each
// family differently: a shorter rephase interval that helps planted SAT makes tseitin and coloring far slower).
// Every instance is deterministic in (suite seed, family, index); its answer is proved (prove.ts).
import { graphColoring, pigeonhole, planted3Sat, shuffleCnf, tseitinTorus, uniform3Sat } from '../instances/generators';
import { prng } from '../stats/prng';
import { multiplierMiter } from './miter';

/** The families `satlution generate suite` makes. */
export const FAMILIES = ['planted', 'uniform-unsat', 'pigeonhole', 'miter', 'tseitin', 'coloring'] as const;
export type Family = (typeof FAMILIES)[number];

/** What each family is, for help texts and reports. */
export const FAMILY_HELP: Record<Family, string> = {
  planted: '"2-hidden" planted random 3-SAT, 580-700 variables at ratio 4.26 (SAT; local search helps)',
  'uniform-unsat': 'uniform random 3-SAT, 215-240 variables at ratio 4.26, UNSAT draws only (SAT draws are dropped)',
  pigeonhole: 'pigeonhole PHP(9,8) and PHP(10,9), isomorphically shuffled (UNSAT; hard for resolution)',
  miter: '9-12-bit multiplier miters made by berkeley-abc, shuffled (UNSAT; easy with SAT sweeping)',
  tseitin: 'Tseitin parity on 5 x 6 and 5 x 7 torus grids, shuffled (UNSAT; structured, hard for resolution)',
  coloring: '3-colouring of random graphs, 380-420 vertices at average degree 4.7, UNSAT draws only (heavy-tailed)',
};

/** One generated instance, before its answer is proved. */
export interface Draw {
  name: string;
  family: Family;
  text: string;
  /** The answer this family keeps: a draw proved otherwise is dropped and drawn again. */
  keep: 'SAT' | 'UNSAT';
}

/** The tools a family needs beyond Node. */
export interface FamilyTools {
  abc?: string;
  signal?: AbortSignal;
}

/** A 31-bit seed for draw `attempt` of instance `index` of `family` in the suite `seed`. */
export function drawSeed(seed: number, family: Family, index: number, attempt: number): number {
  let h = 2166136261 ^ seed;
  for (const ch of `${family}/${index}/${attempt}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return (h >>> 0) % 2147483647;
}

/** Draw `attempt` of instance `index` of a family. */
export async function draw(family: Family, seed: number, index: number, attempt: number, tools: FamilyTools): Promise<Draw> {
  const s = drawSeed(seed, family, index, attempt);
  const rnd = prng(s);
  switch (family) {
    case 'planted': {
      const vars = 580 + Math.floor(rnd() * 121);
      return { name: `planted-${vars}-${s}.cnf`, family, text: planted3Sat(vars, 4.26, s), keep: 'SAT' };
    }
    case 'uniform-unsat': {
      const vars = 215 + Math.floor(rnd() * 26);
      return { name: `uniform-${vars}-${s}.cnf`, family, text: uniform3Sat(vars, 4.26, s), keep: 'UNSAT' };
    }
    case 'pigeonhole': {
      const p = index % 2 === 0 ? 9 : 10;
      return { name: `php-${p}-${p - 1}-shuffled-${s}.cnf`, family, text: shuffleCnf(pigeonhole(p, p - 1), s), keep: 'UNSAT' };
    }
    case 'miter': {
      if (!tools.abc) throw new Error('the miter family needs berkeley-abc (the Debian package berkeley-abc; scripts/setup-sat-tools.sh installs it)');
      const bits = 9 + Math.floor(rnd() * 4);
      const script = 1 + Math.floor(rnd() * 5);
      return {
        name: `miter-${bits}-s${script}-${s}.cnf`,
        family,
        text: shuffleCnf(await multiplierMiter(tools.abc, bits, script, tools.signal), s),
        keep: 'UNSAT',
      };
    }
    case 'tseitin': {
      const height = 6 + Math.floor(rnd() * 2);
      return { name: `tseitin-5x${height}-${s}.cnf`, family, text: shuffleCnf(tseitinTorus(5, height, s), s), keep: 'UNSAT' };
    }
    case 'coloring': {
      const vertices = 380 + Math.floor(rnd() * 41);
      return { name: `color3-${vertices}-${s}.cnf`, family, text: shuffleCnf(graphColoring(vertices, 4.7, 3, s), s), keep: 'UNSAT' };
    }
  }
}
