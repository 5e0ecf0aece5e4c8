// Benchmark: the decision rules' error rates and cost, by simulation. Synthetic solvers (instance times
// log-uniform 0.05-30 s, a share unsolvable, per-run noise, session drift), seeded, driven through the
// real decision code: the calibration (calibration.ts noiseOf), racing (raceRuns.ts runRace with the
// champion re-run in the decision window), the decision duel (compare.ts compareRuns) and the promotion
// rule (strategy/accept.ts greedyAccept), as a cycle chains them. Printed for 12, 22 and 44 instances:
// false promotions per decision (mean and 90th percentile over workspaces, each with its own
// calibration) and per 20 cycles, power at 5/10/20% true gain, CPU per decision in evaluations of the
// champion's perf set, and winners lost by early rejection; and, with true gains of 0, 10 and 20% in one
// cycle, how often the best survivor is the one that meets the champion (cycle/verdicts.ts meetsChampion).
// BENCH_WORKSPACES (40), BENCH_CYCLES (50 per workspace), BENCH_LAMBDA (3), BENCH_SIZES (12,22,44),
// BENCH_NOISE (mixed: each instance's noise drawn from 2-15%; or one number, percent), BENCH_DRIFT
// (5-10: session drift, percent), BENCH_UNSOLVABLE (0: a share of instances neither solves; they dilute a gain in PAR-2), BENCH_SEED (1).
import { noiseOf } from '../src/core/eval/calibration';
import { compareRuns } from '../src/core/eval/compare';
import type { EvalDoc } from '../src/core/eval/evalDoc';
import { par2Of } from '../src/core/eval/metrics';
import { runRace, type RunSome } from '../src/core/eval/raceRuns';
import { RacingSchema } from '../src/core/config/schema';
import { prng } from '../src/core/instances/generators';
import type { InstanceSpec } from '../src/core/instances/instances';
import type { InstanceResult } from '../src/core/run/result';
import { meetsChampion } from '../src/core/cycle/verdicts';
import { greedyAccept } from '../src/core/strategy/accept';
import type { Evaluated } from '../src/core/strategy/types';

const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 40);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 50);
const LAMBDA = Number(process.env.BENCH_LAMBDA ?? 3);
const SIZES = (process.env.BENCH_SIZES ?? '12,22,44').split(',').map(Number);
const NOISE = process.env.BENCH_NOISE ?? 'mixed';
const [DRIFT_LO, DRIFT_HI] = (process.env.BENCH_DRIFT ?? '5-10').split('-').map((x) => Number(x) / 100) as [number, number];
const UNSOLVABLE = Number(process.env.BENCH_UNSOLVABLE ?? 0);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const GAINS = [0.05, 0.1, 0.2];
const TIMEOUT_S = 60;
const ALPHA = 0.05;
const MIN_IMPROVEMENT_PCT = 5;
const ON = 'cpu' as const;
const RACING = RacingSchema.parse({});
/** Runs at once on the simulated runner (the race's block). */
const JOBS = 2;

/** A simulated workspace: its instances' true champion times, their noise, and how far sessions drift. */
interface World {
  n: number;
  times: number[];
  sigma: number[];
  drift: number;
  rnd: () => number;
}

/** A standard normal draw (Box-Muller). */
function normal(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

function world(n: number, seed: number): World {
  const rnd = prng(seed);
  const [lo, hi] = [Math.log(0.05), Math.log(30)];
  const times = Array.from({ length: n }, () => (rnd() < UNSOLVABLE ? Infinity : Math.exp(lo + (hi - lo) * rnd())));
  const sigma = Array.from({ length: n }, () => (NOISE === 'mixed' ? 0.02 + 0.13 * rnd() : Number(NOISE) / 100));
  return { n, times, sigma, drift: DRIFT_LO + (DRIFT_HI - DRIFT_LO) * rnd(), rnd };
}

const name = (i: number) => `i${String(i).padStart(3, '0')}`;
const index = (instance: string) => Number(instance.slice(1));

/** One session's speed: every run in it is slower or faster by this factor. */
const session = (w: World) => Math.exp(w.drift * normal(w.rnd));

/** A run of a solver `speed` times the champion's true time, in a session of factor `f`, stopped at `cap`. */
function run(w: World, i: number, speed: number, f: number, cap: number): InstanceResult {
  const t = w.times[i]! * speed * f * Math.exp(w.sigma[i]! * normal(w.rnd));
  const solved = t <= cap;
  const time = solved ? t : cap;
  return { instance: name(i), family: null, expected: null, expected_from: 'none', answer: solved ? 'SAT' : null, status: solved ? 'solved' : 'timeout', time_s: time, cpu_s: time, mem_mb: null, exit_code: null, signal: null, check: { kind: 'none', ok: null, time_s: 0, detail: '' }, detail: '' };
}

/** A whole set run in one session. */
const measure = (w: World, speed: number, f = session(w)) => w.times.map((_, i) => run(w, i, speed, f, TIMEOUT_S));
const cost = (rs: readonly InstanceResult[]) => rs.reduce((s, r) => s + (r.cpu_s ?? r.time_s), 0);
const par2 = (rs: readonly InstanceResult[]): number => rs.reduce((s, r) => s + par2Of(r, TIMEOUT_S, ON), 0) / Math.max(1, rs.length);

/** What one simulated cycle decided and spent. */
interface CycleOutcome {
  /** Index of the promoted challenger, or null. */
  winner: number | null;
  rejectedEarly: boolean[];
  /** CPU seconds: each challenger's race, and the decision duel. */
  raceCost: number[];
  duelCost: number;
  /** Challengers that survived racing, and the index of the one that met the champion (undefined: none). */
  survivors: number;
  met?: number;
  /** The decision duel's 95% interval of the PAR-2 difference left out 0 (undefined: no duel). */
  ciExcludesZero?: boolean;
}

/** One cycle as the engine runs it: race each challenger, the fastest survivor meets the champion side by side, the promotion rule decides. */
async function cycle(w: World, stored: InstanceResult[], bandPct: number, speeds: number[]): Promise<CycleOutcome> {
  const instances: InstanceSpec[] = w.times.map((_, i) => ({ name: name(i), file: name(i), family: null, expected: null }));
  const policy = { reference: new Map(stored.map((r) => [r.instance, par2Of(r, TIMEOUT_S, ON)])), on: ON, racing: RACING, marginPct: Math.max(MIN_IMPROVEMENT_PCT, bandPct), bandPct, championDir: 'champion' };
  const evaluated: Evaluated[] = [];
  const raceCost: number[] = [];
  const rejectedEarly: boolean[] = [];
  const full: { id: number; doc: EvalDoc }[] = [];
  for (const [k, speed] of speeds.entries()) {
    const f = session(w);
    const runner = (s: number): RunSome => async (some, caps) => ({ solverHash: `s${s}`, reused: 0, results: some.map((x) => run(w, index(x.name), s, f, caps.get(x.name) ?? TIMEOUT_S)) });
    const out = await runRace({ instances, timeoutS: TIMEOUT_S, jobs: JOBS, policy, run: runner(speed), runChampion: runner(1) });
    raceCost.push(out.race.spent_s);
    rejectedEarly.push(out.race.outcome === 'rejected early');
    const json = { verdict: 'pass', race: out.race, metrics: { par2: par2(out.results) } } as Partial<EvalDoc> as EvalDoc;
    evaluated.push({ candidate: k + 1, json, cmp: undefined });
    if (out.race.outcome === 'survived') full.push({ id: k + 1, doc: json });
  }
  let duelCost = 0;
  let ciExcludesZero: boolean | undefined;
  const met = meetsChampion(full);
  const best = met === undefined ? undefined : { k: met - 1 };
  if (best) {
    const f = session(w);
    const a = measure(w, 1, f);
    const b = measure(w, speeds[best.k]!, f);
    duelCost = cost(a) + cost(b);
    const cmp = compareRuns(a, b, TIMEOUT_S, { alpha: ALPHA, on: ON, bandPct });
    evaluated[best.k] = { ...evaluated[best.k]!, cmp };
    ciExcludesZero = cmp.ci95[0] > 0 || cmp.ci95[1] < 0;
  }
  const d = greedyAccept(evaluated, 0, MIN_IMPROVEMENT_PCT, bandPct, ALPHA);
  return { winner: d.winner === null ? null : d.winner - 1, rejectedEarly, raceCost, duelCost, survivors: full.length, ...(best ? { met: best.k } : {}), ...(ciExcludesZero === undefined ? {} : { ciExcludesZero }) };
}

/** One workspace: calibrated once (an A/A duel), its stored champion measurement, then `CYCLES` cycles of the same challengers. */
async function workspace(n: number, seed: number, speeds: number[]): Promise<{ outcomes: CycleOutcome[]; unit: number; bandPct: number }> {
  const w = world(n, seed);
  const f = session(w);
  const bandPct = noiseOf(measure(w, 1, f), measure(w, 1, f), TIMEOUT_S, ON, ALPHA).band_pct;
  const stored = measure(w, 1);
  // One evaluation of the champion: its expected CPU time over the set.
  const unit = w.times.reduce((s, t) => s + Math.min(t, TIMEOUT_S), 0);
  const outcomes: CycleOutcome[] = [];
  for (let c = 0; c < CYCLES; c++) outcomes.push(await cycle(w, stored, bandPct, speeds));
  return { outcomes, unit, bandPct };
}

const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const meanOf = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

async function main(): Promise<void> {
  console.log(`decision simulator: ${WORKSPACES} workspaces x ${CYCLES} cycles per row, lambda = ${LAMBDA}, noise ${NOISE === 'mixed' ? 'mixed 2-15%' : `${NOISE}%`} per run, session drift ${pct(DRIFT_LO, 0)}-${pct(DRIFT_HI, 0)}, ${pct(UNSOLVABLE, 0)} unsolvable, timeout ${TIMEOUT_S} s, decided on ${ON} time, seed ${SEED}`);
  for (const n of SIZES) {
    console.log(`\n-- ${n} instances`);
    // A/A: every challenger behaves exactly like the champion.
    const aa = await Promise.all(Array.from({ length: WORKSPACES }, (_, k) => workspace(n, SEED * 100003 + n * 1009 + k, Array(LAMBDA).fill(1))));
    const rates = aa.map((x) => x.outcomes.filter((o) => o.winner !== null).length / x.outcomes.length);
    const mean = meanOf(rates);
    const units = (x: { outcomes: CycleOutcome[]; unit: number }, pick: (o: CycleOutcome) => number[]) => x.outcomes.flatMap(pick).map((s) => s / x.unit);
    const rejected = aa.flatMap((x) => units(x, (o) => o.raceCost.filter((_, k) => o.rejectedEarly[k])));
    const perCycle = aa.flatMap((x) => units(x, (o) => [o.raceCost.reduce((s, c) => s + c, 0) + o.duelCost]));
    const bands = aa.map((x) => x.bandPct);
    console.log(`A/A: false promotions per decision ${pct(mean, 2)} (90th percentile over workspaces ${pct(quantile(rates, 0.9), 2)}, worst ${pct(Math.max(...rates), 2)}); per 20 cycles ${pct(1 - (1 - mean) ** 20)}; noise band median ${quantile(bands, 0.5).toFixed(1)}% (10th-90th ${quantile(bands, 0.1).toFixed(1)}-${quantile(bands, 0.9).toFixed(1)}%)`);
    const duels = aa.flatMap((x) => x.outcomes.flatMap((o) => (o.ciExcludesZero === undefined ? [] : [o.ciExcludesZero])));
    console.log(`     A/A decision duels whose 95% CI of the difference leaves out 0: ${pct(duels.filter(Boolean).length / Math.max(1, duels.length))} of ${duels.length} (nominal 5%)`);
    console.log(`     CPU per cycle ${meanOf(perCycle).toFixed(2)} champion evaluations; per challenger rejected early ${meanOf(rejected).toFixed(2)} (${rejected.length} of ${aa.length * CYCLES * LAMBDA} rejected early)`);
    for (const g of GAINS) {
      // One challenger with a true gain g, the others like the champion.
      const speeds = [1 - g, ...Array(LAMBDA - 1).fill(1)];
      const ws = await Promise.all(Array.from({ length: WORKSPACES }, (_, k) => workspace(n, SEED * 200003 + n * 1013 + k + Math.round(1000 * g), speeds)));
      const outs = ws.flatMap((x) => x.outcomes);
      const power = outs.filter((o) => o.winner === 0).length / outs.length;
      const wrong = outs.filter((o) => o.winner !== null && o.winner !== 0).length / outs.length;
      const lost = outs.filter((o) => o.rejectedEarly[0]).length / outs.length;
      const cpu = ws.flatMap((x) => units(x, (o) => [o.raceCost.reduce((s, c) => s + c, 0) + o.duelCost]));
      const winnerCpu = ws.flatMap((x) => units(x, (o) => (o.winner === 0 ? [o.raceCost[0]! + o.duelCost] : [])));
      console.log(`${pct(g, 0).padStart(3)} gain: promoted ${pct(power)} (another challenger ${pct(wrong)}); the real gain rejected early ${pct(lost)}; CPU per cycle ${meanOf(cpu).toFixed(2)}, per winner ${meanOf(winnerCpu).toFixed(2)} champion evaluations`);
    }
    // Mixed: true gains of 0, 10% and 20% (the last the best): which survivor meets the champion.
    const mixed = await Promise.all(Array.from({ length: WORKSPACES }, (_, k) => workspace(n, SEED * 300007 + n * 1019 + k, [1, 0.9, 0.8, ...Array(Math.max(0, LAMBDA - 3)).fill(1)])));
    const several = mixed.flatMap((x) => x.outcomes).filter((o) => o.survivors >= 2 && !o.rejectedEarly[2]);
    const mouts = mixed.flatMap((x) => x.outcomes);
    console.log(`gains 0/10/20%: where the 20% one and another survived racing (${several.length} cycles), the 20% one met the champion in ${pct(several.filter((o) => o.met === 2).length / Math.max(1, several.length))}; promoted: the 20% one ${pct(mouts.filter((o) => o.winner === 2).length / mouts.length)}, the 10% one ${pct(mouts.filter((o) => o.winner === 1).length / mouts.length)}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
