// Benchmark: verdicts under noise and drift, and what racing saves. Real solvers, real gates, real load
// (busy loops on the cores). Printed:
//  1. A/A: challengers that behave exactly like the champion (an option the solver never reads), the
//     champion measured while the machine was busy, the cycles on a quiet one: promotions by the rule,
//     and by the old rule (stored champion results against the challenger's, wall time, 5% margin).
//  2. A real ~20% improvement (a shorter start-up loop): how often it is promoted.
//  3. Two measurements of one solver, some under load, in a workspace that has run a few cycles: how
//     often compare finds no difference, the old way (wall, no band) and now (CPU time, the band raised
//     to the drift the workspace recorded, no verdict across different load), and side by side (--measure).
//  4. Wall or CPU: A/A duels while another process comes and goes; the noise each basis shows.
//  6. A/A on kissat: challengers identical in behaviour (a comment), raced beside the champion.
//  5. Racing: the same proposals evaluated in full and raced, on optsat (the strategies bench's solver)
//     and on kissat: CPU seconds per rejected challenger, and whether any full-evaluation winner was
//     rejected early.
// BENCH_AA_CYCLES (20), BENCH_GAIN_TRIALS (5), BENCH_COMPARE_PAIRS (20), BENCH_HISTORY_CYCLES (5: cycles
// before the compare pairs, which record the workspace's drift), BENCH_RACE_PROPOSALS (10),
// BENCH_KISSAT_PROPOSALS (6; kissat's source from SATLUTION_KISSAT_SRC or scripts/fetch-solver-source.sh),
// BENCH_KISSAT_AA_CYCLES (20) and BENCH_KISSAT_LAMBDA (3) for part 6, BENCH_PARTS (1,2,3,4,5,6).
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../src/core/agents/coderTools';
import { mutate, parseOptions, tunerAgent } from '../src/core/agents/tuner';
import type { EvolutionAgent } from '../src/core/agents/agent';
import { loadConfig } from '../src/core/config/load';
import type { Config } from '../src/core/config/schema';
import { runCycle } from '../src/core/cycle/engine';
import { racePolicy } from '../src/core/decide/againstChampion';
import { allowedFalsePromotion, bandFor, calibrate, noiseOf } from '../src/core/decide/calibration';
import { compareRuns, compareSeparate, cpuShare } from '../src/core/decide/comparison';
import { measureTogether } from '../src/core/decide/measureTogether';
import { driftBand, readDrift } from '../src/core/decide/drift';
import { measureSideBySide } from '../src/core/decide/measureTogether';
import { readDuels } from '../src/core/decide/duels';
import { EvalStore } from '../src/core/eval/evalStore';
import { planStages, gateContext } from '../src/core/eval/plan';
import { runSet } from '../src/core/eval/runSet';
import { evaluateSolver } from '../src/core/eval/service';
import { listSet } from '../src/core/instances/instances';
import { pigeonhole, planted3Sat, uniform3Sat } from '../src/core/instances/generators';
import { prng } from '../src/core/stats/prng';
import { silentLogger } from '../src/core/ports';
import type { InstanceResult } from '../src/core/run/result';
import { newCandidate } from '../src/core/workspace/newCandidate';
import { optsatDelay, writeOptsat } from '../test/fixtures/optsat';
import { seededWorkspace } from '../test/fixtures/seededWorkspace';
import { kissatSource } from '../test/fixtures/kissatSource';

const ROOT = path.resolve(__dirname, '..', '..');
const FIX = path.join(ROOT, 'test', 'fixtures');
const AA_CYCLES = Number(process.env.BENCH_AA_CYCLES ?? 20);
const GAIN_TRIALS = Number(process.env.BENCH_GAIN_TRIALS ?? 5);
const COMPARE_PAIRS = Number(process.env.BENCH_COMPARE_PAIRS ?? 20);
const HISTORY_CYCLES = Number(process.env.BENCH_HISTORY_CYCLES ?? 5);
const RACE_PROPOSALS = Number(process.env.BENCH_RACE_PROPOSALS ?? 10);
const KISSAT_PROPOSALS = Number(process.env.BENCH_KISSAT_PROPOSALS ?? 6);
const KISSAT_AA_CYCLES = Number(process.env.BENCH_KISSAT_AA_CYCLES ?? 20);
const INERT = ['lucky', 'mode', 'reserved', 'spare'];
const env = { workerFile: '' };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-bench-verdicts-'));
const loads: ChildProcess[] = [];

/** n busy loops (other programs on the machine, each in its own session: autogroup shares CPU per session) until stopped. */
function busy(n: number): () => void {
  const ps = Array.from({ length: n }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore', detached: true }));
  loads.push(...ps);
  return () => ps.forEach((p) => p.kill('SIGKILL'));
}

/** One busy loop that comes and goes at random (0.3-2 s on, 0.3-2 s off) until stopped: a shared machine. */
function intermittent(seed: number): () => void {
  const rnd = prng(seed);
  let stop: (() => void) | undefined;
  let timer: NodeJS.Timeout;
  const flip = () => {
    if (stop) {
      stop();
      stop = undefined;
    } else stop = busy(1);
    timer = setTimeout(flip, 300 + 1700 * rnd());
  };
  timer = setTimeout(flip, 300 + 1700 * rnd());
  return () => {
    clearTimeout(timer);
    stop?.();
  };
}

/** A workspace around a seed directory (fixtures/seededWorkspace.ts), `perf` written by the caller. */
function workspace(name: string, seedName: string, seed: string, perf: (dir: string) => void, edit?: (y: string) => string): Promise<string> {
  return seededWorkspace({ dir: path.join(tmp, name), seedName, seed, perf, ...(edit ? { edit } : {}) });
}

/** An optsat workspace: `delay` start-up iterations, four inert options, 48 planted 3-SAT perf instances (this machine's cores change speed by up to 2x from one second to the next: a set this size keeps the noise band near 10%). */
function optsatWorkspace(name: string, delay: number, yaml?: (y: string) => string): Promise<string> {
  const seed = path.join(tmp, `${name}-seed`);
  writeOptsat(seed, path.join(FIX, 'seeds', 'tinysat', 'tinysat.c'), { delay, inert: INERT });
  return workspace(
    name,
    'optsat',
    seed,
    (dir) => {
      for (let i = 0; i < 48; i++) fs.writeFileSync(path.join(dir, `p${i}.cnf`), planted3Sat(30, 4.0, 300 + i));
    },
    yaml,
  );
}

/** An agent that scales `delay` by a factor: a real improvement (< 1) or a real loss (> 1). */
function delayAgent(factor: number): EvolutionAgent {
  return {
    name: 'scripted',
    async plan({ candidate }) {
      return {
        title: `delay x${factor}`,
        hypothesis: `# ${candidate}: delay x${factor}\n\n## Change\nScale delay by ${factor}.\n\n## Rationale\nThe start-up loop is pure cost.\n\n## Expected effect\nEvery run ${factor < 1 ? 'faster' : 'slower'}.\n`,
      };
    },
    async code({ host, candidateDir }) {
      const now = optsatDelay(candidateDir);
      const edit = await runTool(
        'edit_file',
        JSON.stringify({ path: 'src/options.h', search: `OPTION (delay, ${now},`, replace: `OPTION (delay, ${Math.round(now * factor)},` }),
        host,
      );
      if (edit.isError) throw new Error(edit.content);
      const b = await host.build();
      return { finished: b.ok, detail: b.text };
    },
  };
}

const gain = (a: number, b: number) => (a > 0 ? (100 * (a - b)) / a : 0);
const cpuOf = (rs: readonly InstanceResult[]) => rs.reduce((s, r) => s + (r.cpu_s ?? r.time_s), 0);
const pct = (x: number) => `${x.toFixed(1)}%`;

async function aaCycles(): Promise<void> {
  console.log(`\n-- 1. A/A: ${AA_CYCLES} challengers that behave exactly like the champion (racing off, so each runs the whole set in its race)`);
  const ws = await optsatWorkspace('aa', 150_000_000, (y) => y.replace('vacuous_gates: fail', 'vacuous_gates: fail\n  racing: { enabled: false }'));
  const config = await loadConfig(ws);
  const stop = busy(2);
  try {
    await evaluateSolver({
      ws,
      config,
      solverDir: path.join(ws, 'SATLUTION_0'),
      overrides: { stage: 'all', jobs: 2 },
      tiers: { reference: true },
      runnerEnv: env,
    });
  } finally {
    stop();
  }
  const champion = (await new EvalStore(ws).get(0))!;
  let promoted = 0;
  let oldRule = 0;
  const t0 = Date.now();
  for (let c = 1; c <= AA_CYCLES; c++) {
    const s = await runCycle({ ws, config, agent: tunerAgent({ only: INERT }), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    if (s.champion_changed) promoted++;
    const doc = s.candidate === null ? undefined : await new EvalStore(ws).get(s.candidate);
    if (doc?.verdict === 'pass') {
      const old = compareRuns(champion.instances, doc.instances, doc.timeout_s ?? 20, { on: 'wall' });
      if (old.verdict === 'B faster' && gain(old.par2A, old.par2B) >= 5) oldRule++;
    }
  }
  console.log(`champion measured under load: wall PAR-2 ${champion.metrics!.par2.toFixed(3)} s`);
  console.log(
    `A/A promotions: ${promoted} of ${AA_CYCLES} cycles (the rule allows at most ${pct(100 * allowedFalsePromotion(config.strategy.alpha))} per decision); the old rule (stored champion vs challenger, wall time, 5% margin) would have promoted ${oldRule} of ${AA_CYCLES}; ${((Date.now() - t0) / 1000 / AA_CYCLES).toFixed(1)} s per cycle`,
  );
}

async function realGain(): Promise<void> {
  console.log(`\n-- 2. A real improvement (delay x0.78): ${GAIN_TRIALS} trials, each from a fresh workspace (calibration included), racing on`);
  let promoted = 0;
  const gains: number[] = [];
  for (let t = 0; t < GAIN_TRIALS; t++) {
    const ws = await optsatWorkspace(`gain${t}`, 200_000_000);
    const config = await loadConfig(ws);
    const s = await runCycle({ ws, config, agent: delayAgent(0.78), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    if (s.champion_changed) promoted++;
    const d = (await readDuels(ws)).find((x) => x.purpose === 'decision');
    if (d) gains.push(gain(d.comparison.par2A, d.comparison.par2B));
    console.log(`trial ${t + 1}: ${s.outcome}`);
  }
  console.log(
    `real improvement promoted in ${promoted} of ${GAIN_TRIALS} trials (gain measured side by side where it got that far: ${gains.map((g) => g.toFixed(1)).join(', ')}%)`,
  );
}

/** One separate measurement of a solver on the workspace's perf set, under a session of its own (no reuse). */
async function measureOnce(ws: string, config: Config, dir: string, session: string): Promise<{ results: InstanceResult[]; timeoutS: number }> {
  const perf = planStages(config, ws, { stage: 'perf' })[0]!;
  const ctx = gateContext(config, ws);
  const out = await runSet({
    solverDir: dir,
    instances: await listSet(perf.dir),
    timeoutS: perf.timeoutS,
    memMb: perf.memMb,
    checkProofs: false,
    maxProofMb: 1,
    checkerTimeoutS: 60,
    jobs: 2,
    cache: ctx.cache,
    store: ctx.store,
    session,
    ...(perf.isolation ? { isolation: perf.isolation } : {}),
  });
  return { results: out.results, timeoutS: perf.timeoutS };
}

async function compareSameSolver(): Promise<void> {
  console.log(
    `\n-- 3. compare on the same solver twice: ${COMPARE_PAIRS} pairs of separate measurements and ${COMPARE_PAIRS} side-by-side ones, each under load with probability 1/2`,
  );
  // A workspace in use: its champion evaluated, calibrated, and a few cycles run (racing off, so each
  // challenger meets the champion side by side). Each time the champion is measured again, the workspace
  // records the drift between separate measurements of it (drift.ts): that is what compare then uses.
  const ws = await optsatWorkspace('compare', 150_000_000, (y) => y.replace('vacuous_gates: fail', 'vacuous_gates: fail\n  racing: { enabled: false }'));
  const config = await loadConfig(ws);
  const dir = path.join(ws, 'SATLUTION_0');
  await evaluateSolver({ ws, config, solverDir: dir, overrides: { stage: 'all', jobs: 2 }, tiers: { reference: true }, runnerEnv: env });
  const cal = await calibrate({ ws, config, solverDir: dir, runnerEnv: env });
  for (let c = 0; c < HISTORY_CYCLES; c++)
    await runCycle({ ws, config, agent: tunerAgent({ only: INERT }), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
  const band = bandFor(cal, 'cpu');
  const record = await readDrift(ws);
  const drift = driftBand(record, 'cpu') ?? 'unmeasured';
  console.log(
    `the workspace: calibrated band ${pct(band)}; drift between separate measurements of the champion after ${HISTORY_CYCLES} cycles: ${drift === 'unmeasured' ? 'none recorded' : `up to ${pct(drift.pct)} (${drift.n} observations: ${record!.observations.map((o) => pct(o.diff_pct)).join(', ')})`}`,
  );
  const rnd = prng(17);
  let oldSame = 0;
  let newSame = 0;
  let noVerdict = 0;
  let sideSame = 0;
  for (let i = 0; i < COMPARE_PAIRS; i++) {
    const runs: InstanceResult[][] = [];
    let timeoutS = 20;
    const loaded: boolean[] = [];
    for (let k = 0; k < 2; k++) {
      const stop = rnd() < 0.5 ? busy(1) : undefined;
      loaded.push(stop !== undefined);
      try {
        const m = await measureOnce(ws, config, dir, `pair${i}-${k}`);
        runs.push(m.results);
        timeoutS = m.timeoutS;
      } finally {
        stop?.();
      }
    }
    const old = compareRuns(runs[0]!, runs[1]!, timeoutS, { on: 'wall' });
    const now = compareSeparate(runs[0]!, runs[1]!, timeoutS, { on: 'cpu', bandPct: band, drift });
    const share = (rs: InstanceResult[]) => pct(100 * (cpuShare(rs) ?? NaN));
    console.log(
      `pair ${i + 1}: ${loaded.map((l) => (l ? 'loaded' : 'quiet')).join(' / ')}, CPU share ${share(runs[0]!)} / ${share(runs[1]!)}: old ${old.verdict} (${pct(gain(old.par2A, old.par2B))}), now ${now.verdict} (CPU ${pct(gain(now.par2A, now.par2B))}${now.caveat ? `: ${now.caveat.slice(0, 40)}...` : ''})`,
    );
    if (old.verdict === 'no significant difference') oldSame++;
    if (now.verdict === 'no significant difference') newSame++;
    if (now.caveat) noVerdict++;
    // `compare --measure`: the same solver twice, side by side in one session, under the same chance of load.
    const stop = rnd() < 0.5 ? busy(1) : undefined;
    try {
      const d = await measureSideBySide({ ws, config, a: dir, b: dir, purpose: 'compare', on: 'cpu', bandPct: band, alpha: 0.05, runnerEnv: env });
      if (d.cmp.verdict === 'no significant difference') sideSame++;
    } finally {
      stop?.();
    }
  }
  console.log(
    `no significant difference between two separate measurements: ${oldSame} of ${COMPARE_PAIRS} on wall time without a band (the old compare), ${newSame} of ${COMPARE_PAIRS} now (CPU time, the band raised to the recorded drift, no verdict for ${noVerdict} pairs measured under different load)`,
  );
  console.log(`no significant difference side by side (compare --measure, CPU time, the band): ${sideSame} of ${COMPARE_PAIRS}`);
}

async function wallOrCpu(): Promise<void> {
  const n = 6;
  console.log(`\n-- 4. wall or CPU: ${n} A/A duels while another process comes and goes`);
  const ws = await optsatWorkspace('basis', 150_000_000);
  const config = await loadConfig(ws);
  const dir = path.join(ws, 'SATLUTION_0');
  const rows: { wall: ReturnType<typeof noiseOf>; cpu: ReturnType<typeof noiseOf> }[] = [];
  for (let i = 0; i < n; i++) {
    const stop = intermittent(40 + i);
    try {
      const d = await measureSideBySide({
        ws,
        config,
        a: dir,
        b: dir,
        purpose: 'calibration',
        on: 'cpu',
        bandPct: 0,
        alpha: 0.05,
        build: i === 0,
        runnerEnv: env,
      });
      rows.push({ wall: noiseOf(d.a, d.b, d.doc.timeout_s, 'wall', 0.05), cpu: noiseOf(d.a, d.b, d.doc.timeout_s, 'cpu', 0.05) });
    } finally {
      stop();
    }
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  for (const basis of ['wall', 'cpu'] as const)
    console.log(
      `${basis.padEnd(4)}: band ${mean(rows.map((r) => r[basis].band_pct)).toFixed(1)}% on average (max ${Math.max(...rows.map((r) => r[basis].band_pct)).toFixed(1)}%), |A/A difference| ${mean(rows.map((r) => Math.abs(r[basis].diff_pct))).toFixed(1)}%, per-instance spread median ${mean(rows.map((r) => r[basis].spread_median_pct ?? 0)).toFixed(1)}%, A/A called significant without a band in ${rows.filter((r) => r[basis].aa_significant).length} of ${n}`,
    );
}

/** A proposal: a copy of the champion with one or two options mutated (the tuner's moves). */
async function propose(ws: string, rnd: () => number, names?: readonly string[]): Promise<{ dir: string; what: string }> {
  const c = await newCandidate(ws, { parent: 0 });
  const dir = path.join(ws, c.dir);
  const file = path.join(dir, 'src', 'options.h');
  let text = fs.readFileSync(file, 'utf8');
  const opts = parseOptions(text).filter((o) => !names || names.includes(o.name));
  const moves: string[] = [];
  for (let k = 0; k < (rnd() < 0.5 ? 1 : 2); k++) {
    const o = opts[Math.floor(rnd() * opts.length)]!;
    const v = mutate(o, rnd);
    text = text.replace(new RegExp(`OPTION\\s*\\(\\s*${o.name}\\s*,\\s*[^,]+?\\s*,`), `OPTION (${o.name}, ${v},`);
    moves.push(`${o.name} ${o.text} -> ${v}`);
  }
  fs.writeFileSync(file, text);
  return { dir, what: moves.join(', ') };
}

async function racing(label: string, ws: string, proposals: number, names?: readonly string[]): Promise<void> {
  const config = await loadConfig(ws);
  const champ = await evaluateSolver({
    ws,
    config,
    solverDir: path.join(ws, 'SATLUTION_0'),
    overrides: { stage: 'all', jobs: 2 },
    tiers: { reference: true },
    runnerEnv: env,
  });
  const band = 0;
  const margin = config.strategy.min_improvement_pct;
  // As a cycle races: the champion beside the challenger in one session, dropped by the futility rule (race.ts).
  const policy = racePolicy(config, champ.doc);
  const rnd = prng(7);
  const ratios: number[] = [];
  let winners = 0;
  let winnersRejected = 0;
  let rejected = 0;
  for (let i = 0; i < proposals; i++) {
    const p = await propose(ws, rnd, names);
    const full = await evaluateSolver({ ws, config, solverDir: p.dir, overrides: { stage: 'all', jobs: 2 }, record: false, runnerEnv: env });
    if (full.verdict !== 'pass') {
      console.log(`${path.basename(p.dir)} (${p.what}): fails a gate (${full.gates.find((g) => !g.ok)?.detail.slice(0, 80)})`);
      continue;
    }
    const perfFull = full.gates[full.gates.length - 1]!.results!;
    const raced = await measureTogether({
      ws,
      config,
      a: path.join(ws, 'SATLUTION_0'),
      challengers: [p.dir],
      purpose: 'compare',
      race: policy,
      on: config.evaluation.decide_on,
      bandPct: 0,
      alpha: config.strategy.alpha,
      runnerEnv: env,
    });
    const race = raced.duels[0]!.race!;
    const cmp = compareRuns(champ.doc.instances, perfFull, champ.doc.timeout_s ?? 20, { on: config.evaluation.decide_on, bandPct: band });
    const wins = cmp.verdict === 'B faster' && gain(cmp.par2A, cmp.par2B) >= margin;
    const fullCpu = cpuOf(perfFull);
    if (wins) winners++;
    if (race.outcome === 'rejected early') {
      rejected++;
      ratios.push(race.spent_s / fullCpu);
      if (wins) winnersRejected++;
    }
    console.log(
      `${path.basename(p.dir)} (${p.what}): full ${fullCpu.toFixed(1)} s CPU, ${gain(cmp.par2A, cmp.par2B).toFixed(1)}% (${cmp.verdict}${wins ? ', wins' : ''}); raced: ${race.outcome} after ${race.ran}/${race.of}, ${race.spent_s.toFixed(1)} s`,
    );
  }
  const mean = ratios.length ? ratios.reduce((s, x) => s + x, 0) / ratios.length : NaN;
  console.log(
    `${label}: ${rejected} of ${proposals} proposals rejected early, spending ${pct(100 * mean)} of a full evaluation's CPU on average (max ${pct(100 * Math.max(...ratios, 0))}); ${winners} won under full evaluation, ${winnersRejected} of them rejected early (margin ${pct(margin)}, band ${pct(band)})`,
  );
}

/**
 * kissat's perf set: 30 instances from 0.05 to ~3.5 s (about 35 s in all), as in the tuning notes:
 * 2-hidden planted 3-SAT (SAT, where local search and rephasing matter), uniform random 3-SAT at the
 * threshold (mostly UNSAT), and pigeonhole formulas (UNSAT, hard for resolution).
 */
function kissatPerfSet(dir: string): void {
  for (let s = 1; s <= 16; s++) fs.writeFileSync(path.join(dir, `planted-${480 + 10 * (s % 6)}-${s}.cnf`), planted3Sat(480 + 10 * (s % 6), 4.24, s));
  for (let s = 1; s <= 10; s++) fs.writeFileSync(path.join(dir, `uniform-${220 + 5 * (s % 5)}-${s}.cnf`), uniform3Sat(220 + 5 * (s % 5), 4.26, s));
  for (const [p, h] of [
    [8, 7],
    [9, 8],
    [10, 9],
    [11, 10],
  ] as const)
    fs.writeFileSync(path.join(dir, `php-${p}-${h}.cnf`), pigeonhole(p, h));
}

/** An agent whose challengers behave exactly like their parent: a comment in kissat's options.h (a new binary identity, the same code). */
function commentAgent(): EvolutionAgent {
  return {
    name: 'scripted',
    async plan({ candidate }) {
      return {
        title: 'a comment',
        hypothesis: `# ${candidate}: a comment\n\n## Change\nA comment in src/options.h.\n\n## Rationale\nNone: an A/A test.\n\n## Expected effect\nNone.\n`,
      };
    },
    async code({ candidateDir }) {
      fs.appendFileSync(path.join(candidateDir, 'src', 'options.h'), `\n/* A/A ${path.basename(candidateDir)} */\n`);
      return { finished: true, detail: 'a comment' };
    },
  };
}

/**
 * 6. A/A on kissat: cycles of lambda challengers identical in behaviour to the champion (a comment in
 * the source), each raced beside the champion: promotions (the rule allows at most 0.5% per decision),
 * how many were dropped early, and the CPU of each race in evaluations of the champion's perf set.
 */
async function kissatAA(): Promise<void> {
  const src = kissatSource();
  if (!src || !fs.existsSync(path.join(src, 'configure')))
    return console.log('\n-- 6. kissat A/A: skipped (no source: set SATLUTION_KISSAT_SRC or run scripts/fetch-solver-source.sh kissat)');
  const lambda = Number(process.env.BENCH_KISSAT_LAMBDA ?? 3);
  console.log(
    `\n-- 6. kissat A/A: ${KISSAT_AA_CYCLES} cycles of ${lambda} challengers identical in behaviour to the champion (a comment in the source), raced beside it`,
  );
  const ws = await workspace(
    'kissat-aa',
    'kissat',
    src,
    (dir) => kissatPerfSet(dir),
    (y) => y.replace('strategy: { name: champion-challenger,', `strategy: { name: champion-challenger, lambda: ${lambda},`),
  );
  const config = await loadConfig(ws);
  await evaluateSolver({
    ws,
    config,
    solverDir: path.join(ws, 'SATLUTION_0'),
    overrides: { stage: 'all', jobs: 2 },
    tiers: { reference: true },
    runnerEnv: env,
  });
  const champion = (await new EvalStore(ws).get(0))!;
  const unit = cpuOf(champion.instances);
  let promoted = 0;
  let dropped = 0;
  let raced = 0;
  const perCycle: number[] = [];
  const t0 = Date.now();
  for (let c = 1; c <= KISSAT_AA_CYCLES; c++) {
    const s = await runCycle({ ws, config, agent: commentAgent(), approver: { confirm: async () => true }, log: silentLogger, jobs: 2 });
    if (s.champion_changed) promoted++;
    const duels = (await readDuels(ws)).filter((d) => d.purpose === 'decision' && d.cycle === s.cycle);
    raced += duels.length;
    dropped += duels.filter((d) => d.race?.outcome === 'rejected early').length;
    // The champion's runs are shared: the longest duel's A side, plus every challenger's own runs.
    const championRuns = Math.max(0, ...duels.map((d) => d.pairs.reduce((t, p) => t + (p.a.cpu_s ?? p.a.time_s), 0)));
    const challengers = duels.reduce((t, d) => t + d.pairs.reduce((u, p) => u + (p.b.cpu_s ?? p.b.time_s), 0), 0);
    perCycle.push((championRuns + challengers) / unit);
    console.log(`cycle ${c}: ${s.outcome} (race ${perCycle[perCycle.length - 1]!.toFixed(2)} champion evaluations)`);
  }
  const mean = perCycle.reduce((t, x) => t + x, 0) / Math.max(1, perCycle.length);
  console.log(
    `kissat A/A: ${promoted} promoted in ${KISSAT_AA_CYCLES} cycles; ${dropped} of ${raced} challengers dropped early; a race cost ${mean.toFixed(2)} evaluations of the champion's perf set on average (${((Date.now() - t0) / 1000 / KISSAT_AA_CYCLES).toFixed(0)} s per cycle, builds and gates included)`,
  );
}

async function main(): Promise<void> {
  console.log(`${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), 2 jobs`);
  // BENCH_PARTS=3,5 runs some parts only.
  const parts = new Set((process.env.BENCH_PARTS ?? '1,2,3,4,5,6').split(',').map(Number));
  if (parts.has(1)) await aaCycles();
  if (parts.has(2)) await realGain();
  if (parts.has(3)) await compareSameSolver();
  if (parts.has(4)) await wallOrCpu();
  if (parts.has(6)) await kissatAA();
  if (!parts.has(5)) return;
  console.log(`\n-- 5. racing, the same proposals evaluated in full and raced`);
  await racing('optsat (the strategies bench)', await optsatWorkspace('race', 100_000_000), RACE_PROPOSALS);
  const src = kissatSource();
  if (!src || !fs.existsSync(path.join(src, 'configure')))
    console.log('kissat: skipped (no source: set SATLUTION_KISSAT_SRC or run scripts/fetch-solver-source.sh kissat)');
  else {
    const ws = await workspace('kissat', 'kissat', src, (dir) => kissatPerfSet(dir));
    await racing('kissat', ws, KISSAT_PROPOSALS, ['walkeffort', 'stable', 'rephaseint', 'target', 'restartint', 'reduceint', 'tier2', 'chrono', 'phase']);
  }
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    loads.forEach((p) => p.kill('SIGKILL'));
    fs.rmSync(tmp, { recursive: true, force: true });
  });
