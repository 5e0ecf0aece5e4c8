// Sample benchmarks for a first run: small sets whose answers are known by construction and checked
// here, so a new workspace can be evaluated before the person has instances of their own. Planted
// 3-SAT is satisfiable by its hidden assignment (checked clause by clause before writing); a
// pigeonhole formula with one pigeon more than holes is UNSAT by counting. Sets that already hold
// instances are left alone.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { setDir, type Config } from '../config/schema';
import { pigeonhole, planted, shuffleCnf } from '../instances/generators';
import { CNF_FILE } from '../instances/sets';
import { writeFileAtomic } from '../store/atomic';
import { formatMeta } from '../instances/metaCsv';

/** One sample instance, its expected answer, and why that answer holds. */
interface Sample {
  name: string;
  family: 'planted' | 'pigeonhole';
  expected: 'SAT' | 'UNSAT';
  text: string;
  evidence: string;
}

/** Sizes per stage: smoke and verify run in milliseconds (verify checks every proof); perf takes a simple CDCL solver seconds in all, kissat well under one. */
const PLAN: Record<'smoke' | 'verify' | 'perf', { planted: number[]; php: number[] }> = {
  smoke: { planted: [40, 60], php: [4] },
  verify: { planted: [80, 100, 120], php: [5, 6] },
  perf: { planted: [160, 180, 200, 220, 240, 260, 280, 300], php: [6, 6, 7, 7] },
};

/** A planted formula, written only after its hidden assignment was checked to satisfy every clause. */
function plantedSample(vars: number, seed: number): Sample {
  const f = planted(vars, 4.2, seed);
  for (const c of f.clauses) {
    const lits = c
      .split(' ')
      .map(Number)
      .filter((l) => l !== 0);
    if (!lits.some((l) => l * f.hidden[Math.abs(l)]! > 0)) throw new Error(`planted formula ${vars}/${seed}: a clause the hidden assignment falsifies`);
  }
  return {
    name: `planted-${vars}-${seed}.cnf`,
    family: 'planted',
    expected: 'SAT',
    text: f.header + f.clauses.join('\n') + '\n',
    evidence: 'the planted assignment satisfies every clause (checked)',
  };
}

/** PHP(n+1, n), its variables and clauses shuffled (a different formula text, the same formula up to renaming). */
function phpSample(holes: number, seed: number): Sample {
  return {
    name: `php-${holes + 1}-${holes}-s${seed}.cnf`,
    family: 'pigeonhole',
    expected: 'UNSAT',
    text: shuffleCnf(pigeonhole(holes + 1, holes), seed),
    evidence: `${holes + 1} pigeons cannot sit in ${holes} holes, one each (UNSAT by counting)`,
  };
}

/** The samples of one stage, deterministic. */
export function stageSamples(stage: keyof typeof PLAN): Sample[] {
  const p = PLAN[stage];
  const base = stage === 'smoke' ? 100 : stage === 'verify' ? 200 : 300;
  return [...p.planted.map((v, i) => plantedSample(v, base + i)), ...p.php.map((n, i) => phpSample(n, base + i))];
}

/** What was done for one set. */
export interface SampleSetResult {
  set: string;
  dir: string;
  /** Instances written; 0 when the set already had instances (`kept`). */
  written: number;
  kept: number;
}

/**
 * Writes sample instances (with meta.csv and SAMPLES.json saying why each answer holds) into the sets
 * the smoke, verify and perf stages run, where those sets hold no instance yet.
 */
export async function addSampleBenchmarks(ws: string, config: Config): Promise<SampleSetResult[]> {
  const out: SampleSetResult[] = [];
  const done = new Set<string>();
  for (const stage of ['smoke', 'verify', 'perf'] as const) {
    const set = config.stages[stage]?.set;
    if (!set || done.has(set)) continue;
    done.add(set);
    const dir = setDir(config, ws, set);
    const have = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => CNF_FILE.test(n)).length;
    if (have) {
      out.push({ set, dir, written: 0, kept: have });
      continue;
    }
    const samples = stageSamples(stage);
    await fs.mkdir(dir, { recursive: true });
    for (const s of samples) await fs.writeFile(path.join(dir, s.name), s.text);
    await writeFileAtomic(
      path.join(dir, 'meta.csv'),
      formatMeta(samples.map((s) => ({ instance: s.name, family: s.family, expected: s.expected, proved: 'construction' }))),
    );
    await writeFileAtomic(
      path.join(dir, 'SAMPLES.json'),
      JSON.stringify(
        { generator: 'SATLUTION sample benchmarks', instances: samples.map((s) => ({ name: s.name, expected: s.expected, evidence: s.evidence })) },
        null,
        2,
      ) + '\n',
    );
    out.push({ set, dir, written: samples.length, kept: 0 });
  }
  return out;
}
