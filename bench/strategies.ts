// Benchmark: the search strategies on the same budget of evaluations and the same proposal source.
// The solver is "optsat" (tinysat with a busy-loop `delay` option and four inert ones, in
// kissat's options.h layout), the proposals come from the offline tuner, and every candidate goes
// through the real gates. SIFT's judge is a seeded stochastic model of a reviewer that reads each
// diff (it sees which option moved and how far, and scores with noise): a stand-in for an LLM judge,
// so the run needs no vendor. Printed per strategy: cycles, proposals coded, evaluations used, the
// champion's PAR-2 at the end and the 95% CI of its difference to the seed.
// BENCH_BUDGET evaluations (default 6), BENCH_SEEDS repetitions (default 2).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tunerAgent } from '../src/core/agents/tuner';
import { planted3Sat } from '../src/core/instances/generators';
import { prng } from '../src/core/stats/prng';
import { loadConfig } from '../src/core/config/load';
import { runCycle } from '../src/core/cycle/engine';
import { saveCycle } from '../src/core/store/cycleState';
import { compareRuns } from '../src/core/decide/comparison';
import type { EvalDoc } from '../src/core/eval/evalDoc';
import { silentLogger } from '../src/core/ports';
import { CandidateStore } from '../src/core/store/candidates';
import type { Judge } from '../src/core/strategy/judge';
import { judgeStats } from '../src/core/strategy/judgeLog';
import { initWorkspace } from '../src/core/workspace/initWorkspace';
import { writeOptsat } from '../test/fixtures/optsat';

const ROOT = path.resolve(__dirname, '..', '..');
const BUDGET = Number(process.env.BENCH_BUDGET ?? 6);
const SEEDS = Number(process.env.BENCH_SEEDS ?? 2);
/** Options the solver never reads: proposals that touch only these cannot help, and cost an evaluation. */
const INERT = ['lucky', 'mode', 'reserved', 'spare'];

/** A reviewer that reads the diff: a shorter busy loop looks good, the inert option looks pointless. */
function simulatedJudge(seed: number): Judge {
  const rnd = prng(seed);
  const noise = () => (rnd() + rnd() + rnd() - 1.5) * 2; // about N(0, 1)
  return {
    async score(input) {
      const m = /`(\w+)` from (\d+) to (\d+)/.exec(input.hypothesis);
      const base = !m ? 2 : m[1] === 'delay' ? 5 + 1.5 * Math.log2(Math.max(1, Number(m[2])) / Math.max(1, Number(m[3]))) : 3;
      return { score: Math.min(10, Math.max(1, Math.round(base + noise()))), rationale: 'simulated reviewer' };
    },
  };
}

async function workspace(dir: string, strategy: string, tiers: boolean): Promise<string> {
  const seed = path.join(dir, 'seed');
  writeOptsat(seed, path.join(ROOT, 'test', 'fixtures', 'seeds', 'tinysat', 'tinysat.c'), { delay: 100000000, inert: INERT });
  const ws = path.join(dir, 'ws');
  await initWorkspace({
    dir: ws,
    seeds: [{ name: 'optsat', source: seed }],
    defaultRulesDir: path.join(ROOT, 'rules'),
    approver: { confirm: async () => true },
    log: silentLogger,
  });
  const cfg = path.join(ws, 'satlution.yaml');
  fs.writeFileSync(
    cfg,
    fs
      .readFileSync(cfg, 'utf8')
      .replace(/check_proofs: true/g, 'check_proofs: false')
      .replace('approval: semi', 'approval: auto')
      .replace(/timeout_s: \d+/g, 'timeout_s: 20')
      .replace(/^strategy:.*$/m, `strategy: ${strategy}`)
      // Multi-fidelity: half the perf set at a quarter of the timeout first; the better half goes on.
      .replace(/^( {2}perf: *\{[^}]*)\}/m, tiers ? '$1, tiers: [{ fraction: 0.5, timeout_s: 5, promote_top: 0.5 }] }' : '$1}')
      .replace(/^models: \{\}$/m, 'models:\n  judge: { provider: openai-compatible, model: simulated, base_url: "http://127.0.0.1:9/v1" }'),
  );
  fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'cnf', 'sat-small.cnf'), path.join(ws, 'benchmarks', 'smoke', 'sat-small.cnf'));
  // A verify set with known answers: an empty one would fail its gate (evaluation.vacuous_gates).
  for (const f of ['sat-small.cnf', 'unsat-small.cnf'])
    fs.copyFileSync(path.join(ROOT, 'test', 'fixtures', 'cnf', f), path.join(ws, 'benchmarks', 'verify', f));
  fs.writeFileSync(path.join(ws, 'benchmarks', 'verify', 'meta.csv'), 'instance,family,expected\nsat-small.cnf,tiny,SAT\nunsat-small.cnf,tiny,UNSAT\n');
  for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(ws, 'benchmarks', 'perf', `p${i}.cnf`), planted3Sat(30, 4.0, 500 + i));
  return ws;
}

const readEval = (ws: string, dir: string) => JSON.parse(fs.readFileSync(path.join(ws, '.satlution', 'evals', `${dir}.json`), 'utf8')) as EvalDoc;

async function run(name: string, strategy: string, seed: number, tiers = false) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-strategy-'));
  try {
    const ws = await workspace(dir, strategy, tiers);
    const config = await loadConfig(ws);
    const judge = simulatedJudge(seed);
    const agent = tunerAgent();
    const evaluations = () =>
      fs.existsSync(path.join(ws, '.satlution', 'evals'))
        ? fs.readdirSync(path.join(ws, '.satlution', 'evals')).filter((f) => f !== 'SATLUTION_0.json').length
        : 0;
    let cycles = 0;
    const t0 = Date.now();
    // Cycle numbers seed the tuner: offset them per repetition so repetitions differ.
    const now = new Date().toISOString();
    await saveCycle(ws, {
      cycle: seed * 100,
      step: 'done',
      parent: 0,
      candidate: null,
      title: null,
      started_at: now,
      updated_at: now,
      outcome: 'repetition offset',
      champion_changed: false,
    });
    while (evaluations() < BUDGET && cycles < BUDGET * 3) {
      await runCycle({ ws, config, agent, judge, approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
      cycles++;
    }
    const { index } = await new CandidateStore(ws).load();
    const coded = index.candidates.filter((c) => c.id > 0 && c.status !== 'failed' && !/plan rejected/.test(c.detail ?? '')).length;
    const champ = readEval(ws, `SATLUTION_${index.champion}`);
    // Evaluations that reached the full perf set (with tiers, the others stopped at the cheap tier).
    const full = fs.readdirSync(path.join(ws, '.satlution', 'evals')).filter((f) => {
      const t = readEval(ws, f.slice(0, -5)).tier;
      return f !== 'SATLUTION_0.json' && (!t || t.reached === t.of);
    }).length;
    const base = readEval(ws, 'SATLUTION_0');
    const cmp = compareRuns(base.instances, champ.instances, champ.timeout_s ?? 20, { seed: 7 });
    const delay = /OPTION \(delay, (\d+),/.exec(fs.readFileSync(path.join(ws, `SATLUTION_${index.champion}`, 'src', 'options.h'), 'utf8'))?.[1];
    const j = await judgeStats(ws);
    return {
      name,
      seed,
      full,
      rho: j.n ? j.spearman : undefined,
      cycles,
      coded,
      evaluations: evaluations(),
      par2: champ.metrics?.par2 ?? NaN,
      base: base.metrics?.par2 ?? NaN,
      ci: cmp.ci95,
      delay,
      s: (Date.now() - t0) / 1000,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const strategies: [string, string, string?][] = [
    ['champion-challenger', '{ name: champion-challenger, min_improvement_pct: 5, alpha: 0.05 }'],
    ['sift m=4 k=1', '{ name: sift, proposals: 4, evaluate_top: 1, min_improvement_pct: 5, alpha: 0.05 }'],
    ['islands 2x', '{ name: islands, islands: { count: 2, migration_interval: 4 }, min_improvement_pct: 5, alpha: 0.05 }'],
    ['smc N=2 K=1', '{ name: smc, smc: { particles: 2, mh_steps: 1, min_iterations: 2, max_iterations: 3 }, min_improvement_pct: 5, alpha: 0.05 }'],
    ['cc + perf tiers', '{ name: champion-challenger, min_improvement_pct: 5, alpha: 0.05 }', 'tiers'],
  ];
  const rows = [];
  for (let seed = 1; seed <= SEEDS; seed++) for (const [name, s, extra] of strategies) rows.push(await run(name, s, seed, extra === 'tiers'));
  console.log(`budget: ${BUDGET} evaluations per run; optsat seed delay 1e8 (PAR-2 falls with a shorter delay); tuner proposals; ${SEEDS} repetitions`);
  console.log('strategy               rep  cycles  coded  evals (full)  seed PAR-2  best PAR-2  diff 95% CI (s)         champion delay  judge rho  wall s');
  for (const r of rows)
    console.log(
      `${r.name.padEnd(22)} ${String(r.seed).padStart(3)}  ${String(r.cycles).padStart(6)}  ${String(r.coded).padStart(5)}  ${String(r.evaluations).padStart(5)} ${`(${r.full})`.padStart(6)}  ${r.base.toFixed(3).padStart(10)}  ${r.par2.toFixed(3).padStart(10)}  [${r.ci[0].toFixed(3)}, ${r.ci[1].toFixed(3)}]`.padEnd(
        110,
      ) +
        `${String(r.delay).padStart(12)}  ${(r.rho === undefined ? '-' : r.rho === null ? 'n/a' : r.rho.toFixed(2)).padStart(9)}  ${r.s.toFixed(0).padStart(6)}`,
    );
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
