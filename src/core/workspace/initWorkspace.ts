// `satlution init` / "SATLUTION: Initialize Workspace": imports the seeds, lays out SATLUTION_0 in the
// paper's Listing-1 layout, copies the default rulebase, creates the benchmark layout and writes
// satlution.yaml last, so a workspace with a config is always a complete one.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { placeholderResults } from './resultsFile';
import { z } from 'zod';
import { renderConfig } from '../config/template';
import { parseConfig } from '../config/load';
import { hasLastGoodConfig, workspaceState } from '../config/lastGood';
import type { Approver, Logger } from '../ports';
import { CandidateStore } from '../store/candidates';
import { writeFileAtomic } from '../store/atomic';
import { checkpointCandidate, isGitWorkspace } from './checkpoint';
import { BENCH_DIR, CANDIDATE_DOCS, CONFIG_FILE, RULES_DIR, SEEDS_DIR, STATE_DIR, candidateDirName } from '../layout';
import { copySeedTo, importSeed, setWritable, type ImportedSeed, type SeedSpec } from './seeds';
import { planStarexec, writeMissingStarexec } from './starexec';
import { recordSeeds } from './seedRecords';

export interface InitOptions {
  dir: string;
  /** The first seed is the primary one unless another is named. */
  seeds: SeedSpec[];
  primary?: string;
  /** Benchmark sets given as existing directories (referenced in place, never copied). */
  benchmarks?: Record<string, string>;
  /** The default rulebase shipped with the extension / CLI (copied into .rules/). */
  defaultRulesDir: string;
  approver: Approver;
  log: Logger;
  signal?: AbortSignal;
  /** Progress messages for a host's progress UI. */
  onStep?: (message: string) => void;
}

export interface InitResult {
  configFile: string;
  seeds: ImportedSeed[];
  candidateDir: string;
  /** Scripts generated because the seeds lacked them, e.g. `seeds/kissat/starexec_build`. */
  generated: string[];
  checkpoint?: string;
}

const BENCH_README = `# Benchmark sets

Each set is a directory of \`.cnf\`, \`.cnf.gz\` or \`.cnf.xz\` files with an optional \`meta.csv\`:

    instance,family,expected
    uf50-01.cnf,random-3sat,SAT
    php-9-8.cnf,pigeonhole,UNSAT

- \`smoke/\`: a few seconds in all; run after every build to catch crashes and wrong answers.
- \`verify/\`: instances with known answers; every SAT model and UNSAT DRAT proof is checked.
- \`perf/\`: the set PAR-2 is measured on.

An expected answer is a claim unless a \`proved\` column says how it was proved (\`model\`, \`drat\`):
an answer that contradicts a claim is checked from its own model or proof, and a proof overrules the
claim (the row is rewritten, the claim kept in \`disputed\`).

Point a set at a directory elsewhere in \`satlution.yaml\` (\`benchmarks:\`) rather than copying GBs here.
`;

/** Written before init creates anything and removed when it ends: after a crash (kill -9, power
 * loss) the next init finds it and removes what the interrupted attempt had created. */
const INIT_MARKER = '.satlution-init.json';
const InitMarker = z.object({ pid: z.number(), created: z.array(z.string()) });

export async function initWorkspace(o: InitOptions): Promise<InitResult> {
  const dir = path.resolve(o.dir);
  const dirExisted = await exists(dir);
  await fs.mkdir(dir, { recursive: true });
  await recoverInterruptedInit(dir, o.log);
  // Everything init may create; what did not exist before is removed again if init fails, so a
  // failed attempt (a bad seed, a cancel, a crash) leaves the folder as it was and can be retried.
  const candidates = [SEEDS_DIR, ...o.seeds.map((s) => path.join(SEEDS_DIR, s.name)), candidateDirName(0), RULES_DIR, BENCH_DIR, STATE_DIR];
  const created: string[] = [];
  for (const rel of candidates) if (!(await exists(path.join(dir, rel)))) created.push(rel);
  const marker = path.join(dir, INIT_MARKER);
  await writeFileAtomic(marker, JSON.stringify({ pid: process.pid, created }));
  try {
    return await init(o, dir);
  } catch (e) {
    await removeCreated(dir, created);
    await fs.rm(marker, { force: true });
    if (!dirExisted) await fs.rmdir(dir).catch(() => undefined); // only if still empty
    throw e;
  } finally {
    await fs.rm(marker, { force: true });
  }
}

async function recoverInterruptedInit(dir: string, log: Logger): Promise<void> {
  const text = await fs.readFile(path.join(dir, INIT_MARKER), 'utf8').catch(() => undefined);
  if (text === undefined || (await exists(path.join(dir, CONFIG_FILE)))) return;
  let marker: z.infer<typeof InitMarker> | undefined;
  try {
    marker = InitMarker.parse(JSON.parse(text));
  } catch {
    marker = undefined; // unreadable: nothing is removed on its word
  }
  if (marker && marker.pid !== process.pid && isAlive(marker.pid))
    throw new Error(`another init (process ${marker.pid}) is creating a workspace in ${dir}; wait for it to finish`);
  if (marker) {
    log.warn(`Removing what an interrupted init left in ${dir}: ${marker.created.join(', ') || 'nothing'}`);
    await removeCreated(dir, marker.created);
  }
  await fs.rm(path.join(dir, INIT_MARKER), { force: true });
}

async function removeCreated(dir: string, created: string[]): Promise<void> {
  for (const rel of [...created].reverse()) {
    const p = path.resolve(dir, rel);
    if (path.dirname(p) !== dir && path.dirname(path.dirname(p)) !== dir) continue; // only what init makes
    await fs.rm(p, { recursive: true, force: true }).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function init(o: InitOptions, dir: string): Promise<InitResult> {
  const step = (m: string) => {
    o.onStep?.(m);
    o.log.info(m);
  };
  if (o.seeds.length === 0) throw new Error('init needs at least one seed (--seed NAME=PATH_OR_GIT_URL)');
  const names = new Set<string>();
  for (const s of o.seeds) {
    if (names.has(s.name)) throw new Error(`two seeds are named "${s.name}"; name one differently (NAME=PATH)`);
    names.add(s.name);
  }
  const primary = o.primary ?? o.seeds[0]!.name;
  if (!names.has(primary)) throw new Error(`primary seed "${primary}" is not among the seeds (${[...names].join(', ')})`);
  if (await exists(path.join(dir, CONFIG_FILE))) throw new Error(`${path.join(dir, CONFIG_FILE)} already exists: this workspace is initialized`);
  // Its store remains: a new init would start a second history and orphan the first.
  if ((await workspaceState(dir)) === 'configMissing')
    throw new Error(
      `${dir} is a SATLUTION workspace whose ${CONFIG_FILE} is missing (its candidates are in ${STATE_DIR}/); ${(await hasLastGoodConfig(dir)) ? 'put it back with `satlution restore-config`' : `write ${CONFIG_FILE} again (\`satlution schema\` describes it)`} instead of initializing`,
    );
  const candidateDir = path.join(dir, candidateDirName(0));
  if (await exists(candidateDir)) throw new Error(`${candidateDirName(0)} already exists (left by an interrupted init?); move it away and run init again`);
  for (const [name, benchDir] of Object.entries(o.benchmarks ?? {}))
    if (!(await isDir(path.resolve(dir, benchDir)))) throw new Error(`benchmark set ${name}: ${benchDir} is not a directory`);

  const imported: ImportedSeed[] = [];
  const generated: string[] = [];
  for (const spec of o.seeds) {
    o.signal?.throwIfAborted();
    step(`Importing seed ${spec.name} from ${spec.source}`);
    const seed = await importSeed(dir, spec, o.signal);
    imported.push(seed);
    const plan = await planStarexec(seed.dir);
    if (plan.missing.length) {
      const what = plan.missing.join(' and ');
      const ok = await o.approver.confirm(
        `Seed ${spec.name} has no ${what}. Generate ${plan.missing.length > 1 ? 'them' : 'it'}?`,
        `Detected build system: ${plan.buildSystem}. The scripts follow the StarExec convention (bin/starexec_run_default CNF PROOFDIR) and can be edited afterwards.`,
        plan.missing.length > 1 ? 'Generate Scripts' : 'Generate Script',
      );
      if (ok) {
        for (const rel of await writeMissingStarexec(seed.dir, plan, spec.name)) {
          const shown = `${SEEDS_DIR}/${spec.name}/${rel}`;
          generated.push(shown);
          step(`Wrote ${shown} (seed had none; build system: ${plan.buildSystem}) — review it`);
        }
      } else o.log.warn(`Seed ${spec.name} keeps no ${what}; it cannot be built or run until you add ${plan.missing.length > 1 ? 'them' : 'it'}.`);
    }
    await setWritable(seed.dir, false);
  }

  // The record comes first: a crash after it leaves a candidate marked missing, never an orphan dir.
  const store = new CandidateStore(dir);
  const primarySeed = imported.find((s) => s.name === primary)!;
  await store.create({ id: 0, parent: null, seed: primary, status: 'seed' });
  step(`Creating ${candidateDirName(0)} from seed ${primary}`);
  await copySeedTo(path.join(dir, SEEDS_DIR, primary), candidateDir);
  await writeBaselineDocs(candidateDir, primary, primarySeed);

  step('Copying the default rulebase into .rules/');
  await copyRules(o.defaultRulesDir, path.join(dir, RULES_DIR));

  step('Creating the benchmark layout');
  const benchmarks: Record<string, string> = {};
  for (const set of ['smoke', 'verify', 'perf']) {
    const given = o.benchmarks?.[set];
    benchmarks[set] = given ?? `${BENCH_DIR}/${set}`;
    if (!given) await fs.mkdir(path.join(dir, BENCH_DIR, set), { recursive: true });
  }
  for (const [k, v] of Object.entries(o.benchmarks ?? {})) benchmarks[k] = v;
  await writeIfMissing(path.join(dir, BENCH_DIR, 'README.md'), BENCH_README);

  await recordSeeds(dir, imported);
  await store.setChampion(0);

  let checkpoint: string | undefined;
  if (await isGitWorkspace(dir)) {
    step('Checkpointing SATLUTION_0 in git (refs/satlution/checkpoints)');
    const cp = await checkpointCandidate(dir, candidateDirName(0), `SATLUTION_0: seed ${primary}`).catch((e: Error) => {
      o.log.warn(`git checkpoint skipped: ${e.message}`);
      return undefined;
    });
    if (cp) {
      checkpoint = cp.commit;
      await store.setCheckpoint(0, cp.commit);
    }
  }

  const config = renderConfig({
    seeds: o.seeds.map((s) => ({ name: s.name, source: s.source, primary: s.name === primary && o.seeds.length > 1 })),
    benchmarks,
    jobs: Math.max(1, os.availableParallelism() - 1),
  });
  const check = parseConfig(config);
  if (!check.ok) throw new Error(`internal error: generated config is invalid: ${check.issues.map((i) => i.key + ' ' + i.message).join('; ')}`);
  const configFile = path.join(dir, CONFIG_FILE);
  await writeFileAtomic(configFile, config);
  step(`Workspace ready: ${configFile}`);
  return { configFile, seeds: imported, candidateDir, generated, ...(checkpoint ? { checkpoint } : {}) };
}

async function writeBaselineDocs(candidateDir: string, seed: string, imported: ImportedSeed): Promise<void> {
  const origin = imported.commit ? `${imported.source} at ${imported.commit}` : imported.source;
  const docs: Record<(typeof CANDIDATE_DOCS)[number], string> = {
    'HYPOTHESIS.md': `# SATLUTION_0 — baseline\n\n## Change\nNone: the unmodified seed solver **${seed}**.\n\n## Rationale\nThe first champion, which every later candidate is measured against.\n\n## Expected effect\nNone (reference point for SAT, UNSAT and PAR-2).\n`,
    'CHANGELOG.md': `# Changelog\n\n## SATLUTION_0\n- Imported seed ${seed} from ${origin} (${imported.files} files).\n`,
    'RESULTS.md': placeholderResults('SATLUTION_0'),
  };
  for (const [name, text] of Object.entries(docs)) await writeIfMissing(path.join(candidateDir, name), text);
}

async function copyRules(from: string, to: string): Promise<void> {
  if (!(await isDir(from))) throw new Error(`the default rulebase ${from} is missing (broken installation?)`);
  await fs.cp(from, to, { recursive: true, force: false, errorOnExist: false });
}

async function writeIfMissing(file: string, text: string): Promise<void> {
  await fs.writeFile(file, text, { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
}

const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );
const isDir = (p: string) =>
  fs.stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );
