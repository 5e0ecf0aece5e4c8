import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { writeValues } from '../../core/config/edit';
import { loadConfig } from '../../core/config/load';
import { pigeonhole, planted3Sat, shuffleCnf } from '../../core/instances/generators';
import { findDratTrim, findOnPath } from '../../core/run/checkers';
import { FAMILIES, FAMILY_HELP, type Family } from '../../core/suite/families';
import { generateSuite, splitPerFamily, writeSuiteSet, type ProvedInstance } from '../../core/suite/suite';
import { findWorkspace } from '../../core/workspace/snapshot';
import { addSampleBenchmarks } from '../../core/workspace/samples';
import { UsageError } from '../exit';

/** The default mix: planted SAT dominates, as in the measured tuning notes; the UNSAT families catch traps. */
const DEFAULT_COUNTS: Record<Family, number> = { planted: 20, 'uniform-unsat': 10, pigeonhole: 6, miter: 8, tseitin: 8, coloring: 6 };

export const GENERATE_HELP = `satlution generate pigeonhole PIGEONS HOLES [--out FILE]
satlution generate planted VARS RATIO SEED [--out FILE]
satlution generate shuffle SEED --in FILE [--out FILE]
satlution generate samples [--dir D]
satlution generate suite [--dir D] [--seed N] [--count FAMILY=N,...] [--heldout-share 0.5]
                         [--heldout-families F1,F2] [--train-set perf] [--heldout-set heldout]
                         [--out DIR] [--jobs N]
                         [--prover SOLVER] [--timeout S]

pigeonhole is UNSAT when PIGEONS > HOLES (hard for resolution: PHP(10,9) takes seconds); planted is
"2-hidden" random 3-SAT, satisfiable by construction (ratio about 4.2 is hardest); shuffle renames
variables, flips polarities and reorders clauses of any CNF (the same formula up to isomorphism).
samples fills the workspace's smoke, verify and perf sets that hold no instance yet with small planted
SAT and pigeonhole UNSAT formulas, answers known by construction: enough for a first evaluation.

suite generates benchmark families with real signal for tuning, deterministic in --seed:
${FAMILIES.map((f) => `  ${f.padEnd(14)} ${FAMILY_HELP[f]}`).join('\n')}
Every answer in meta.csv is proved while generating (SAT: the reference solver's model checked; UNSAT:
its DRAT proof verified by drat-trim), never assumed; PROVENANCE.json beside it says how. The reference
solver (--prover; default kissat, else cadical on PATH) takes kissat's and CaDiCaL's command line; its
answers count only through the evidence checked here. drat-trim and berkeley-abc (for miters):
scripts/setup-sat-tools.sh installs them. --timeout: per instance, for solving and for checking.
In a workspace, each family is split at random into the training set (--train-set, default perf: the
set selection sees) and the held-out set (--heldout-set, default heldout), which is added to
satlution.yaml and named as stages.perf.holdout. --heldout-families holds out the families named whole:
the held-out check then also measures families the evolution never saw (one family at least must be
left to train on). With --out DIR one set is written, not split (fresh instances of the same
families: use another --seed).
--count defaults to ${Object.entries(DEFAULT_COUNTS)
  .map(([f, n]) => `${f}=${n}`)
  .join(',')}.`;

export async function generateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      in: { type: 'string' },
      dir: { type: 'string' },
      seed: { type: 'string', default: '1' },
      count: { type: 'string' },
      'heldout-share': { type: 'string', default: '0.5' },
      'heldout-families': { type: 'string' },
      'train-set': { type: 'string', default: 'perf' },
      'heldout-set': { type: 'string', default: 'heldout' },
      jobs: { type: 'string', default: '2' },
      timeout: { type: 'string', default: '300' },
      prover: { type: 'string' },
    },
    strict: true,
  });
  const [kind, ...rest] = positionals;
  if (kind === 'suite') return suiteCommand(values);
  if (kind === 'samples' && !rest.length) return samplesCommand(values.dir);
  const nums = rest.map(Number);
  const ints = (n: number) => nums.slice(0, n).every((x) => Number.isInteger(x) && x > 0);
  let text: string;
  if (kind === 'pigeonhole' && rest.length === 2 && ints(2)) text = pigeonhole(nums[0]!, nums[1]!);
  else if (kind === 'planted' && rest.length === 3 && Number.isInteger(nums[0]) && nums[0]! >= 3 && nums[1]! > 0 && Number.isInteger(nums[2]))
    text = planted3Sat(nums[0]!, nums[1]!, nums[2]!);
  else if (kind === 'shuffle' && rest.length === 1 && Number.isInteger(nums[0]) && values.in) {
    const input = await fs.readFile(values.in, 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${values.in}: ${e.code ?? e.message}`);
    });
    try {
      text = shuffleCnf(input, nums[0]!);
    } catch (e) {
      throw new UsageError(`${values.in}: ${(e as Error).message}`);
    }
  } else throw new UsageError(`cannot generate "${positionals.join(' ')}"\n\n${GENERATE_HELP}`);
  if (values.out) await fs.writeFile(values.out, text);
  else process.stdout.write(text);
  return 0;
}

/** `generate samples`: the first-run sets of core/workspace/samples.ts, into the workspace at or above `dir`. */
async function samplesCommand(dir: string | undefined): Promise<number> {
  const ws = await findWorkspace(dir ?? '.');
  if (!ws) throw new UsageError(`no satlution.yaml in ${dir ?? '.'} or above: pass --dir WORKSPACE`);
  for (const r of await addSampleBenchmarks(ws, await loadConfig(ws)))
    process.stdout.write(r.written ? `${r.set}: ${r.written} sample instances written to ${r.dir}\n` : `${r.set}: kept (${r.kept} instances already there)\n`);
  return 0;
}

/** `generate suite`: parse, generate and prove, then split into the workspace or write one set. */
async function suiteCommand(v: {
  out?: string | undefined;
  dir?: string | undefined;
  seed: string;
  count?: string | undefined;
  'heldout-share': string;
  'heldout-families'?: string | undefined;
  'train-set': string;
  'heldout-set': string;
  jobs: string;
  timeout: string;
  prover?: string | undefined;
}): Promise<number> {
  const seed = Number(v.seed);
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed must be a whole number >= 0, got "${v.seed}"`);
  const share = Number(v['heldout-share']);
  if (!(share > 0 && share < 1)) throw new UsageError(`--heldout-share must be between 0 and 1, got "${v['heldout-share']}"`);
  const jobs = Number(v.jobs);
  if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError(`--jobs must be a positive whole number, got "${v.jobs}"`);
  const timeoutS = Number(v.timeout);
  if (!(timeoutS > 0)) throw new UsageError(`--timeout must be a positive number of seconds, got "${v.timeout}"`);
  const counts = v.count === undefined ? DEFAULT_COUNTS : parseCounts(v.count);
  const whole = v['heldout-families'] === undefined ? [] : parseWholeFamilies(v['heldout-families'], counts);
  if (whole.length && v.out) throw new UsageError("--heldout-families splits a workspace's sets; --out writes one set, unsplit");
  const ws = v.out ? undefined : await findWorkspace(v.dir ?? '.');
  if (!v.out && !ws) throw new UsageError(`no satlution.yaml in ${v.dir ?? '.'} or above: pass --dir WORKSPACE, or --out DIR for a set outside a workspace`);
  const config = ws ? await loadConfig(ws) : undefined;
  const prover = v.prover ?? findOnPath('kissat') ?? findOnPath('cadical');
  const dratTrim = findDratTrim(undefined, config?.evaluation.drat_trim);
  const abc = findOnPath('berkeley-abc');
  const missing = [
    !prover && 'a solver that writes DRAT proofs (kissat or cadical; or --prover PATH)',
    !dratTrim && 'drat-trim',
    (counts.miter ?? 0) > 0 && !abc && 'berkeley-abc',
  ].filter(Boolean);
  if (missing.length)
    throw new UsageError(
      `generate suite needs ${missing.join(', ')} to make and prove its instances: run scripts/setup-sat-tools.sh (or install them and put them on PATH)`,
    );
  const provers = { solver: prover!, dratTrim: dratTrim!, timeoutS };
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  process.stderr.write(
    `generating and proving ${total} instances (seed ${seed}): ${Object.entries(counts)
      .map(([f, n]) => `${f} ${n}`)
      .join(', ')}\n`,
  );
  let all: ProvedInstance[];
  try {
    all = await generateSuite({ seed, counts, provers, tools: { ...(abc ? { abc } : {}) }, jobs, onProgress: (l) => process.stderr.write(`  ${l}\n`) });
  } catch (e) {
    throw new UsageError(`generate suite: ${(e as Error).message}`);
  }
  if (v.out) {
    await writeSuiteSet(path.resolve(v.out), all, { seed, provers });
    process.stdout.write(`${all.length} instances with proved answers in ${v.out}\n`);
    return 0;
  }
  const { train, heldout } = splitPerFamily(all, share, seed, whole);
  const trainName = v['train-set'];
  const heldName = v['heldout-set'];
  if (trainName === heldName) throw new UsageError('--train-set and --heldout-set must differ');
  const trainDir = config!.benchmarks[trainName] ?? `benchmarks/${trainName}`;
  const heldDir = config!.benchmarks[heldName] ?? `benchmarks/${heldName}`;
  try {
    await writeSuiteSet(path.resolve(ws!, trainDir), train, { seed, provers });
    await writeSuiteSet(path.resolve(ws!, heldDir), heldout, { seed, provers });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  await writeValues(ws!, [
    ...(config!.benchmarks[trainName] ? [] : [{ path: ['benchmarks', trainName], value: trainDir }]),
    ...(config!.benchmarks[heldName] ? [] : [{ path: ['benchmarks', heldName], value: heldDir }]),
    { path: ['stages', 'perf', 'holdout'], value: heldName },
  ]);
  const by = (xs: ProvedInstance[]) =>
    FAMILIES.filter((f) => xs.some((x) => x.family === f))
      .map((f) => `${f} ${xs.filter((x) => x.family === f).length}`)
      .join(', ');
  process.stdout.write(
    `${trainName} (${trainDir}): ${train.length} instances (${by(train)})\n${heldName} (${heldDir}): ${heldout.length} instances (${by(heldout)}${whole.length ? `; ${whole.join(', ')} held out whole` : ''}), kept out of selection: stages.perf.holdout = ${heldName}\n`,
  );
  return 0;
}

/** "coloring,tseitin" as families to hold out whole: each one asked for, and one asked for left to train on. */
function parseWholeFamilies(text: string, counts: Partial<Record<Family, number>>): Family[] {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  for (const n of names) {
    if (!(FAMILIES as readonly string[]).includes(n)) throw new UsageError(`--heldout-families: unknown family "${n}"; families: ${FAMILIES.join(', ')}`);
    if (!counts[n as Family]) throw new UsageError(`--heldout-families: ${n} has no instances in --count`);
  }
  if (!FAMILIES.some((f) => (counts[f] ?? 0) > 0 && !names.includes(f)))
    throw new UsageError('--heldout-families holds out every family asked for: leave one at least to train on');
  return names as Family[];
}

/** "planted=14,miter=8" as counts per family. */
function parseCounts(text: string): Partial<Record<Family, number>> {
  const out: Partial<Record<Family, number>> = {};
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, n] = part.split('=');
    if (!(FAMILIES as readonly string[]).includes(name ?? '')) throw new UsageError(`--count: unknown family "${name}"; families: ${FAMILIES.join(', ')}`);
    const k = Number(n);
    if (!Number.isInteger(k) || k < 0) throw new UsageError(`--count: ${name} needs a whole number, got "${n}"`);
    out[name as Family] = k;
  }
  if (!Object.values(out).some((k) => k > 0)) throw new UsageError('--count asks for no instances');
  return out;
}
