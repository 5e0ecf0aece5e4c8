// `satlution generate suite`: instances of several families, each answer proved, split at random per
// family into a training set (selection sees it) and a held-out set (it does not), written in the
// workspace's benchmark layout with meta.csv and a PROVENANCE.json that says how each answer was proved.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { prng } from '../stats/prng';
import { writeFileAtomic } from '../store/atomic';
import { draw, type Draw, type Family, FAMILIES, type FamilyTools } from './families';
import { proveAnswer, type Provers } from './prove';
import { formatMeta } from '../instances/metaCsv';

/** An instance with its proved answer. */
export interface ProvedInstance extends Draw {
  expected: 'SAT' | 'UNSAT';
  evidence: string;
  solveS: number;
}

/** What the generator was asked for, recorded beside the set. */
export interface SuiteRequest {
  seed: number;
  /** Instances per family (before a split). */
  counts: Partial<Record<Family, number>>;
  provers: Provers;
  tools: FamilyTools;
  jobs: number;
  /** Draws per instance before giving up (a family that keeps only UNSAT draws drops SAT ones). */
  maxAttempts?: number;
  onProgress?: (line: string) => void;
}

/** How a set's answers were proved, one entry per instance (PROVENANCE.json). */
export const ProvenanceSchema = z.object({
  generator: z.literal('satlution generate suite'),
  seed: z.number().int(),
  reference_solver: z.string(),
  checker: z.string(),
  instances: z.array(z.object({ name: z.string(), family: z.string(), expected: z.enum(['SAT', 'UNSAT']), evidence: z.string(), reference_s: z.number() })),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

export const PROVENANCE_FILE = 'PROVENANCE.json';

/** Generates and proves every instance asked for, `jobs` at a time; throws when one cannot be had. */
export async function generateSuite(req: SuiteRequest): Promise<ProvedInstance[]> {
  const wanted = FAMILIES.flatMap((f) => Array.from({ length: req.counts[f] ?? 0 }, (_, i) => ({ family: f, index: i })));
  const out: (ProvedInstance | undefined)[] = new Array(wanted.length);
  let next = 0;
  let done = 0;
  // Instances being proved are files with their names, so a message names them.
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'satlution-suite-'));
  let failed = false;
  const worker = async () => {
    while (next < wanted.length && !failed) {
      const k = next++;
      const { family, index } = wanted[k]!;
      const why: string[] = [];
      for (let attempt = 0; attempt < (req.maxAttempts ?? 12) && !out[k]; attempt++) {
        req.tools.signal?.throwIfAborted();
        const d = await draw(family, req.seed, index, attempt, req.tools);
        const tmp = path.join(scratch, d.name);
        await fs.writeFile(tmp, d.text);
        const p = await proveAnswer(tmp, req.provers, req.tools.signal).finally(() => fs.rm(tmp, { force: true }));
        if (p.answer !== null && p.answer === d.keep) out[k] = { ...d, expected: p.answer, evidence: p.evidence, solveS: p.solveS };
        else why.push(p.answer === null ? p.why : `proved ${p.answer}, the family keeps ${d.keep}`);
      }
      if (!out[k]) {
        failed = true;
        throw new Error(`${family} instance ${index + 1}: no usable draw in ${req.maxAttempts ?? 12} attempts (${[...new Set(why)].join('; ')})`);
      }
      done++;
      req.onProgress?.(
        `${done}/${wanted.length} proved: ${out[k]!.name} ${out[k]!.expected} (${out[k]!.evidence}, reference solver ${out[k]!.solveS.toFixed(1)} s)`,
      );
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(req.jobs, wanted.length)) }, worker));
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
  return out as ProvedInstance[];
}

/**
 * Splits per family at random (fixed by `seed`): `heldoutShare` of each family, rounded, is held out,
 * and every instance of the `wholeFamilies` is, so the held-out set also measures families the
 * evolution never saw.
 */
export function splitPerFamily(
  instances: ProvedInstance[],
  heldoutShare: number,
  seed: number,
  wholeFamilies: readonly string[] = [],
): { train: ProvedInstance[]; heldout: ProvedInstance[] } {
  const rnd = prng(seed ^ 0x5eed);
  const train: ProvedInstance[] = [];
  const heldout: ProvedInstance[] = [];
  for (const f of FAMILIES) {
    const of = instances.filter((i) => i.family === f);
    const order = of
      .map((x) => ({ x, r: rnd() }))
      .sort((a, b) => a.r - b.r)
      .map((o) => o.x);
    const h = wholeFamilies.includes(f) ? of.length : Math.round(of.length * heldoutShare);
    heldout.push(...order.slice(0, h));
    train.push(...order.slice(h));
  }
  return { train, heldout };
}

/**
 * Writes a set: the CNF files, meta.csv (every answer proved: a checked model or a verified DRAT proof) and PROVENANCE.json. A directory that
 * holds anything else than a generated set is refused: benchmarks someone put there are never replaced.
 */
export async function writeSuiteSet(dir: string, instances: ProvedInstance[], meta: { seed: number; provers: Provers }): Promise<void> {
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  const generated = entries.includes(PROVENANCE_FILE);
  const foreign = entries.filter((e) => e !== '.gitkeep');
  if (foreign.length && !generated)
    throw new Error(`${dir} already holds ${foreign.length} file(s) that satlution generate suite did not write; choose an empty set directory`);
  for (const e of foreign) await fs.rm(path.join(dir, e), { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  for (const i of instances) await fs.writeFile(path.join(dir, i.name), i.text);
  await fs.writeFile(
    path.join(dir, 'meta.csv'),
    formatMeta(instances.map((i) => ({ instance: i.name, family: i.family, expected: i.expected, proved: i.expected === 'SAT' ? 'model' : 'drat' }))),
  );
  const provenance: Provenance = {
    generator: 'satlution generate suite',
    seed: meta.seed,
    reference_solver: meta.provers.solver,
    checker: meta.provers.dratTrim,
    instances: instances.map((i) => ({
      name: i.name,
      family: i.family,
      expected: i.expected,
      evidence: i.evidence,
      reference_s: Math.round(i.solveS * 100) / 100,
    })),
  };
  await writeFileAtomic(path.join(dir, PROVENANCE_FILE), JSON.stringify(provenance, null, 2) + '\n');
}
