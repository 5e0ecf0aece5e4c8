// Benchmark: the decision rules' error rates and cost, by simulation. Synthetic solvers (instance times
// log-uniform 0.05-30 s, a share unsolvable, per-run noise, session drift), seeded, driven through the
// real decision code as a cycle chains it: the race's order and caps (race.ts raceOrder, capFor), the
// session scheduler with the futility rule and the last word on capped survivors (scheduler.ts
// runSession, race.ts raceLook, raceSettle, raceAgain: the second runs where a survivor's margin is in doubt),
// (comparison.ts compareRuns, decide/againstChampion.ts promotionLevel) and the promotion rule (decide/promotionRule.ts
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
// BENCH_SCENARIO=name[,name...] runs named scenarios instead, one challenger of the kind against the
// champion beside LAMBDA - 1 challengers like the champion, BENCH_DECISIONS (2500) decisions over up to
// 50 workspaces, and ends each with one JSON line (scenario, instances, lambda, decisions, promoted and
// its Wilson 95% interval, evaluations per cycle and per challenger dropped early, in evaluations of the
// champion's perf set, and the challenger's noise-free PAR-2 and geometric-mean change): aa; uniform
// (BENCH_GAIN, 0.1); skew (10% of instances 2.5x slower, the rest faster by as much: the same
// geometric mean, a worse PAR-2); easyfast (20% faster on the easier half, 8% slower on the harder);
// spread (log sd BENCH_SD, 1; gain BENCH_GAIN, none); timeouts (a quarter of the instances beyond the
// 60 s timeout, BENCH_SOLVED_SHARE of them solved, 1); timeouts-sc-12 and -24 (400 instances, 30%
// beyond a 5,000 s timeout, 12 or 24 more solved, identical elsewhere); corrnoise (each lane's core slows
// down and recovers, AR(1), 15% sd); lowcap (cap_factor 1.1). BENCH_INSTANCES sets the size.
import { compareRuns } from '../src/core/decide/comparison';
import type { EvalDoc } from '../src/core/eval/evalDoc';
import { par2Of } from '../src/core/eval/metrics';
import { capFor, firstLook, raceAgain, raceLook, raceOrder, raceSettle, type RacePolicy } from '../src/core/decide/race';
import { heldOutCall, heldOutLook, heldOutPairs } from '../src/core/decide/heldOut';
import type { RankBy } from '../src/core/decide/objectiveTest';
import { runSession, secondRuns, sidePairs } from '../src/core/decide/scheduler';
import { RacingSchema } from '../src/core/config/schema';
import { prng } from '../src/core/stats/prng';
import type { InstanceSpec } from '../src/core/instances/instances';
import type { InstanceResult } from '../src/core/run/result';
import { promotionLevel } from '../src/core/decide/againstChampion';
import { greedyAccept } from '../src/core/decide/promotionRule';
import type { Evaluated } from '../src/core/decide/promotionRule';

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
/** What promotions rank by (BENCH_RANK_BY: par2, solved-then-par2). */
const RANK_BY = (process.env.BENCH_RANK_BY ?? 'par2') as RankBy;
const RACING = RacingSchema.parse({});
/** Lanes of the simulated local runner. */
const LANES = 2;

/** A simulated workspace: its instances' true champion times, their noise, and how far sessions drift. */
interface World {
  times: number[];
  sigma: number[];
  drift: number;
  rnd: () => number;
  timeout: number;
  racing: typeof RACING;
  /** Correlated slowness per lane (log factor, AR(1) from run to run), where the scenario has it: a core that slows down for a while slows both sides of the pairs it runs. */
  lanes?: { log: number[]; keep: number; sd: number };
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
  return { times, sigma, drift: DRIFT_LO + (DRIFT_HI - DRIFT_LO) * rnd(), rnd, timeout: TIMEOUT_S, racing: RACING };
}

const name = (i: number) => `i${String(i).padStart(3, '0')}`;
const index = (instance: string) => Number(instance.slice(1));

/** One session's speed: every run in it is slower or faster by this factor. */
const session = (w: World) => Math.exp(w.drift * normal(w.rnd));

/** A run of a solver `effect` times the champion's true time on this instance, in a session of factor `f` (and on `lane`'s core), stopped at `cap`. */
function run(w: World, i: number, effect: number, f: number, cap: number, lane?: number): InstanceResult {
  let slow = 1;
  if (w.lanes && lane !== undefined) {
    const l = w.lanes;
    l.log[lane] = l.keep * (l.log[lane] ?? 0) + Math.sqrt(1 - l.keep ** 2) * l.sd * normal(w.rnd);
    slow = Math.exp(l.log[lane]!);
  }
  const t = w.times[i]! * effect * f * slow * Math.exp(w.sigma[i]! * normal(w.rnd));
  const solved = t <= cap;
  const time = solved ? t : cap;
  return {
    instance: name(i),
    family: null,
    expected: null,
    expected_from: 'none',
    answer: solved ? 'SAT' : null,
    status: solved ? 'solved' : 'timeout',
    time_s: time,
    cpu_s: time,
    mem_mb: null,
    exit_code: null,
    signal: null,
    check: { kind: 'none', ok: null, time_s: 0, detail: '' },
    detail: '',
  };
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

/** A challenger of `speed` whose effect varies over instances (log sd `spread`, centred: its geometric-mean gain is its speed's), drawn afresh. */
function spreadEffect(w: World, speed: number, spread: number): number[] {
  const z = w.times.map(() => spread * normal(w.rnd));
  const m = z.reduce((s, x) => s + x, 0) / Math.max(1, z.length);
  return z.map((x) => speed * Math.exp(x - m));
}

/** One cycle as the engine runs it: the race (one session), then the promotion rule on the survivors' pairs. `effects`: each challenger's time as a multiple of the champion's, per instance (a function: drawn afresh each cycle). */
async function cycle(w: World, stored: InstanceResult[], effectsOf: () => number[][]): Promise<CycleOutcome> {
  const TIMEOUT_S = w.timeout;
  const RACING = w.racing;
  const instances: InstanceSpec[] = w.times.map((_, i) => ({ name: name(i), file: name(i), family: null, expected: null }));
  const policy: RacePolicy = { reference: new Map(stored.map((r) => [r.instance, par2Of(r, TIMEOUT_S, ON)])), on: ON, racing: RACING };
  const order = raceOrder(instances, policy.reference);
  const effects = effectsOf();
  const keys = effects.map((_, k) => `B${k + 1}`);
  const f = session(w);
  const level = promotionLevel(ALPHA, effects.length);
  const out = await runSession({
    order,
    challengers: keys,
    lanes: LANES,
    block: LANES,
    timeoutS: TIMEOUT_S,
    run: async (side, chunk, o) =>
      chunk.map((x) => run(w, index(x.name), side === 'A' ? 1 : effects[keys.indexOf(side)]![index(x.name)]!, f, o.caps.get(x.name) ?? TIMEOUT_S, o.lane)),
    cap: (n) => capFor(policy.reference.get(n), TIMEOUT_S, RACING),
    look: raceLook(
      policy,
      order.map((i) => i.name),
      {
        of: order.length,
        timeoutS: TIMEOUT_S,
        test: { level, rankBy: RANK_BY, marginPct: MIN_IMPROVEMENT_PCT },
        minInstances: firstLook(instances, RACING.min_instances),
      },
    ),
    settle: raceSettle(policy, TIMEOUT_S, level, RANK_BY),
    again: raceAgain(policy, TIMEOUT_S, level, RANK_BY, MIN_IMPROVEMENT_PCT),
  });
  const evaluated: Evaluated[] = keys.map((key, k) => {
    const s = out.b.get(key)!;
    const survived = !s.dropped;
    const sp = sidePairs(out, key, order);
    const [a, b] = [sp.map((p) => p.a), sp.map((p) => p.b)];
    const json = {
      verdict: 'pass',
      race: { outcome: survived ? 'survived' : 'rejected early', ran: b.length, of: order.length, reason: s.dropped?.reason ?? '' },
    } as Partial<EvalDoc> as EvalDoc;
    const again = secondRuns(sp);
    return { candidate: k + 1, json, cmp: survived ? compareRuns(a, b, TIMEOUT_S, { alpha: 2 * level, on: ON, rankBy: RANK_BY, again }) : undefined };
  });
  const d = greedyAccept(evaluated, 0, MIN_IMPROVEMENT_PCT, 2 * level);
  return {
    winner: d.winner === null ? null : d.winner - 1,
    rejectedEarly: keys.map((k) => (out.b.get(k)!.dropped?.after ?? Infinity) < order.length),
    championCost: cost(out.a.values()) + cost(new Set(keys.flatMap((k) => [...out.b.get(k)!.fresh.values(), ...out.b.get(k)!.again.values()].map((f) => f.a)))),
    challengerCost: keys.map((k) => cost(out.b.get(k)!.results.values()) + cost([...out.b.get(k)!.again.values()].map((x) => x.b))),
  };
}

/** One workspace: its stored champion measurement (the race's order and caps), then `cycles` cycles of challengers like `speeds` (with BENCH_SPREAD), or as `effectsOf` draws them. */
async function workspace(
  n: number,
  seed: number,
  speeds: number[],
  o: { world?: World; effectsOf?: (w: World) => number[][]; cycles?: number } = {},
): Promise<{ outcomes: CycleOutcome[]; unit: number }> {
  const w = o.world ?? world(n, seed);
  const stored = w.times.map((_, i) => run(w, i, 1, session(w), w.timeout));
  // One evaluation of the champion: its expected CPU time over the set.
  const unit = w.times.reduce((s, t) => s + Math.min(t, w.timeout), 0);
  const outcomes: CycleOutcome[] = [];
  const effectsOf = o.effectsOf ? () => o.effectsOf!(w) : () => speeds.map((sp) => spreadEffect(w, sp, SPREAD));
  for (let c = 0; c < (o.cycles ?? CYCLES); c++) outcomes.push(await cycle(w, stored, effectsOf));
  return { outcomes, unit };
}

const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : NaN;
};
const meanOf = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
const total = (o: CycleOutcome) => o.championCost + o.challengerCost.reduce((s, c) => s + c, 0);

// ---- Named scenarios (BENCH_SCENARIO): one challenger of a kind, the others like the champion ----

const G = Number(process.env.BENCH_GAIN ?? 0.1);
const SD = Number(process.env.BENCH_SD ?? 1);
const SOLVED_SHARE = Number(process.env.BENCH_SOLVED_SHARE ?? 1);

/** A world whose instances beyond the timeout are `beyond` of them (true times 1.5-10x the timeout), the rest log-uniform over [lo, hi] seconds. */
function worldWith(n: number, seed: number, o: { timeout: number; lo: number; hi: number; beyond: number }): World {
  const w = world(n, seed);
  const [lo, hi] = [Math.log(o.lo), Math.log(o.hi)];
  const out = Math.round(o.beyond * n);
  w.times = w.times.map((_, i) =>
    i < out ? o.timeout * Math.exp(Math.log(1.5) + (Math.log(10) - Math.log(1.5)) * w.rnd()) : Math.exp(lo + (hi - lo) * w.rnd()),
  );
  w.timeout = o.timeout;
  return w;
}

/** `k` of `xs`, drawn without replacement (Fisher-Yates). */
function sample<T>(w: World, xs: readonly T[], k: number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(w.rnd() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, k);
}

/** Effects that solve `k` of the champion's timeouts (at 10-90% of the timeout) and are the champion's elsewhere. */
function solvesMore(w: World, k: number): number[] {
  const beyond = w.times.flatMap((t, i) => (t > w.timeout ? [i] : []));
  const chosen = new Set(sample(w, beyond, k));
  return w.times.map((t, i) => (chosen.has(i) ? (w.timeout * (0.1 + 0.8 * w.rnd())) / t : 1));
}

/** What a scenario makes: its world, and the challenger's per-instance effects (drawn afresh each cycle). */
interface Scenario {
  instances: number;
  world: (n: number, seed: number) => World;
  effect: (w: World) => number[];
  /** A challenger that should not be promoted: any promotion is a false one. */
  noGain: boolean;
}

const SCENARIOS: Record<string, Scenario> = {
  aa: { instances: 44, world, effect: (w) => w.times.map(() => 1), noGain: true },
  uniform: { instances: 44, world, effect: (w) => w.times.map(() => 1 - G), noGain: G <= 0 },
  // 10% of the instances 2.5x slower, the rest faster by as much: the same geometric mean, a worse PAR-2.
  skew: {
    instances: 44,
    world,
    effect: (w) => {
      const k = Math.max(1, Math.round(0.1 * w.times.length));
      const slow = new Set(sample(w, [...w.times.keys()], k));
      const fast = 2.5 ** (-k / (w.times.length - k));
      return w.times.map((_, i) => (slow.has(i) ? 2.5 : fast));
    },
    noGain: true,
  },
  // 20% faster on the easier half, 8% slower on the harder half: faster by the geometric mean, slower by PAR-2.
  easyfast: {
    instances: 44,
    world,
    effect: (w) => {
      const median = [...w.times].sort((a, b) => a - b)[w.times.length >> 1]!;
      return w.times.map((t) => (t < median ? 0.8 : 1.08));
    },
    noGain: true,
  },
  spread: { instances: 44, world, effect: (w) => spreadEffect(w, 1 - (process.env.BENCH_GAIN ? G : 0), SD), noGain: !process.env.BENCH_GAIN },
  timeouts: {
    instances: 44,
    world: (n, seed) => worldWith(n, seed, { timeout: TIMEOUT_S, lo: 0.05, hi: 30, beyond: 0.25 }),
    effect: (w) => solvesMore(w, Math.round(SOLVED_SHARE * w.times.filter((t) => t > w.timeout).length)),
    noGain: SOLVED_SHARE <= 0,
  },
  'timeouts-sc-12': {
    instances: 400,
    world: (n, seed) => worldWith(n, seed, { timeout: 5000, lo: 0.5, hi: 4000, beyond: 0.3 }),
    effect: (w) => solvesMore(w, 12),
    noGain: false,
  },
  'timeouts-sc-24': {
    instances: 400,
    world: (n, seed) => worldWith(n, seed, { timeout: 5000, lo: 0.5, hi: 4000, beyond: 0.3 }),
    effect: (w) => solvesMore(w, 24),
    noGain: false,
  },
  // Each lane's core slows down and recovers (AR(1), 15% sd, from run to run): both sides of a pair on one lane share it.
  corrnoise: {
    instances: 44,
    world: (n, seed) => ({ ...world(n, seed), lanes: { log: [], keep: 0.9, sd: 0.15 } }),
    effect: (w) => w.times.map(() => 1),
    noGain: true,
  },
  lowcap: {
    instances: 44,
    world: (n, seed) => ({ ...world(n, seed), racing: RacingSchema.parse({ cap_factor: 1.1 }) }),
    effect: (w) => w.times.map(() => 1),
    noGain: true,
  },
};

/** The noise-free PAR-2 and geometric-mean change of a challenger's effects in a world, percent (negative: better). */
function trueChange(w: World, effect: number[]): { par2: number; geomean: number } {
  const p2 = (t: number) => (t <= w.timeout ? t : 2 * w.timeout);
  const a = w.times.reduce((s, t) => s + p2(t), 0);
  const b = w.times.reduce((s, t, i) => s + p2(t * effect[i]!), 0);
  const logs = w.times.map((t, i) => Math.log(p2(t * effect[i]!) / p2(t)));
  return { par2: 100 * (b / a - 1), geomean: 100 * (Math.exp(logs.reduce((s, x) => s + x, 0) / logs.length) - 1) };
}

/** Wilson's 95% interval of a share. */
function wilson(k: number, n: number): [number, number] {
  const z = 1.96;
  const p = k / n;
  const c = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

/** One scenario, BENCH_DECISIONS decisions over up to 50 workspaces; prints a summary and one JSON line. */
async function scenario(name: string): Promise<void> {
  const sc = SCENARIOS[name];
  if (!sc) throw new Error(`no scenario "${name}" (have: ${Object.keys(SCENARIOS).join(', ')})`);
  const n = Number(process.env.BENCH_INSTANCES ?? sc.instances);
  const decisions = Number(process.env.BENCH_DECISIONS ?? 2500);
  const worlds = Math.min(50, decisions);
  const changes: { par2: number; geomean: number }[] = [];
  const ws = await Promise.all(
    Array.from({ length: worlds }, (_, k) => {
      const w = sc.world(n, SEED * 400009 + n * 1021 + k);
      const cycles = Math.floor(decisions / worlds) + (k < decisions % worlds ? 1 : 0);
      return workspace(n, 0, [], {
        world: w,
        cycles,
        effectsOf: (x) => {
          const e = sc.effect(x);
          changes.push(trueChange(x, e));
          return [e, ...Array.from({ length: LAMBDA - 1 }, () => x.times.map(() => 1))];
        },
      });
    }),
  );
  const outs = ws.flatMap((x) => x.outcomes);
  const promoted = outs.filter((o) => (sc.noGain ? o.winner !== null : o.winner === 0)).length;
  const units = (x: { outcomes: CycleOutcome[]; unit: number }, pick: (o: CycleOutcome) => number[]) => x.outcomes.flatMap(pick).map((c) => c / x.unit);
  const perCycle = meanOf(ws.flatMap((x) => units(x, (o) => [total(o)])));
  const perDropped = meanOf(ws.flatMap((x) => units(x, (o) => o.challengerCost.filter((_, k) => o.rejectedEarly[k]))));
  const [lo, hi] = wilson(promoted, outs.length);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const truth = { par2: meanOf(changes.map((c) => c.par2)), geomean: meanOf(changes.map((c) => c.geomean)) };
  console.log(
    `${name}: ${n} instances, lambda ${LAMBDA}, ${outs.length} decisions; the challenger's true PAR-2 change ${truth.par2.toFixed(1)}%, geometric mean ${truth.geomean.toFixed(1)}%; ` +
      `${sc.noGain ? 'promoted anyone' : 'promoted it'} in ${pct(promoted / outs.length, 2)} (95% ${pct(lo, 2)} .. ${pct(hi, 2)}); ${perCycle.toFixed(2)} champion evaluations per cycle, ${perDropped.toFixed(2)} per challenger dropped early`,
  );
  console.log(
    JSON.stringify({
      scenario: name,
      instances: n,
      lambda: LAMBDA,
      decisions: outs.length,
      promoted: r3(promoted / outs.length),
      promoted_ci95: [r3(lo), r3(hi)],
      evals_per_cycle: r3(perCycle),
      evals_per_dropped: Number.isFinite(perDropped) ? r3(perDropped) : null,
      par2_change_pct: r3(truth.par2),
      geomean_change_pct: r3(truth.geomean),
    }),
  );
}

/**
 * The held-out check (scenario `heldout`): a winner BENCH_GAIN faster (0.1; 0: as fast) than the champion
 * on a held-out set of BENCH_INSTANCES (22), side by side in one session as the engine runs it (race.ts
 * heldOutLook as the stop rule, heldOutCall on the pairs it stopped at, or on all of them); prints the
 * share of checks that vetoed it and the check's cost in evaluations of the held-out set.
 */
async function heldOut(): Promise<void> {
  const n = Number(process.env.BENCH_INSTANCES ?? 22);
  const decisions = Number(process.env.BENCH_DECISIONS ?? 2500);
  const worlds = Math.min(50, decisions);
  let vetoed = 0;
  let spent = 0;
  for (let k = 0; k < worlds; k++) {
    const w = world(n, SEED * 500009 + n * 1031 + k);
    const unit = w.times.reduce((s, t) => s + Math.min(t, w.timeout), 0);
    const instances: InstanceSpec[] = w.times.map((_, i) => ({ name: name(i), file: name(i), family: null, expected: null }));
    const order = raceOrder(instances, new Map());
    const minInstances = firstLook(instances, RACING.min_instances);
    const stop = heldOutLook(order.length, w.timeout, ON, minInstances, RANK_BY);
    for (let c = 0; c < Math.floor(decisions / worlds) + (k < decisions % worlds ? 1 : 0); c++) {
      const f = session(w);
      const out = await runSession({
        order,
        challengers: ['B'],
        lanes: LANES,
        block: LANES,
        timeoutS: w.timeout,
        run: async (side, chunk, o) => chunk.map((x) => run(w, index(x.name), side === 'A' ? 1 : 1 - G, f, w.timeout, o.lane)),
        look: (_side, pairs) => stop(pairs),
      });
      const s = out.b.get('B')!;
      const pairs = sidePairs(out, 'B', order);
      const judged = heldOutPairs(pairs.slice(0, s.dropped?.after ?? pairs.length), w.timeout, ON);
      if (heldOutCall(judged, order.length, minInstances, RANK_BY).slower) vetoed++;
      spent += (cost(out.a.values()) + cost(s.results.values())) / unit;
    }
  }
  const [lo, hi] = wilson(vetoed, decisions);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  console.log(
    `heldout: ${n} held-out instances, a winner ${(100 * G).toFixed(0)}% faster there, ${decisions} checks; vetoed in ${pct(vetoed / decisions, 2)} (95% ${pct(lo, 2)} .. ${pct(hi, 2)}); ${(spent / decisions).toFixed(2)} held-out evaluations per check`,
  );
  console.log(
    JSON.stringify({
      scenario: 'heldout',
      instances: n,
      gain: G,
      decisions,
      vetoed: r3(vetoed / decisions),
      vetoed_ci95: [r3(lo), r3(hi)],
      evals_per_check: r3(spent / decisions),
    }),
  );
}

async function main(): Promise<void> {
  if (process.env.BENCH_SCENARIO) {
    for (const name of process.env.BENCH_SCENARIO.split(',')) await (name.trim() === 'heldout' ? heldOut() : scenario(name.trim()));
    return;
  }
  console.log(
    `decision simulator: ${WORKSPACES} workspaces x ${CYCLES} cycles per row, lambda = ${LAMBDA}, noise ${NOISE === 'mixed' ? 'mixed 2-15%' : `${NOISE}%`} per run, session drift ${pct(DRIFT_LO, 0)}-${pct(DRIFT_HI, 0)}, ${pct(UNSOLVABLE, 0)} unsolvable, timeout ${TIMEOUT_S} s, decided on ${ON} time, racing for ${RACING.detect_gain_pct}% gains, effects spread ${SPREAD} (log sd) over instances, promotion level ${promotionLevel(ALPHA, LAMBDA).toPrecision(2)} per challenger, seed ${SEED}`,
  );
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
    console.log(
      `A/A: false promotions per decision ${pct(mean, 2)} (90th percentile over workspaces ${pct(quantile(rates, 0.9), 1)}, worst ${pct(Math.max(...rates), 1)}: one workspace resolves ${pct(1 / CYCLES, 1)}); per 20 cycles ${pct(1 - (1 - mean) ** 20)}`,
    );
    console.log(
      `     CPU per cycle ${meanOf(perCycle).toFixed(2)} champion evaluations; per challenger dropped early ${meanOf(rejected).toFixed(2)} (${dropped} of ${aa.length * CYCLES * LAMBDA} dropped early)`,
    );
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
      console.log(
        `${pct(g, 0).padStart(3)} gain: promoted ${pct(power)} (another challenger ${pct(wrong)}); the real gain dropped early ${pct(lost)}; CPU per cycle ${meanOf(cpu).toFixed(2)}, per dropped no-gain challenger ${meanOf(loser).toFixed(2)} champion evaluations`,
      );
    }
    // Mixed: true gains of 0, 10% and 20% (the last the best): which one is promoted.
    const mixed = await Promise.all(
      Array.from({ length: WORKSPACES }, (_, k) => workspace(n, SEED * 300007 + n * 1019 + k, [1, 0.9, 0.8, ...Array(Math.max(0, LAMBDA - 3)).fill(1)])),
    );
    const mouts = mixed.flatMap((x) => x.outcomes);
    console.log(
      `gains 0/10/20%: promoted the 20% one ${pct(mouts.filter((o) => o.winner === 2).length / mouts.length)}, the 10% one ${pct(mouts.filter((o) => o.winner === 1).length / mouts.length)}, the 0% one ${pct(mouts.filter((o) => o.winner === 0).length / mouts.length)}; CPU per cycle ${meanOf(mixed.flatMap((x) => units(x, (o) => [total(o)]))).toFixed(2)}`,
    );
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
