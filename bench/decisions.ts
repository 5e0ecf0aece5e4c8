// Benchmark: the decision rules' error rates and cost, by simulation. Synthetic solvers (instance times
// log-uniform 0.05-30 s, a share unsolvable, per-run noise, session drift), seeded, driven through the
// real decision code as a cycle chains it: the race's order and caps (race.ts raceOrder, capFor), the
// session scheduler with the futility rule and the last word on capped survivors (raceRuns.ts
// runSession, race.ts raceLook, raceSettle), the comparison at the level the race's challengers share
// (compare.ts compareRuns, cycle/verdicts.ts promotionLevel) and the promotion rule (strategy/accept.ts
// greedyAccept). Printed for 12, 22 and 44 instances: false
// promotions per decision (pooled, and the 90th percentile over workspaces) and per 20 cycles, power at
// 5/10/20% true gain, CPU per cycle in evaluations of the champion's perf set (whole cycle, per rejected
// challenger, per winner), winners lost by early rejection, and with true gains 0, 10 and 20% in one
// cycle which one is promoted.
// BENCH_WORKSPACES (40), BENCH_CYCLES (50 per workspace), BENCH_LAMBDA (3), BENCH_SIZES (12,22,44),
// BENCH_NOISE (mixed: each instance's noise drawn from 2-15%; or one number, percent), BENCH_DRIFT
// (5-10: session drift, percent), BENCH_UNSOLVABLE (0: a share of instances neither solves), BENCH_SEED (1),
// BENCH_ONLY (aa: the A/A rows alone, e.g. with BENCH_CYCLES=1000 to resolve each workspace's rate),
// BENCH_SPREAD (0: how much a challenger's effect varies from instance to instance, as the standard
// deviation of its log time ratio, fixed per instance; real option changes are faster on some instances
// and slower on others, which the futility rule needs more instances to see through).
import { compareRuns } from '../src/core/eval/compare';
import type { EvalDoc } from '../src/core/eval/evalDoc';
import { par2Of } from '../src/core/eval/metrics';
import { capFor, raceLook, raceOrder, raceSettle, type RacePolicy } from '../src/core/eval/race';
import { runSession } from '../src/core/eval/raceRuns';
import { RacingSchema } from '../src/core/config/schema';
import { prng } from '../src/core/instances/generators';
import type { InstanceSpec } from '../src/core/instances/instances';
import type { InstanceResult } from '../src/core/run/result';
import { promotionLevel } from '../src/core/cycle/verdicts';
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
const ONLY_AA = process.env.BENCH_ONLY === 'aa';
const SPREAD = Number(process.env.BENCH_SPREAD ?? 0);
const GAINS = [0.05, 0.1, 0.2];
const TIMEOUT_S = 60;
const ALPHA = 0.05;
const MIN_IMPROVEMENT_PCT = 5;
const ON = 'cpu' as const;
const RACING = RacingSchema.parse({});
/** Lanes of the simulated local runner. */
const LANES = 2;

/** A simulated workspace: its instances' true champion times, their noise, and how far sessions drift. */
interface World {
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
  return { times, sigma, drift: DRIFT_LO + (DRIFT_HI - DRIFT_LO) * rnd(), rnd };
}

const name = (i: number) => `i${String(i).padStart(3, '0')}`;
const index = (instance: string) => Number(instance.slice(1));

/** One session's speed: every run in it is slower or faster by this factor. */
const session = (w: World) => Math.exp(w.drift * normal(w.rnd));

/** A run of a solver `speed` times the champion's true time (times its effect on this instance), in a session of factor `f`, stopped at `cap`. */
function run(w: World, i: number, speed: number, f: number, cap: number, effect = 1): InstanceResult {
  const t = w.times[i]! * speed * effect * f * Math.exp(w.sigma[i]! * normal(w.rnd));
  const solved = t <= cap;
  const time = solved ? t : cap;
  return { instance: name(i), family: null, expected: null, expected_from: 'none', answer: solved ? 'SAT' : null, status: solved ? 'solved' : 'timeout', time_s: time, cpu_s: time, mem_mb: null, exit_code: null, signal: null, check: { kind: 'none', ok: null, time_s: 0, detail: '' }, detail: '' };
}

const cost = (rs: Iterable<InstanceResult>) => [...rs].reduce((s, r) => s + (r.cpu_s ?? r.time_s), 0);

/** What one simulated cycle decided and spent. */
interface CycleOutcome {
  /** Index of the promoted challenger, or null. */
  winner: number | null;
  rejectedEarly: boolean[];
  /** CPU seconds: the champion's runs in the race, and each challenger's. */
  championCost: number;
  challengerCost: number[];
}

/** One cycle as the engine runs it: the race (one session), then the promotion rule on the survivors' pairs. */
async function cycle(w: World, stored: InstanceResult[], speeds: number[]): Promise<CycleOutcome> {
  const instances: InstanceSpec[] = w.times.map((_, i) => ({ name: name(i), file: name(i), family: null, expected: null }));
  const policy: RacePolicy = { reference: new Map(stored.map((r) => [r.instance, par2Of(r, TIMEOUT_S, ON)])), on: ON, racing: RACING };
  const order = raceOrder(instances, policy.reference);
  const keys = speeds.map((_, k) => `B${k + 1}`);
  // Each challenger's own per-instance effects (BENCH_SPREAD), centred so its geometric-mean gain is its speed's.
  const effects = keys.map(() => {
    const z = w.times.map(() => SPREAD * normal(w.rnd));
    const m = z.reduce((s, x) => s + x, 0) / Math.max(1, z.length);
    return z.map((x) => Math.exp(x - m));
  });
  const f = session(w);
  const level = promotionLevel(ALPHA, speeds.length);
  const out = await runSession({
    order,
    challengers: keys,
    lanes: LANES,
    block: LANES,
    timeoutS: TIMEOUT_S,
    run: async (side, chunk, o) => chunk.map((x) => run(w, index(x.name), side === 'A' ? 1 : speeds[keys.indexOf(side)]!, f, o.caps.get(x.name) ?? TIMEOUT_S, side === 'A' ? 1 : effects[keys.indexOf(side)]![index(x.name)]!)),
    cap: (n) => capFor(policy.reference.get(n), TIMEOUT_S, RACING),
    look: raceLook(policy, order.length, TIMEOUT_S),
    settle: raceSettle(policy, TIMEOUT_S, level),
  });
  const evaluated: Evaluated[] = keys.map((key, k) => {
    const s = out.b.get(key)!;
    const survived = !s.dropped;
    const a = order.flatMap((i) => (out.a.has(i.name) && s.results.has(i.name) ? [out.a.get(i.name)!] : []));
    const b = order.flatMap((i) => (s.results.has(i.name) ? [s.results.get(i.name)!] : []));
    const json = { verdict: 'pass', race: { outcome: survived ? 'survived' : 'rejected early', ran: b.length, of: order.length, reason: s.dropped?.reason ?? '' } } as Partial<EvalDoc> as EvalDoc;
    return { candidate: k + 1, json, cmp: survived ? compareRuns(a, b, TIMEOUT_S, { alpha: 2 * level, on: ON }) : undefined };
  });
  const d = greedyAccept(evaluated, 0, MIN_IMPROVEMENT_PCT, 2 * level);
  return { winner: d.winner === null ? null : d.winner - 1, rejectedEarly: keys.map((k) => (out.b.get(k)!.dropped?.after ?? Infinity) < order.length), championCost: cost(out.a.values()), challengerCost: keys.map((k) => cost(out.b.get(k)!.results.values())) };
}

/** One workspace: its stored champion measurement (the race's order and caps), then `CYCLES` cycles of the same challengers. */
async function workspace(n: number, seed: number, speeds: number[]): Promise<{ outcomes: CycleOutcome[]; unit: number }> {
  const w = world(n, seed);
  const stored = w.times.map((_, i) => run(w, i, 1, session(w), TIMEOUT_S));
  // One evaluation of the champion: its expected CPU time over the set.
  const unit = w.times.reduce((s, t) => s + Math.min(t, TIMEOUT_S), 0);
  const outcomes: CycleOutcome[] = [];
  for (let c = 0; c < CYCLES; c++) outcomes.push(await cycle(w, stored, speeds));
  return { outcomes, unit };
}

const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const meanOf = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
const total = (o: CycleOutcome) => o.championCost + o.challengerCost.reduce((s, c) => s + c, 0);

async function main(): Promise<void> {
  console.log(`decision simulator: ${WORKSPACES} workspaces x ${CYCLES} cycles per row, lambda = ${LAMBDA}, noise ${NOISE === 'mixed' ? 'mixed 2-15%' : `${NOISE}%`} per run, session drift ${pct(DRIFT_LO, 0)}-${pct(DRIFT_HI, 0)}, ${pct(UNSOLVABLE, 0)} unsolvable, timeout ${TIMEOUT_S} s, decided on ${ON} time, racing for ${RACING.detect_gain_pct}% gains, effects spread ${SPREAD} (log sd) over instances, promotion level ${promotionLevel(ALPHA, LAMBDA).toPrecision(2)} per challenger, seed ${SEED}`);
  for (const n of SIZES) {
    console.log(`\n-- ${n} instances`);
    // A/A: every challenger behaves exactly like the champion.
    const aa = await Promise.all(Array.from({ length: WORKSPACES }, (_, k) => workspace(n, SEED * 100003 + n * 1009 + k, Array(LAMBDA).fill(1))));
    const rates = aa.map((x) => x.outcomes.filter((o) => o.winner !== null).length / x.outcomes.length);
    const mean = meanOf(rates);
    const units = (x: { outcomes: CycleOutcome[]; unit: number }, pick: (o: CycleOutcome) => number[]) => x.outcomes.flatMap(pick).map((s) => s / x.unit);
    const rejected = aa.flatMap((x) => units(x, (o) => o.challengerCost.filter((_, k) => o.rejectedEarly[k])));
    const perCycle = aa.flatMap((x) => units(x, (o) => [total(o)]));
    const dropped = aa.flatMap((x) => x.outcomes.flatMap((o) => o.rejectedEarly)).filter(Boolean).length;
    console.log(`A/A: false promotions per decision ${pct(mean, 2)} (90th percentile over workspaces ${pct(quantile(rates, 0.9), 1)}, worst ${pct(Math.max(...rates), 1)}: one workspace resolves ${pct(1 / CYCLES, 1)}); per 20 cycles ${pct(1 - (1 - mean) ** 20)}`);
    console.log(`     CPU per cycle ${meanOf(perCycle).toFixed(2)} champion evaluations; per challenger dropped early ${meanOf(rejected).toFixed(2)} (${dropped} of ${aa.length * CYCLES * LAMBDA} dropped early)`);
    if (ONLY_AA) continue;
    for (const g of GAINS) {
      // One challenger with a true gain g, the others like the champion.
      const speeds = [1 - g, ...Array(LAMBDA - 1).fill(1)];
      const ws = await Promise.all(Array.from({ length: WORKSPACES }, (_, k) => workspace(n, SEED * 200003 + n * 1013 + k + Math.round(1000 * g), speeds)));
      const outs = ws.flatMap((x) => x.outcomes);
      const power = outs.filter((o) => o.winner === 0).length / outs.length;
      const wrong = outs.filter((o) => o.winner !== null && o.winner !== 0).length / outs.length;
      const lost = outs.filter((o) => o.rejectedEarly[0]).length / outs.length;
      const cpu = ws.flatMap((x) => units(x, (o) => [total(o)]));
      const loser = ws.flatMap((x) => units(x, (o) => o.challengerCost.slice(1).filter((_, k) => o.rejectedEarly[k + 1])));
      console.log(`${pct(g, 0).padStart(3)} gain: promoted ${pct(power)} (another challenger ${pct(wrong)}); the real gain dropped early ${pct(lost)}; CPU per cycle ${meanOf(cpu).toFixed(2)}, per dropped no-gain challenger ${meanOf(loser).toFixed(2)} champion evaluations`);
    }
    // Mixed: true gains of 0, 10% and 20% (the last the best): which one is promoted.
    const mixed = await Promise.all(Array.from({ length: WORKSPACES }, (_, k) => workspace(n, SEED * 300007 + n * 1019 + k, [1, 0.9, 0.8, ...Array(Math.max(0, LAMBDA - 3)).fill(1)])));
    const mouts = mixed.flatMap((x) => x.outcomes);
    console.log(`gains 0/10/20%: promoted the 20% one ${pct(mouts.filter((o) => o.winner === 2).length / mouts.length)}, the 10% one ${pct(mouts.filter((o) => o.winner === 1).length / mouts.length)}, the 0% one ${pct(mouts.filter((o) => o.winner === 0).length / mouts.length)}; CPU per cycle ${meanOf(mixed.flatMap((x) => units(x, (o) => [total(o)]))).toFixed(2)}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
