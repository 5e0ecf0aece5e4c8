// The objective portfolio: objective functions a person or a model wrote, kept in
// `.satlution/objectives/` (one `<name>.js` each, and index.json with who wrote it, when and its
// multiplier), scored in the sandbox over every candidate measured on the full perf set, and merged
// by consensus. Correctness is never an objective: candidates that failed a gate are not scored.
import { loadConfig } from '../config/load';
import { DEFAULT_ISOLATION, isolationFor, type IsolationSettings } from '../isolation/settings';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { readCycle } from '../store/cycleState';
import { measuredInFull, type EvalDoc } from '../eval/evalDoc';
import { EvalStore } from '../eval/evalStore';
import { writeFileAtomic, writeJsonAtomic } from '../store/atomic';
import { CandidateStore } from '../store/candidates';
import { candidateDirName, STATE_DIR } from '../layout';
import { consensus } from './consensus';
import { type ObjectiveInput, runObjectives, type SandboxLimits } from './objectiveRunner';

export const ObjectiveName = z.string().regex(/^[a-z][a-z0-9_-]{0,47}$/, 'an objective name is lowercase letters, digits, "_" and "-", starting with a letter');

export const ObjectiveEntry = z.object({
  name: ObjectiveName,
  author: z.enum(['person', 'model']),
  rationale: z.string().max(2000),
  created_round: z.number().int().nonnegative(),
  multiplier: z.number().nonnegative().default(1),
});
export type ObjectiveEntry = z.infer<typeof ObjectiveEntry>;
const Index = z.object({ objectives: z.array(ObjectiveEntry) });

export const objectivesDir = (ws: string) => path.join(ws, STATE_DIR, 'objectives');

export async function readPortfolio(ws: string): Promise<{ entry: ObjectiveEntry; code: string }[]> {
  let idx: z.infer<typeof Index>;
  try {
    idx = Index.parse(JSON.parse(await fs.readFile(path.join(objectivesDir(ws), 'index.json'), 'utf8')));
  } catch {
    return [];
  }
  const out: { entry: ObjectiveEntry; code: string }[] = [];
  for (const entry of idx.objectives) {
    const code = await fs.readFile(path.join(objectivesDir(ws), `${entry.name}.js`), 'utf8').catch(() => undefined);
    if (code !== undefined) out.push({ entry, code });
  }
  return out;
}

export async function addObjective(
  ws: string,
  o: { name: string; code: string; rationale: string; author: ObjectiveEntry['author']; multiplier?: number },
): Promise<ObjectiveEntry> {
  const name = ObjectiveName.parse(o.name);
  const current = (await readPortfolio(ws)).map((x) => x.entry).filter((e) => e.name !== name);
  const entry: ObjectiveEntry = {
    name,
    author: o.author,
    rationale: o.rationale,
    created_round: (await readCycle(ws))?.cycle ?? 0,
    multiplier: o.multiplier ?? 1,
  };
  await fs.mkdir(objectivesDir(ws), { recursive: true });
  await writeFileAtomic(path.join(objectivesDir(ws), `${name}.js`), o.code.trim() + '\n');
  await writeJsonAtomic(path.join(objectivesDir(ws), 'index.json'), { objectives: [...current, entry] });
  return entry;
}

/** A starting portfolio written by a person: facets that do not all say the same thing. */
export const DEFAULT_OBJECTIVES: { name: string; rationale: string; code: string }[] = [
  {
    name: 'par2',
    rationale: "PAR-2 over the whole set (the paper's measure).",
    code: `(d) => d.instances.reduce((s, r) => s + (r.status === 'solved' ? r.time_s : 2 * d.timeout_s), 0) / Math.max(1, d.instances.length)`,
  },
  {
    name: 'unsolved',
    rationale: 'Instances not solved: reach matters more than speed on the easy ones.',
    code: `(d) => d.instances.filter((r) => r.status !== 'solved').length`,
  },
  {
    name: 'par2_unsat',
    rationale: 'PAR-2 on UNSAT answers only (proof-heavy, where CDCL changes show first).',
    code: `(d) => { const u = d.instances.filter((r) => r.expected === 'UNSAT' || r.answer === 'UNSAT'); return u.length ? u.reduce((s, r) => s + (r.status === 'solved' ? r.time_s : 2 * d.timeout_s), 0) / u.length : 0; }`,
  },
  {
    name: 'geomean_speedup',
    rationale: 'Geometric-mean slowdown against the seed on instances both solve (lower is better).',
    code: `(d) => { const base = new Map(d.baseline.filter((r) => r.status === 'solved').map((r) => [r.instance, r.time_s])); const xs = d.instances.filter((r) => r.status === 'solved' && base.has(r.instance)).map((r) => Math.log(Math.max(r.time_s, 0.01) / Math.max(base.get(r.instance), 0.01))); return xs.length ? Math.exp(xs.reduce((a, b) => a + b, 0) / xs.length) : 1; }`,
  },
];

export interface PortfolioView {
  round: number;
  objectives: (ObjectiveEntry & { weight: number; agreement: number; tau: number | null; error: string | null; failed: number })[];
  candidates: { candidate: number; score: number; ranks: number[] }[];
}

/** A candidate's evaluation; none when it has none or the file cannot be used. */
const readEval = (ws: string, dir: string): Promise<EvalDoc | undefined> => new EvalStore(ws).get(dir);

/** The inputs objectives see: every candidate that passed its gates on the full perf set (the champion's timeout). */
export async function objectiveInputs(ws: string): Promise<{ ids: number[]; inputs: ObjectiveInput[] }> {
  const { index } = await new CandidateStore(ws).load();
  const champ = index.champion === null ? undefined : await readEval(ws, candidateDirName(index.champion));
  const seed = (await readEval(ws, candidateDirName(0))) ?? champ;
  const ids: number[] = [];
  const inputs: ObjectiveInput[] = [];
  const rows = (j: EvalDoc) =>
    j.instances.map((r) => ({
      instance: r.instance,
      family: r.family,
      expected: r.expected,
      answer: r.answer,
      status: r.status,
      time_s: r.time_s,
      mem_mb: r.mem_mb,
    }));
  for (const c of index.candidates) {
    const j = await readEval(ws, c.dir);
    // Within one fidelity: the full perf set at the champion's limits, and correct (a gate, not an objective).
    if (!j || j.verdict !== 'pass' || !j.metrics || (champ && j.timeout_s !== champ.timeout_s) || !measuredInFull(j)) continue;
    ids.push(c.id);
    inputs.push({ candidate: c.dir, timeout_s: j.timeout_s ?? 1, instances: rows(j), baseline: seed ? rows(seed) : [] });
  }
  return { ids, inputs };
}

/** The workspace's `sandbox` for the objective functions (the default when satlution.yaml cannot be read). */
export async function workspaceIsolation(ws: string): Promise<IsolationSettings> {
  return loadConfig(ws).then(
    (c) => isolationFor(c),
    () => DEFAULT_ISOLATION,
  );
}

export async function scorePortfolio(ws: string, limits: SandboxLimits = {}): Promise<PortfolioView> {
  const portfolio = await readPortfolio(ws);
  const round = (await readCycle(ws))?.cycle ?? 0;
  const { ids, inputs } = await objectiveInputs(ws);
  const runs =
    portfolio.length && inputs.length
      ? await runObjectives(
          portfolio.map((p) => p.code),
          inputs,
          { isolation: await workspaceIsolation(ws), ...limits },
        )
      : portfolio.map(() => ({ scores: [] as (number | null)[], error: null }));
  const scores = runs.map((r) => r.scores.map((x) => (x === null ? Infinity : x)));
  const c = consensus(
    scores,
    portfolio.map((p) => ({ createdRound: p.entry.created_round, multiplier: p.entry.multiplier })),
    round,
  );
  return {
    round,
    objectives: portfolio.map((p, i) => {
      const others = c.tau[i]?.filter((_x, k) => k !== i) ?? [];
      return {
        ...p.entry,
        weight: c.weights[i] ?? 0,
        agreement: c.agreement[i] ?? 0,
        tau: others.length ? others.reduce((a, b) => a + b, 0) / others.length : null,
        error: runs[i]?.error ?? null,
        failed: runs[i]?.scores.filter((x) => x === null).length ?? 0,
      };
    }),
    candidates: ids.map((id, j) => ({ candidate: id, score: c.scores[j] ?? 0, ranks: c.ranks.map((r) => r[j] ?? 0) })).sort((a, b) => a.score - b.score),
  };
}
