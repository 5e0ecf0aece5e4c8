// Benchmark: `satlution benchmarks fetch` and `curate` against a local GBD server (test/fixtures/
// gbdServer.ts, real HTTP on loopback). Prints: fetch throughput (MB/s of compressed files, instances/s)
// with every file verified by its GBD hash, the same query again from the shared cache, the hash's own
// speed, and what a curate costs with kissat as the champion (tinysat without kissat's source): its CPU
// over the fetched set against the budget the training set was cut to. Env: BENCH_GBD_INSTANCES (40), BENCH_GBD_VARS (largest planted formula, 60000),
// BENCH_GBD_JOBS (4), BENCH_GBD_CURATE (1; 0: the fetch figures only, for timing a fetch against another version).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clockName, curateSet } from '../src/core/benchmarks/curateSet';
import { fetchLimits, fetchSet } from '../src/core/benchmarks/fetchSet';
import { GbdSchema } from '../src/core/config/schema';
import { GbdCache } from '../src/core/benchmarks/gbdCache';
import { writeValues } from '../src/core/config/edit';
import { loadConfig } from '../src/core/config/load';
import { evaluateSolver } from '../src/core/eval/service';
import { gbdHashOfFile } from '../src/core/instances/gbdHash';
import { pigeonhole, planted3Sat, uniform3Sat } from '../src/core/instances/generators';
import { listSet } from '../src/core/instances/instances';
import { servedInstance, startGbdServer } from '../test/fixtures/gbdServer';
import { seededWorkspace } from '../test/fixtures/seededWorkspace';
import { kissatSource } from '../test/fixtures/kissatSource';

/** A fetch's limits as satlution.yaml's defaults give them. */
const LIMITS = fetchLimits(GbdSchema.parse({}));

const N = Number(process.env.BENCH_GBD_INSTANCES ?? 40);
const MAX_VARS = Number(process.env.BENCH_GBD_VARS ?? 60000);
const JOBS = Number(process.env.BENCH_GBD_JOBS ?? 4);
const ROOT = path.resolve(__dirname, '..', '..');
const WORKER = path.join(ROOT, 'dist', 'worker.js');

async function main(): Promise<void> {
  console.log(`making ${N} instances (planted 3-SAT up to ${MAX_VARS} variables, pigeonhole), xz-compressed`);
  // The server keeps the compressed files only: 78 MB of texts held beside them would slow every process the
  // fetch starts (a spawn's cost grows with the parent's memory), and the figure would measure this script.
  const served = Array.from({ length: N }, (_, i) => ({
    ...(i % 5 === 4
      ? servedInstance(`php-${i}.cnf.xz`, pigeonhole(5 + (i - 4) / 5, 4 + (i - 4) / 5), { track: 'bench', result: 'unsat', family: 'php' })
      : servedInstance(`planted-${i}.cnf.xz`, planted3Sat(Math.round(40 + ((MAX_VARS - 40) * i) / N), 4.2, 7000 + i), {
          track: 'bench',
          result: 'sat',
          family: 'planted',
        })),
    cnf: '',
  }));
  const bytes = served.reduce((t, s) => t + s.xz.length, 0);
  const server = await startGbdServer(served);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gbd-bench-'));
  try {
    const ws = await seededWorkspace({
      dir: path.join(tmp, 'ws'),
      seedName: 'tinysat',
      seed: path.join(ROOT, 'test', 'fixtures', 'seeds', 'tinysat'),
      perf: () => undefined,
    });
    const cache = new GbdCache(path.join(tmp, 'cache'));
    const t0 = process.hrtime.bigint();
    const first = await fetchSet({ server: server.url, query: 'track=bench', dir: path.join(ws, 'benchmarks', 'bench'), cache, jobs: JOBS, ...LIMITS });
    const s1 = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(
      `fetch, cold cache: ${first.instances} instances, ${(bytes / 1e6).toFixed(1)} MB compressed, ${s1.toFixed(2)} s: ${(bytes / 1e6 / s1).toFixed(1)} MB/s, ${(first.instances / s1).toFixed(1)} instances/s (${JOBS} at a time, each verified by its GBD hash)`,
    );
    const t1 = process.hrtime.bigint();
    const again = await fetchSet({ server: server.url, query: 'track=bench', dir: path.join(ws, 'benchmarks', 'again'), cache, jobs: JOBS, ...LIMITS });
    const s2 = Number(process.hrtime.bigint() - t1) / 1e9;
    console.log(
      `fetch, warm cache (another set, the same query): ${again.fromCache} from the cache in ${s2.toFixed(2)} s: ${(again.instances / s2).toFixed(0)} instances/s`,
    );
    const files = await listSet(first.dir);
    const t2 = process.hrtime.bigint();
    for (const f of files) await gbdHashOfFile(f.file);
    const s3 = Number(process.hrtime.bigint() - t2) / 1e9;
    const plain = files.reduce((t, f) => t + fs.statSync(f.file).size, 0);
    console.log(
      `GBD hash alone (the set's canonical .cnf files, one at a time): ${(plain / 1e6).toFixed(1)} MB of CNF in ${s3.toFixed(2)} s: ${(plain / 1e6 / s3).toFixed(0)} MB/s`,
    );

    if (process.env.BENCH_GBD_CURATE === '0') return;
    // Curate on a track of mid-size formulas, kissat the champion (tinysat where kissat's source is missing).
    const track = [
      ...Array.from({ length: 24 }, (_, i) =>
        servedInstance(`planted-${i}.cnf.xz`, planted3Sat(440 + 9 * i, 4.24, 50 + i), { track: 'curate', result: 'sat', family: 'planted' }),
      ),
      ...Array.from({ length: 8 }, (_, i) =>
        servedInstance(`uniform-${i}.cnf.xz`, uniform3Sat(220 + 5 * i, 4.26, 70 + i), { track: 'curate', result: 'unknown', family: 'uniform' }),
      ),
      ...Array.from({ length: 5 }, (_, i) =>
        servedInstance(`php-${7 + i}.cnf.xz`, pigeonhole(7 + i, 6 + i), { track: 'curate', result: 'unsat', family: 'php' }),
      ),
    ];
    const curateServer = await startGbdServer(track);
    const src = kissatSource();
    const solver = src ? { seedName: 'kissat', seed: src } : { seedName: 'tinysat', seed: path.join(ROOT, 'test', 'fixtures', 'seeds', 'tinysat') };
    const cws = await seededWorkspace({
      dir: path.join(tmp, 'curate'),
      ...solver,
      perf: (dir) => fs.writeFileSync(path.join(dir, 'p.cnf'), planted3Sat(300, 4.2, 1)),
    });
    // The champion evaluated first, as in a workspace where curate is used: its build is the one every curate runs.
    const seedEval = await evaluateSolver({
      ws: cws,
      config: await loadConfig(cws),
      solverDir: path.join(cws, 'SATLUTION_0'),
      runnerEnv: { workerFile: WORKER },
    });
    if (seedEval.verdict !== 'pass') throw new Error(`the seed did not pass its evaluation: ${seedEval.gates.map((g) => g.detail).join('; ')}`);
    await writeValues(cws, [{ path: ['benchmarks', 'track'], value: 'benchmarks/track' }]);
    await fetchSet({ server: curateServer.url, query: 'track=curate', dir: path.join(cws, 'benchmarks', 'track'), cache, jobs: JOBS, ...LIMITS });
    await curateServer.stop();
    console.log(
      `curate with ${solver.seedName} as the champion, ${track.length} instances (planted 3-SAT 440-650 variables, uniform random 3-SAT at the threshold, pigeonhole 7-11), timeout 20 s:`,
    );
    for (const minutes of [0.5, 1, 2]) {
      const t3 = process.hrtime.bigint();
      const out = await curateSet({
        ws: cws,
        config: await loadConfig(cws),
        championDir: path.join(cws, 'SATLUTION_0'),
        from: 'track',
        name: `m${String(minutes).replace('.', '_')}`,
        budgetS: 60 * minutes,
        timeoutS: 20,
        heldoutShare: 0.3,
        minS: 0.5,
        replace: true,
        runnerEnv: { workerFile: WORKER },
      });
      const s4 = Number(process.hrtime.bigint() - t3) / 1e9;
      const d = out.doc;
      const why = (re: RegExp) => d.decisions.filter((x) => x.set === 'out' && re.test(x.reason)).length;
      console.log(
        `  budget ${minutes} ${clockName(d.on)} min: the champion's run over the set cost ${(d.spent_s / 60).toFixed(2)} ${clockName(d.on)} min (${(d.spent_s / (60 * minutes)).toFixed(1)}x the budget; ${s4.toFixed(0)} s wall${minutes > 0.5 ? ', its runs reused' : ''}); training ${d.train.instances} instances, ${(d.train.time_s / 60).toFixed(2)} ${clockName(d.on)} min; held-out ${d.heldout.instances}, ${(d.heldout.time_s / 60).toFixed(2)} of ${(d.heldout.budget_s / 60).toFixed(2)} min; left out ${why(/not solved/)} unsolved, ${why(/too easy/)} too easy, ${why(/budget/)} over budget`,
      );
    }
  } finally {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
