import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { writeValues } from '../../core/config/edit';
import { loadConfig } from '../../core/config/load';
import { clockName, curateSet } from '../../core/benchmarks/curateSet';
import { SelectionError } from '../../core/benchmarks/selection';
import { FetchIncomplete, fetchLimits, fetchSet } from '../../core/benchmarks/fetchSet';
import { GbdCache, defaultGbdCacheDir } from '../../core/benchmarks/gbdCache';
import { GbdServerError } from '../../core/benchmarks/gbdRoutes';
import { BENCH_DIR, candidateDirName } from '../../core/layout';
import { CandidateStore } from '../../core/store/candidates';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../exit';
import { cancelOnSignals, EXIT_INTERRUPTED } from '../interrupt';
import { runnerEnv } from '../runnerEnv';

export const BENCHMARKS_HELP = `satlution benchmarks fetch QUERY --set NAME [--server URL] [--limit N] [--family F] [--jobs N]
                     [--families-db FILE] [--replace] [--dir D]
satlution benchmarks curate --from SET --budget-cpu-minutes M --timeout S [--heldout SHARE]
                     [--heldout-families N|F1,F2] [--min-s S] [--name NAME] [--replace] [--dir D]

fetch asks a GBD server (the Global Benchmark Database; gbd.server in satlution.yaml, default
https://benchmark-database.de) for the instances QUERY selects, in GBD's attribute language
("track=main_2024", "track=main_2024 and result=unsat", "family=cryptography"), and makes them the
benchmark set NAME (benchmarks/NAME, added to satlution.yaml). It uses only the routes /getinstances,
/file/<hash> and /getdatabase/NAME. Every file is checked by its GBD hash after decompression, never trusted by its name:
a file whose hash differs is refused. Files are kept compressed in a cache shared by all your
workspaces (gbd.cache, else $SATLUTION_GBD_CACHE, else ~/.cache/satlution/gbd), downloaded a few at a
time (--jobs, default gbd.jobs), resumed after a dropped connection or a kill: run the same command
again. A server that stalls or fails gbd.max_stalls download attempts in a row ends the fetch; a
fetch waiting on another one's lock of an instance says so, and gives up after gbd.lock_wait_s.
The set appears only when every instance is there. meta.csv's answers come from the server's
result attribute (the query asked again with "and result=sat" / "and result=unsat"); instances of
unknown result get none. Each instance's family is --family (one for all), else its family in a GBD
database: the file --families-db names, else the server's gbd.families_database (default meta; SQLite,
at most gbd.max_db_mb, read as untrusted input: a family that is no plain name, or two for one
instance, is refused), else the query's family=X, else none; a database that cannot be had or read
costs the families, not the set, and says why. gbd-source.json in the set says where each instance
and the families came from; edit meta.csv's family column to regroup them.

curate runs the champion once over SET (sandboxed, as every run; results are kept, so a rerun resumes)
with timeout S, then picks a training set whose champion CPU time fits M minutes per evaluation and a
disjoint held-out set (--heldout share of the informative instances, default 0.3, with the same share
of budget): instances the champion solved in at least --min-s seconds (default max(0.5, S/1000)),
stratified by family and answer, each in a cross-section of difficulty. --heldout-families holds out
whole families instead (these names, or N of those with 4 or more informative instances, chosen by
their names' hashes): their instances are the held-out set and every other family trains, so the
held-out check before a promotion measures families evolution never saw (--heldout then sets only the
held-out set's share of the budget). It writes the sets NAME-train
and NAME-heldout (NAME defaults to SET), CURATION.md and curation.json in SET (why each instance is in
or out), and sets stages.perf.set, stages.perf.holdout and stages.perf.timeout_s in satlution.yaml.
Exit: 0 done, 1 some instances refused or failed (nothing made), 2 bad usage or input, 130 interrupted.`;

export async function benchmarksCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'fetch') return fetchCommand(rest);
  if (sub === 'curate') return curateCommand(rest);
  throw new UsageError(`benchmarks needs fetch or curate\n\n${BENCHMARKS_HELP}`);
}

async function fetchCommand(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      set: { type: 'string' },
      server: { type: 'string' },
      limit: { type: 'string' },
      family: { type: 'string' },
      'families-db': { type: 'string' },
      jobs: { type: 'string' },
      replace: { type: 'boolean', default: false },
      dir: { type: 'string' },
    },
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(`benchmarks fetch needs one QUERY (quote it)\n\n${BENCHMARKS_HELP}`);
  if (!v.set || !/^[A-Za-z0-9_-]+$/.test(v.set)) throw new UsageError(`--set NAME is needed: letters, digits, _ and - (got ${v.set ?? 'none'})`);
  const ws = await workspace(v.dir);
  const config = await loadConfig(ws);
  const limit = v.limit === undefined ? undefined : whole(v.limit, '--limit');
  const jobs = v.jobs === undefined ? config.gbd.jobs : whole(v.jobs, '--jobs');
  const server = v.server ?? config.gbd.server;
  if (!/^https?:\/\//.test(server)) throw new UsageError(`--server must be an http(s) URL, got "${server}"`);
  const cache = new GbdCache(config.gbd.cache ? path.resolve(ws, config.gbd.cache) : defaultGbdCacheDir());
  const dir = path.join(ws, BENCH_DIR, v.set);
  const abort = new AbortController();
  const stop = cancelOnSignals(abort, { command: 'benchmarks fetch' });
  const t0 = Date.now();
  let lastLine = 0;
  try {
    console.log(`${server}: ${positionals[0]} -> ${path.relative(ws, dir)} (cache ${cache.dir})`);
    const out = await fetchSet({
      server,
      query: positionals[0]!,
      dir,
      cache,
      jobs,
      ...fetchLimits(config.gbd),
      replace: v.replace,
      ...(limit !== undefined ? { limit } : {}),
      ...(v.family ? { family: v.family } : {}),
      ...(v['families-db'] ? { familiesFile: path.resolve(v['families-db']) } : {}),
      signal: abort.signal,
      log: (line) => console.error(line),
      onProgress: (p) => {
        if (Date.now() - lastLine < 1000 && p.done < p.of) return;
        lastLine = Date.now();
        const s = (Date.now() - t0) / 1000;
        console.log(
          `${p.done}/${p.of} instances (${p.downloaded} downloaded, ${p.fromCache} from the cache), ${(p.bytes / 1e6).toFixed(1)} MB, ${(p.bytes / 1e6 / Math.max(s, 1e-3)).toFixed(1)} MB/s`,
        );
      },
    });
    await writeValues(ws, [{ path: ['benchmarks', v.set], value: `${BENCH_DIR}/${v.set}` }]);
    console.log(
      `set ${v.set}: ${out.instances} instances (${out.answers.sat} SAT, ${out.answers.unsat} UNSAT, ${out.answers.unknown} unknown) in ${out.seconds.toFixed(1)} s; ${out.downloaded} downloaded (${out.resumed} resumed), ${out.fromCache} from the cache, ${(out.bytes / 1e6).toFixed(1)} MB at ${(out.bytes / 1e6 / Math.max(out.seconds, 1e-3)).toFixed(1)} MB/s; added to satlution.yaml`,
    );
    console.log(`next: satlution benchmarks curate --from ${v.set} --budget-cpu-minutes M --timeout S`);
    return EXIT.ok;
  } catch (e) {
    if (abort.signal.aborted) {
      console.error((e as Error).message);
      return EXIT_INTERRUPTED;
    }
    if (e instanceof FetchIncomplete) {
      console.error(e.message);
      return EXIT.gateFailed;
    }
    if (e instanceof GbdServerError) throw new UsageError(e.message);
    throw e;
  } finally {
    stop();
  }
}

async function curateCommand(argv: string[]): Promise<number> {
  const { values: v, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      'budget-cpu-minutes': { type: 'string' },
      timeout: { type: 'string' },
      heldout: { type: 'string' },
      'heldout-families': { type: 'string' },
      'min-s': { type: 'string' },
      name: { type: 'string' },
      replace: { type: 'boolean', default: false },
      dir: { type: 'string' },
    },
    strict: true,
  });
  if (positionals.length) throw new UsageError(`benchmarks curate takes no positional argument\n\n${BENCHMARKS_HELP}`);
  if (!v.from) throw new UsageError('--from SET is needed: a benchmark set of satlution.yaml (one `benchmarks fetch` made)');
  const budgetMin = positive(v['budget-cpu-minutes'], '--budget-cpu-minutes');
  const timeoutS = positive(v.timeout, '--timeout');
  const share = v.heldout === undefined ? 0.3 : Number(v.heldout);
  if (!(share >= 0 && share <= 0.9)) throw new UsageError(`--heldout must be a share from 0 to 0.9, got "${v.heldout}"`);
  const hf = v['heldout-families'];
  const heldoutFamilies: { count: number } | { names: string[] } | undefined =
    hf === undefined
      ? undefined
      : /^\d+$/.test(hf)
        ? { count: Number(hf) }
        : {
            names: hf
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
          };
  if (heldoutFamilies && ('count' in heldoutFamilies ? heldoutFamilies.count < 1 : !heldoutFamilies.names.length))
    throw new UsageError(`--heldout-families needs a count of at least 1, or family names separated by commas (got "${hf}")`);
  const minS = v['min-s'] === undefined ? Math.max(0.5, timeoutS / 1000) : Number(v['min-s']);
  if (!(minS >= 0)) throw new UsageError(`--min-s must be a number of seconds >= 0, got "${v['min-s']}"`);
  const name = v.name ?? v.from;
  if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new UsageError(`--name must use letters, digits, _ and -, got "${name}"`);
  const ws = await workspace(v.dir);
  const config = await loadConfig(ws);
  if (!(v.from in config.benchmarks))
    throw new UsageError(`${v.from} is not a benchmark set of satlution.yaml (known: ${Object.keys(config.benchmarks).join(', ')})`);
  const champion = (await new CandidateStore(ws).load()).index.champion;
  if (champion === null) throw new UsageError('the workspace has no champion yet: evaluate SATLUTION_0 first (satlution eval SATLUTION_0)');
  const abort = new AbortController();
  const stop = cancelOnSignals(abort, { command: 'benchmarks curate' });
  let last = 0;
  try {
    const out = await curateSet({
      ws,
      config,
      championDir: path.join(ws, candidateDirName(champion)),
      from: v.from,
      name,
      budgetS: budgetMin * 60,
      timeoutS,
      heldoutShare: share,
      ...(heldoutFamilies ? { heldoutFamilies } : {}),
      minS,
      replace: v.replace,
      runnerEnv: runnerEnv(),
      signal: abort.signal,
      log: (line) => console.log(line),
      onResult: (done, total) => {
        if (Date.now() - last < 2000 && done < total) return;
        last = Date.now();
        console.log(`${done}/${total} runs`);
      },
    });
    const d = out.doc;
    const outs = d.decisions.filter((x) => x.set === 'out');
    const clock = clockName(d.on);
    console.log(
      `the champion's run over ${d.from} cost ${(d.spent_s / 60).toFixed(1)} ${clock} minutes (${d.decisions.length} instances, timeout ${d.timeout_s} s)`,
    );
    console.log(
      `training set ${d.train.set}: ${d.train.instances} instances, ${(d.train.time_s / 60).toFixed(1)} of ${budgetMin} ${clock} minutes per evaluation of the champion`,
    );
    console.log(
      `held-out set ${d.heldout.set}: ${d.heldout.instances} instances, ${(d.heldout.time_s / 60).toFixed(1)} of ${(d.heldout.budget_s / 60).toFixed(1)} ${clock} minutes`,
    );
    if (d.heldout_families) console.log(`held out whole: ${d.heldout_families.join(', ')} (never in training)`);
    console.log(`left out: ${outs.length} (why each instance is in or out: ${path.relative(ws, out.curationFile)})`);
    console.log(`satlution.yaml: stages.perf.set = ${d.train.set}, stages.perf.holdout = ${d.heldout.set}, stages.perf.timeout_s = ${d.timeout_s}`);
    return EXIT.ok;
  } catch (e) {
    if (abort.signal.aborted) {
      console.error(`curate stopped: ${(e as Error).message} (the champion's finished runs are kept: run it again to go on)`);
      return EXIT_INTERRUPTED;
    }
    if (e instanceof SelectionError) throw new UsageError(`curate: ${e.message} (the champion's runs are kept: run it again with other families)`);
    throw e;
  } finally {
    stop();
  }
}

async function workspace(dir: string | undefined): Promise<string> {
  const ws = await findWorkspace(dir ?? '.');
  if (!ws) throw new UsageError(`no satlution.yaml in ${dir ?? '.'} or above: pass --dir WORKSPACE`);
  return ws;
}

function whole(s: string, flag: string): number {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive whole number, got "${s}"`);
  return n;
}

function positive(s: string | undefined, flag: string): number {
  const n = Number(s);
  if (s === undefined || !(n > 0)) throw new UsageError(`${flag} is needed: a positive number, got "${s ?? 'none'}"`);
  return n;
}
