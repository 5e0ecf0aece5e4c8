// `satlution benchmarks curate --from SET`: the champion runs the set once (sandboxed, through the
// evaluation service, its results stored so a rerun resumes), then selection.ts picks a training set
// that fits the budget (CPU time, or wall time where runs have none) and a disjoint held-out set. Both are written as sets of their own (links to
// the source's files, their meta.csv rows), the reasons for every instance go into the source set
// (CURATION.md, curation.json), and satlution.yaml names them as the perf set and its held-out set.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { writeValues } from '../config/edit';
import { setDir, type Config } from '../config/schema';
import { EvalStore } from '../eval/evalStore';
import { evaluateSolver } from '../eval/service';
import { listSet, type InstanceSpec } from '../instances/instances';
import type { InstanceResult } from '../run/result';
import type { RunnerEnv } from '../runners/select';
import { writeFileAtomic, writeJsonAtomic } from '../store/atomic';
import { BENCH_DIR } from '../layout';
import { exists, linkOrCopy } from './fetchSet';
import { selectInstances, type CurateDecision, type CurateInstance, type Selection } from './selection';
import { formatMeta } from '../instances/metaCsv';

/** What to curate, and within which limits. */
export interface CurateRequest {
  ws: string;
  config: Config;
  /** The champion's directory: the solver whose times the selection is made by. */
  championDir: string;
  /** The set to curate (a name of satlution.yaml's benchmarks). */
  from: string;
  /** The new sets are `<name>-train` and `<name>-heldout`. */
  name: string;
  budgetS: number;
  timeoutS: number;
  heldoutShare: number;
  /** Families to hold out whole (selection.ts): names, or a count. */
  heldoutFamilies?: { names: readonly string[] } | { count: number };
  minS: number;
  /** Replace sets of those names that are already there. */
  replace?: boolean;
  runnerEnv: RunnerEnv;
  signal?: AbortSignal;
  onResult?: (done: number, total: number, r: InstanceResult) => void;
  log?: (line: string) => void;
}

/** The written record of a curation (`curation.json` in the source set). */
export const CurationDoc = z.object({
  from: z.string(),
  champion: z.string(),
  at: z.string(),
  budget_s: z.number(),
  timeout_s: z.number(),
  heldout_share: z.number(),
  /** The families held out whole (absent: the held-out set is a share of every family). */
  heldout_families: z.array(z.string()).optional(),
  min_s: z.number(),
  /** The clock every time here is on: CPU when every run of the champion had CPU time, else wall (never the two mixed). */
  on: z.enum(['cpu', 'wall']),
  /** Seconds the champion's run over the whole set took (timeouts at the timeout). */
  spent_s: z.number(),
  train: z.object({ set: z.string(), instances: z.number().int(), time_s: z.number() }),
  heldout: z.object({ set: z.string(), instances: z.number().int(), time_s: z.number(), budget_s: z.number() }),
  decisions: z.array(z.object({ name: z.string(), stratum: z.string(), time_s: z.number(), set: z.enum(['train', 'heldout', 'out']), reason: z.string() })),
});
export type CurationDoc = z.infer<typeof CurationDoc>;

/** How a curation ended. */
export interface CurateOutcome {
  selection: Selection;
  doc: CurationDoc;
  trainDir: string;
  heldoutDir: string;
  /** CURATION.md in the source set: why each instance is in or out. */
  curationFile: string;
}

/** Curates the set (see the file's comment). */
export async function curateSet(req: CurateRequest): Promise<CurateOutcome> {
  const fromDir = setDir(req.config, req.ws, req.from);
  const trainName = `${req.name}-train`;
  const heldoutName = `${req.name}-heldout`;
  const dirs = { train: path.join(req.ws, BENCH_DIR, trainName), heldout: path.join(req.ws, BENCH_DIR, heldoutName) };
  for (const d of Object.values(dirs))
    if (!req.replace && (await exists(d))) throw new Error(`the set ${path.basename(d)} is already there (${d}): choose another --name, or --replace`);
  const specs = await listSet(fromDir);
  if (!specs.length) throw new Error(`the set ${req.from} (${fromDir}) has no instances`);
  req.log?.(
    `the champion ${path.basename(req.championDir)} runs ${specs.length} instances of ${req.from} once, timeout ${req.timeoutS} s (results are kept: a rerun resumes)`,
  );
  let done = 0;
  // A champion its evaluation built is run as it is: a rebuild of a solver that stamps its build time
  // into the binary is another binary, and the runs kept from an earlier curate would not be found again.
  const built = (await new EvalStore(req.ws).get(path.basename(req.championDir)))?.verdict === 'pass';
  const ev = await evaluateSolver({
    ws: req.ws,
    config: req.config,
    solverDir: req.championDir,
    overrides: { stage: 'perf', bench: fromDir, timeoutS: req.timeoutS, noProofs: true },
    record: false,
    rules: false,
    build: !built,
    runnerEnv: req.runnerEnv,
    ...(req.signal ? { signal: req.signal } : {}),
    onResult: (_gate, r, _d, total) => req.onResult?.(++done, total, r),
  });
  const results = new Map(ev.doc.instances.map((r) => [r.instance, r]));
  const missing = specs.filter((s) => !results.has(s.name));
  if (missing.length)
    throw new Error(
      `the champion's run over ${req.from} stopped before ${missing.length} instances (${ev.gates.map((g) => `${g.gate}: ${g.ok ? 'ok' : g.detail}`).join('; ')}): nothing was selected`,
    );
  const { on, time } = curationClock(ev.doc.instances);
  if (on === 'wall') req.log?.("the champion's runs have no CPU time here (no cgroup to count it in): the budget and every figure are wall time");
  const instances: CurateInstance[] = specs.map((s) => {
    const r = results.get(s.name)!;
    const answer = s.expected ?? (r.answer === 'SAT' || r.answer === 'UNSAT' ? r.answer : null);
    return { name: s.name, family: s.family, answer, solved: r.status === 'solved', timeS: time(r), status: r.status };
  });
  const selection = selectInstances(instances, {
    budgetS: req.budgetS,
    heldoutShare: req.heldoutShare,
    minS: req.minS,
    timeoutS: req.timeoutS,
    ...(req.heldoutFamilies ? { heldoutFamilies: req.heldoutFamilies } : {}),
  });
  const whole = req.heldoutFamilies
    ? [...new Set(selection.decisions.filter((d) => d.set === 'heldout').map((d) => instances.find((i) => i.name === d.name)!.family!))].sort()
    : undefined;
  const spentS = ev.doc.instances.reduce((t, r) => t + time(r), 0);
  const bySet = (set: CurateDecision['set']) => new Set(selection.decisions.filter((d) => d.set === set).map((d) => d.name));
  await writeSubset(dirs.train, specs, bySet('train'));
  await writeSubset(dirs.heldout, specs, bySet('heldout'));
  const doc: CurationDoc = {
    from: req.from,
    champion: path.basename(req.championDir),
    at: new Date().toISOString(),
    budget_s: req.budgetS,
    timeout_s: req.timeoutS,
    heldout_share: req.heldoutShare,
    ...(whole ? { heldout_families: whole } : {}),
    min_s: req.minS,
    on,
    spent_s: round(spentS),
    train: { set: trainName, instances: selection.train.instances, time_s: round(selection.train.timeS) },
    heldout: { set: heldoutName, instances: selection.heldout.instances, time_s: round(selection.heldout.timeS), budget_s: round(selection.heldout.budgetS) },
    decisions: selection.decisions.map((d) => ({ name: d.name, stratum: d.stratum, time_s: round(d.timeS), set: d.set, reason: d.reason })),
  };
  await writeJsonAtomic(path.join(fromDir, 'curation.json'), doc);
  const curationFile = path.join(fromDir, 'CURATION.md');
  await writeFileAtomic(curationFile, curationMarkdown(doc));
  const rel = (d: string) => path.relative(req.ws, d).split(path.sep).join('/');
  await writeValues(req.ws, [
    { path: ['benchmarks', trainName], value: rel(dirs.train) },
    { path: ['benchmarks', heldoutName], value: rel(dirs.heldout) },
    { path: ['stages', 'perf', 'set'], value: trainName },
    { path: ['stages', 'perf', 'holdout'], value: heldoutName },
    { path: ['stages', 'perf', 'timeout_s'], value: req.timeoutS },
  ]);
  return { selection, doc, trainDir: dirs.train, heldoutDir: dirs.heldout, curationFile };
}

/** A set of the chosen instances: links to the source's files (copies across file systems) and their meta.csv rows; written aside, then renamed into place. */
async function writeSubset(dir: string, specs: readonly InstanceSpec[], names: ReadonlySet<string>): Promise<void> {
  const tmp = `${dir}.writing`;
  await fs.rm(tmp, { recursive: true, force: true });
  await fs.mkdir(tmp, { recursive: true });
  const chosen = specs.filter((s) => names.has(s.name));
  for (const s of chosen) {
    const to = path.join(tmp, ...s.name.split('/'));
    await fs.mkdir(path.dirname(to), { recursive: true });
    await linkOrCopy(s.file, to);
  }
  await fs.writeFile(
    path.join(tmp, 'meta.csv'),
    formatMeta(chosen.map((s) => ({ instance: s.name, family: s.family, expected: s.expected, proved: s.proved ?? null, disputed: s.disputed ?? null }))),
  );
  await fs.rm(dir, { recursive: true, force: true });
  await fs.rename(tmp, dir);
}

/** CURATION.md: the limits, the two sets, and a line per instance with where it went and why. */
export function curationMarkdown(d: CurationDoc): string {
  const rows = (set: CurateDecision['set']) => d.decisions.filter((x) => x.set === set);
  const clock = clockName(d.on);
  const table = (xs: CurationDoc['decisions']) =>
    [
      `| instance | stratum | champion ${clock} s | why |`,
      '|---|---|---|---|',
      ...xs.map((x) => `| ${x.name} | ${x.stratum} | ${x.time_s} | ${x.reason.replace(/\|/g, '\\|')} |`),
    ].join('\n');
  return [
    `# Curation of ${d.from} (${d.at.slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `The champion ${d.champion} ran all ${d.decisions.length} instances once with a ${d.timeout_s} s timeout (${d.spent_s} ${clock} s). Kept: instances it solved in at least ${d.min_s} s, ${d.heldout_families ? `the families ${d.heldout_families.join(', ')} held out whole (never trained on) and every other family for training` : `split per stratum (family / answer) into ${Math.round(d.heldout_share * 100)}% held-out and the rest`}, each taken in a cross-section of difficulty while the champion's ${clock} time fits the budget.`,
    '',
    `- training set **${d.train.set}**: ${d.train.instances} instances, ${d.train.time_s} of ${d.budget_s} ${clock} s per evaluation of the champion`,
    `- held-out set **${d.heldout.set}**: ${d.heldout.instances} instances, ${d.heldout.time_s} of ${d.heldout.budget_s} ${clock} s`,
    '',
    '## Training',
    '',
    table(rows('train')),
    '',
    '## Held-out',
    '',
    table(rows('heldout')),
    '',
    '## Left out',
    '',
    table(rows('out')),
    '',
  ].join('\n');
}

/**
 * The clock a curation is on: CPU time when every run has it, else wall time for all of them, so that no
 * budget or figure adds the one to the other.
 */
export function curationClock(runs: readonly InstanceResult[]): { on: CurationDoc['on']; time: (r: InstanceResult) => number } {
  return runs.every((r) => typeof r.cpu_s === 'number') ? { on: 'cpu', time: (r) => r.cpu_s! } : { on: 'wall', time: (r) => r.time_s };
}

/** How a figure on `on` is labelled: "CPU" or "wall". */
export const clockName = (on: CurationDoc['on']): string => (on === 'cpu' ? 'CPU' : 'wall');

const round = (x: number) => Math.round(x * 1000) / 1000;
