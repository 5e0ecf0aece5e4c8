// Benchmark: the decision rules' error rates and cost, by simulation. Synthetic solvers, seeded, driven
// through the real decision code as a cycle chains it: the race's order and caps (race.ts raceOrder,
// capFor), the session scheduler with the futility looks and the last word on capped survivors
// (scheduler.ts runSession, race.ts raceLook, raceSettle, raceAgain: the second runs of a survivor's
// instances near the limit and its longest), the comparison (comparison.ts compareRuns,
// againstChampion.ts promotionLevel) and the promotion rule (promotionRule.ts greedyAccept).
// The world: instance times log-uniform over three orders of magnitude, BENCH_BEYOND (0.15) of that
// range past the time limit, so instances near the limit flip between solved and 2T from run to run;
// per-run noise (BENCH_NOISE: log sd in percent, 10; or "mixed", 2-15% per instance); a session factor
// per session (BENCH_DRIFT, 5-10% log sd). Every run a session makes is charged as cost: capped runs,
// runs again in full and second runs included.
// Without BENCH_SCENARIO it prints, for 12, 22 and 44 instances (BENCH_SIZES): false promotions per
// decision (pooled, and the 90th percentile over workspaces) and per 20 cycles, power at 5/10/20% lower
// time everywhere, CPU per cycle in evaluations of the champion's perf set, and with gains 0, 10 and 20%
// in one cycle which one is promoted. BENCH_WORKSPACES (40), BENCH_CYCLES (50 per workspace),
// BENCH_LAMBDA (3), BENCH_SEED (1), BENCH_ONLY (aa: the A/A rows alone).
// BENCH_SCENARIO=name[,name...] runs named scenarios instead: one challenger of the kind against the
// champion beside LAMBDA - 1 challengers like the champion, BENCH_DECISIONS (2500) decisions over up to
// 50 workspaces, each ending with one JSON line (scenario, instances, lambda, decisions, promoted and its
// Wilson 95% interval, evaluations per cycle (and those of the survivors' further rounds among them) and
// per challenger dropped early, the challenger's expected PAR-2 and geometric-mean change). Each
// challenger's PAR-2 change is exact on its own set: its expected PAR-2 under the world's noise (the
// instance's run noise and the session factor), solved for.
// No better in PAR-2: aa (identical); skew (2x faster on the easiest 70%, slower on the rest, PAR-2
// equal); easyfast (2x faster on instances under 1/60 of the limit, slower on the rest, PAR-2 equal);
// bimodal (x0.7 on a random half, slower on the other, PAR-2 equal); geoworse (geometric mean 10%
// better, PAR-2 5% worse); corrnoise (identical, each lane's core slowing down and recovering, AR(1), 15%
// sd); lowcap (identical, cap_factor 1.1). Winners: uniform (BENCH_GAIN, 10% lower PAR-2 everywhere);
// hard3 (20% lower PAR-2, all of it on the hardest third); par2win (10% lower PAR-2, 1.3x slower on the
// easiest 70%); solves-24 and solves-12 (400 instances, 25% beyond a 5,000 s limit: 24 or 12 more of the
// champion's timeouts solved, identical elsewhere); solves-2 (the base world's 44 instances, two of the
// champion's six or seven timeouts solved: a gain the first looks may not meet). BENCH_INSTANCES sets
// the size, BENCH_BEYOND the share beyond the limit. Families (the family rule, decide/familyCheck.ts):
// worlds with their instances dealt at random into families f1..f5 of 8, 8, 8, 8 and 12
// (BENCH_FAMILIES); fam-aa (identical); fam-uniform (BENCH_GAIN lower PAR-2 everywhere); fam-loser (15%
// higher PAR-2 on f1, 20% lower on the rest, BENCH_REST_GAIN); fam-loser2 (the same with families 4,
// 4, 8, 8, 8, 12, f1 and f2 each 15% slower).
// BENCH_WITH_FAMILIES=1 deals any scenario's world into families; BENCH_FAMILY_RULE=off reports
// without vetoing; BENCH_FAMILY_ERROR and BENCH_FAMILY_MIN set the rule's error and least instances.
// BENCH_SCENARIO=heldout measures the held-out check (below).
import { compareRuns } from '../src/core/decide/comparison';
import type { EvalDoc } from '../src/core/eval/evalDoc';
import { par2Of } from '../src/core/eval/metrics';
import { capFor, firstLook, raceAgain, raceLook, raceOrder, raceSettle, type RacePolicy } from '../src/core/decide/race';
import { heldOutAgain, heldOutCall, heldOutPairs } from '../src/core/decide/heldOut';
import { runModel, type RankBy } from '../src/core/decide/objectiveTest';
import { runSession, furtherRuns, sidePairs } from '../src/core/decide/scheduler';
import { RacingSchema } from '../src/core/config/schema';
import { prng } from '../src/core/stats/prng';
import type { InstanceSpec } from '../src/core/instances/instances';
import type { InstanceResult } from '../src/core/run/result';
import { promotionLevel } from '../src/core/decide/againstChampion';
import { greedyAccept } from '../src/core/decide/promotionRule';
import type { Evaluated } from '../src/core/decide/promotionRule';
import { DEFAULT_FAMILY_RULE, type FamilyRule } from '../src/core/decide/familyCheck';

const WORKSPACES = Number(process.env.BENCH_WORKSPACES ?? 40);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 50);
const LAMBDA = Number(process.env.BENCH_LAMBDA ?? 3);
const SIZES = (process.env.BENCH_SIZES ?? '12,22,44').split(',').map(Number);
const NOISE = process.env.BENCH_NOISE ?? '10';
const [DRIFT_LO, DRIFT_HI] = (process.env.BENCH_DRIFT ?? '5-10').split('-').map((x) => Number(x) / 100) as [number, number];
const BEYOND = Number(process.env.BENCH_BEYOND ?? 0.15);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const ONLY_AA = process.env.BENCH_ONLY === 'aa';
const GAINS = [0.05, 0.1, 0.2];
const TIMEOUT_S = 60;
const ALPHA = 0.05;
const MIN_IMPROVEMENT_PCT = 5;
const ON = 'cpu' as const;
/** What promotions rank by (BENCH_RANK_BY: par2, solved-then-par2). */
const RANK_BY = (process.env.BENCH_RANK_BY ?? 'par2') as RankBy;
/** The race's settings (BENCH_RACING=off: no futility looks, every challenger runs the whole set). */
const RACING = RacingSchema.parse(process.env.BENCH_RACING === 'off' ? { enabled: false } : {});
/** The family rule (BENCH_FAMILY_RULE=off: figures only, no veto; BENCH_FAMILY_ERROR, BENCH_FAMILY_MIN override its error and least instances). */
const FAMILY_RULE: FamilyRule = {
  ...DEFAULT_FAMILY_RULE,
  veto: process.env.BENCH_FAMILY_RULE !== 'off',
  ...(process.env.BENCH_FAMILY_ERROR ? { error: Number(process.env.BENCH_FAMILY_ERROR) } : {}),
  ...(process.env.BENCH_FAMILY_MIN ? { min_instances: Number(process.env.BENCH_FAMILY_MIN) } : {}),
};
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
  /** Each instance's family, where the scenario has families (else none). */
  families?: string[];
  /** Correlated slowness per lane (log factor, AR(1) from run to run), where the scenario has it: a core that slows down for a while slows both sides of the pairs it runs. */
  lanes?: { log: number[]; keep: number; sd: number };
}

/** A standard normal draw (Box-Muller). */
function normal(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

const ones = (w: World) => w.times.map(() => 1);

/** A world of `n` instances whose times are log-uniform over three orders of magnitude, `beyond` of that range past the limit. */
function world(n: number, seed: number, o: { timeout?: number; beyond?: number } = {}): World {
  const rnd = prng(seed);
  const timeout = o.timeout ?? TIMEOUT_S;
  const hi = Math.log(timeout) + 3 * Math.LN10 * (o.beyond ?? BEYOND);
  const lo = hi - 3 * Math.LN10;
  const times = Array.from({ length: n }, () => Math.exp(lo + (hi - lo) * rnd()));
  const sigma = Array.from({ length: n }, () => (NOISE === 'mixed' ? 0.02 + 0.13 * rnd() : Number(NOISE) / 100));
  return { times, sigma, drift: DRIFT_LO + (DRIFT_HI - DRIFT_LO) * rnd(), rnd, timeout, racing: RACING };
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
    family: w.families?.[i] ?? null,
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
  /** CPU seconds of every run the session made: the champion's, and each challenger's. */
  championCost: number;
  challengerCost: number[];
  /** CPU seconds of the survivors' further rounds (raceAgain), both sides, included in the costs above. */
  roundsCost: number;
}

/** One cycle as the engine runs it: the race (one session), then the promotion rule on the survivors' pairs. `effects`: each challenger's time as a multiple of the champion's, per instance (a function: drawn afresh each cycle). */
async function cycle(w: World, stored: InstanceResult[], effectsOf: () => number[][]): Promise<CycleOutcome> {
  const TIMEOUT_S = w.timeout;
  const RACING = w.racing;
  const instances: InstanceSpec[] = w.times.map((_, i) => ({ name: name(i), file: name(i), family: w.families?.[i] ?? null, expected: null }));
  const policy: RacePolicy = { reference: new Map(stored.map((r) => [r.instance, par2Of(r, TIMEOUT_S, ON)])), on: ON, racing: RACING };
  const order = raceOrder(instances, policy.reference);
  const effects = effectsOf();
  const keys = effects.map((_, k) => `B${k + 1}`);
  const f = session(w);
  const level = promotionLevel(ALPHA, effects.length);
  const spent = new Map<string, number>();
  const out = await runSession({
    order,
    challengers: keys,
    lanes: LANES,
    block: LANES,
    timeoutS: TIMEOUT_S,
    run: async (side, chunk, o) => {
      const rs = chunk.map((x) =>
        run(w, index(x.name), side === 'A' ? 1 : effects[keys.indexOf(side)]![index(x.name)]!, f, o.caps.get(x.name) ?? TIMEOUT_S, o.lane),
      );
      spent.set(side, (spent.get(side) ?? 0) + cost(rs));
      return rs;
    },
    cap: (n) => capFor(policy.reference.get(n), TIMEOUT_S, RACING),
    look: !RACING.enabled
      ? undefined
      : raceLook(
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
    again: raceAgain(policy, TIMEOUT_S, RANK_BY, { level, marginPct: MIN_IMPROVEMENT_PCT, families: FAMILY_RULE }),
  });
  // The survivors' further runs; A's run of an instance serves every B that asked for it: one object, counted once.
  const roundRuns = new Set<InstanceResult>();
  const evaluated: Evaluated[] = keys.map((key, k) => {
    const s = out.b.get(key)!;
    const survived = !s.dropped;
    const sp = sidePairs(out, key, order);
    const [a, b] = [sp.map((p) => p.a), sp.map((p) => p.b)];
    const json = {
      verdict: 'pass',
      race: { outcome: survived ? 'survived' : 'rejected early', ran: b.length, of: order.length, reason: s.dropped?.reason ?? '' },
    } as Partial<EvalDoc> as EvalDoc;
    const again = furtherRuns(sp);
    for (const runs of again.values()) for (const x of runs) roundRuns.add(x.a).add(x.b);
    return {
      candidate: k + 1,
      json,
      cmp: survived ? compareRuns(a, b, TIMEOUT_S, { alpha: 2 * level, on: ON, rankBy: RANK_BY, again, families: FAMILY_RULE }) : undefined,
    };
  });
  const d = greedyAccept(evaluated, 0, MIN_IMPROVEMENT_PCT);
  return {
    roundsCost: cost(roundRuns),
    winner: d.winner === null ? null : d.winner - 1,
    rejectedEarly: keys.map((k) => (out.b.get(k)!.dropped?.after ?? Infinity) < order.length),
    championCost: spent.get('A') ?? 0,
    challengerCost: keys.map((k) => spent.get(k) ?? 0),
  };
}

/** One workspace: its stored champion measurement (the race's order and caps), then `cycles` cycles of challengers `speeds` times the champion's time everywhere, or as `effectsOf` draws them. */
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
  const effectsOf = o.effectsOf ? () => o.effectsOf!(w) : () => speeds.map((sp) => w.times.map(() => sp));
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

/** A challenger's expected PAR-2 on its world's set (or on the instances of `on`): each instance's under its run noise and the session factor. */
function expectedPar2(w: World, effect: readonly number[], on?: readonly boolean[]): number {
  return w.times.reduce(
    (s, t, i) => s + (on && !on[i] ? 0 : runModel(t * effect[i]!, { timeoutS: w.timeout, sigma: Math.hypot(w.sigma[i]!, w.drift) }).mean),
    0,
  );
}

/**
 * Effects `base`, with the instances of `scaled` times a factor solved for so that the expected PAR-2 is
 * `target` times the champion's (on the whole set, or on the instances of `on`); null where no factor in
 * 1/50..50 reaches it.
 */
function solveFor(w: World, base: readonly number[], scaled: readonly boolean[], target: number, on?: readonly boolean[]): number[] | null {
  const goal = target * expectedPar2(w, ones(w), on);
  const at = (c: number) => base.map((b, i) => (scaled[i] ? b * c : b));
  let [lo, hi] = [Math.log(1 / 50), Math.log(50)];
  if (expectedPar2(w, at(Math.exp(lo)), on) > goal || expectedPar2(w, at(Math.exp(hi)), on) < goal) return null;
  for (let k = 0; k < 60; k++) {
    const mid = (lo + hi) / 2;
    if (expectedPar2(w, at(Math.exp(mid)), on) > goal) hi = mid;
    else lo = mid;
  }
  return at(Math.exp((lo + hi) / 2));
}

/**
 * Worlds with families: their instances dealt at random (across difficulty) into families of `sizes`
 * (BENCH_FAMILIES overrides them; scaled to the set), named f1, f2, ...
 */
const familyWorld =
  (sizes: readonly number[]) =>
  (n: number, seed: number): World =>
    withFamilies(world(n, seed), sizes);

/** `w` with its instances dealt at random into families of `sizes` (scaled to the set). */
function withFamilies(w: World, sizes: readonly number[]): World {
  const n = w.times.length;
  const scale = n / sizes.reduce((s, x) => s + x, 0);
  const bounds = sizes.map((_, k) => Math.round(scale * sizes.slice(0, k + 1).reduce((s, x) => s + x, 0)));
  const dealt = sample(w, [...w.times.keys()], n);
  const families: string[] = Array.from({ length: n });
  dealt.forEach((i, k) => (families[i] = `f${bounds.findIndex((b) => k < b) + 1}`));
  return { ...w, families };
}
/** Family sizes at 44 instances: four of 8 and one of 12; with two small ones. */
const FAMILIES = (process.env.BENCH_FAMILIES ?? '8,8,8,8,12').split(',').map(Number);
const SMALL_FAMILIES = (process.env.BENCH_FAMILIES ?? '4,4,8,8,8,12').split(',').map(Number);

/**
 * A specialist: `loss` higher expected PAR-2 on the families `losing` (each on its own), and `gain`
 * lower on the other instances (as one).
 */
function specialist(w: World, losing: readonly string[], loss: number, gain: number): number[] | null {
  const fam = w.families ?? [];
  let e: number[] | null = solveFor(
    w,
    ones(w),
    fam.map((f) => !losing.includes(f)),
    1 - gain,
    fam.map((f) => !losing.includes(f)),
  );
  for (const f of losing) {
    const mine = fam.map((x) => x === f);
    e = e && solveFor(w, e, mine, 1 + loss, mine);
  }
  return e;
}

/** The instances' ranks by true time, easiest first: whether each is among the easiest `share`. */
function easiest(w: World, share: number): boolean[] {
  const ranked = [...w.times.keys()].sort((a, b) => w.times[a]! - w.times[b]!);
  const easy = new Set(ranked.slice(0, Math.round(share * w.times.length)));
  return w.times.map((_, i) => easy.has(i));
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

/** The geometric mean of a challenger's expected PAR-2 ratios over the champion's, per instance. */
function geoRatio(w: World, effect: readonly number[]): number {
  const m = (t: number, i: number) => runModel(t, { timeoutS: w.timeout, sigma: Math.hypot(w.sigma[i]!, w.drift) }).mean;
  return Math.exp(w.times.reduce((s, t, i) => s + Math.log(m(t * effect[i]!, i) / m(t, i)), 0) / w.times.length);
}

/** Geoworse: the easiest 70% faster by x, the rest by a factor solved for a PAR-2 5% worse, x found so that the geometric mean is 10% better. */
function geoworse(w: World): number[] | null {
  const easy = easiest(w, 0.7);
  let [lo, hi] = [Math.log(0.05), 0];
  let best: number[] | null = null;
  for (let k = 0; k < 40; k++) {
    const mid = (lo + hi) / 2;
    const e = solveFor(
      w,
      easy.map((q) => (q ? Math.exp(mid) : 1)),
      easy.map((q) => !q),
      1.05,
    );
    if (!e) lo = mid;
    else {
      best = e;
      if (geoRatio(w, e) > 0.9) hi = mid;
      else lo = mid;
    }
  }
  return best && Math.abs(geoRatio(w, best) - 0.9) < 0.01 ? best : null;
}

/** What a scenario makes: its world, and the challenger's per-instance effects (drawn afresh each cycle; null: none such in this world). */
interface Scenario {
  instances: number;
  world: (n: number, seed: number) => World;
  effect: (w: World) => number[] | null;
  /** A challenger that should not be promoted: any promotion is a false one. */
  noGain: boolean;
}

const competition = (n: number, seed: number) => world(n, seed, { timeout: 5000, beyond: 0.25 });

/** BENCH_GAIN (10%) lower expected PAR-2 on every instance alike. */
const uniformGain = (w: World) =>
  solveFor(
    w,
    ones(w),
    w.times.map(() => true),
    1 - G,
  );

const SCENARIOS: Record<string, Scenario> = {
  aa: { instances: 44, world, effect: ones, noGain: true },
  skew: {
    instances: 44,
    world,
    effect: (w) => {
      const easy = easiest(w, 0.7);
      return solveFor(
        w,
        easy.map((q) => (q ? 0.5 : 1)),
        easy.map((q) => !q),
        1,
      );
    },
    noGain: true,
  },
  easyfast: {
    instances: 44,
    world,
    effect: (w) => {
      const fast = w.times.map((t) => t < w.timeout / 60);
      return solveFor(
        w,
        fast.map((q) => (q ? 0.5 : 1)),
        fast.map((q) => !q),
        1,
      );
    },
    noGain: true,
  },
  bimodal: {
    instances: 44,
    world,
    effect: (w) => {
      const half = new Set(sample(w, [...w.times.keys()], Math.round(w.times.length / 2)));
      return solveFor(
        w,
        w.times.map((_, i) => (half.has(i) ? 0.7 : 1)),
        w.times.map((_, i) => !half.has(i)),
        1,
      );
    },
    noGain: true,
  },
  geoworse: { instances: 44, world, effect: geoworse, noGain: true },
  corrnoise: {
    instances: 44,
    world: (n, seed) => ({ ...world(n, seed), lanes: { log: [], keep: 0.9, sd: 0.15 } }),
    effect: ones,
    noGain: true,
  },
  lowcap: { instances: 44, world: (n, seed) => ({ ...world(n, seed), racing: RacingSchema.parse({ cap_factor: 1.1 }) }), effect: ones, noGain: true },
  uniform: { instances: 44, world, effect: uniformGain, noGain: G <= 0 },
  hard3: {
    instances: 44,
    world,
    effect: (w) => {
      const easy = easiest(w, 2 / 3);
      return solveFor(
        w,
        ones(w),
        easy.map((q) => !q),
        0.8,
      );
    },
    noGain: false,
  },
  par2win: {
    instances: 44,
    world,
    effect: (w) => {
      const easy = easiest(w, 0.7);
      return solveFor(
        w,
        easy.map((q) => (q ? 1.3 : 1)),
        easy.map((q) => !q),
        0.9,
      );
    },
    noGain: false,
  },
  'fam-aa': { instances: 44, world: familyWorld(FAMILIES), effect: ones, noGain: true },
  'fam-uniform': { instances: 44, world: familyWorld(FAMILIES), effect: uniformGain, noGain: G <= 0 },
  'fam-loser': {
    instances: 44,
    world: familyWorld(FAMILIES),
    effect: (w) => specialist(w, ['f1'], 0.15, Number(process.env.BENCH_REST_GAIN ?? 0.2)),
    noGain: false,
  },
  'fam-loser2': {
    instances: 44,
    world: familyWorld(SMALL_FAMILIES),
    effect: (w) => specialist(w, ['f1', 'f2'], 0.15, Number(process.env.BENCH_REST_GAIN ?? 0.2)),
    noGain: false,
  },
  'solves-24': { instances: 400, world: competition, effect: (w) => solvesMore(w, 24), noGain: false },
  'solves-12': { instances: 400, world: competition, effect: (w) => solvesMore(w, 12), noGain: false },
  'solves-2': { instances: 44, world, effect: (w) => solvesMore(w, 2), noGain: false },
};

/** The expected PAR-2 and geometric-mean change of a challenger's effects in a world, percent (negative: better). */
function trueChange(w: World, effect: number[]): { par2: number; geomean: number } {
  return { par2: 100 * (expectedPar2(w, effect) / expectedPar2(w, ones(w)) - 1), geomean: 100 * (geoRatio(w, effect) - 1) };
}

/** Wilson's 95% interval of a share. */
function wilson(k: number, n: number): [number, number] {
  const z = 1.96;
  const p = k / n;
  const c = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const h = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

/** A world of the scenario where its challenger exists (some shapes cannot be made PAR-2-equal in every world: the next seed is taken). */
function worldFor(sc: Scenario, n: number, seed: number): World {
  for (let k = 0; ; k++) {
    const plain = sc.world(n, seed + 7919 * k);
    const w = process.env.BENCH_WITH_FAMILIES && !plain.families ? withFamilies(plain, FAMILIES) : plain;
    if (sc.effect({ ...w, rnd: prng(seed + k) })) return w;
    if (k > 50) throw new Error("no world of this size makes the scenario's challenger");
  }
}

/** One scenario, BENCH_DECISIONS decisions over up to 50 workspaces; prints a summary and one JSON line. */
async function scenario(name: string): Promise<void> {
  const sc = SCENARIOS[name];
  if (!sc) throw new Error(`no scenario "${name}" (have: ${Object.keys(SCENARIOS).join(', ')}, heldout)`);
  const n = Number(process.env.BENCH_INSTANCES ?? sc.instances);
  const decisions = Number(process.env.BENCH_DECISIONS ?? 2500);
  const worlds = Math.min(50, decisions);
  const changes: { par2: number; geomean: number }[] = [];
  const ws = await Promise.all(
    Array.from({ length: worlds }, (_, k) => {
      const w = worldFor(sc, n, SEED * 400009 + n * 1021 + k);
      const cycles = Math.floor(decisions / worlds) + (k < decisions % worlds ? 1 : 0);
      return workspace(n, 0, [], {
        world: w,
        cycles,
        effectsOf: (x) => {
          let e = sc.effect(x);
          for (let tries = 0; !e && tries < 100; tries++) e = sc.effect(x);
          if (!e) throw new Error(`scenario ${name}: no challenger in this world`);
          changes.push(trueChange(x, e));
          return [e, ...Array.from({ length: LAMBDA - 1 }, () => ones(x))];
        },
      });
    }),
  );
  const outs = ws.flatMap((x) => x.outcomes);
  const promoted = outs.filter((o) => (sc.noGain ? o.winner !== null : o.winner === 0)).length;
  const units = (x: { outcomes: CycleOutcome[]; unit: number }, pick: (o: CycleOutcome) => number[]) => x.outcomes.flatMap(pick).map((c) => c / x.unit);
  const perCycle = meanOf(ws.flatMap((x) => units(x, (o) => [total(o)])));
  const perDropped = meanOf(ws.flatMap((x) => units(x, (o) => o.challengerCost.filter((_, k) => o.rejectedEarly[k]))));
  const inRounds = meanOf(ws.flatMap((x) => units(x, (o) => [o.roundsCost])));
  const droppedWinner = sc.noGain ? null : outs.filter((o) => o.rejectedEarly[0]).length / outs.length;
  const [lo, hi] = wilson(promoted, outs.length);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  const truth = { par2: meanOf(changes.map((c) => c.par2)), geomean: meanOf(changes.map((c) => c.geomean)) };
  console.log(
    `${name}: ${n} instances, lambda ${LAMBDA}, ${outs.length} decisions; the challenger's expected PAR-2 change ${truth.par2.toFixed(1)}%, geometric mean ${truth.geomean.toFixed(1)}%; ` +
      `${sc.noGain ? 'promoted anyone' : 'promoted it'} in ${pct(promoted / outs.length, 2)} (95% ${pct(lo, 2)} .. ${pct(hi, 2)})${droppedWinner === null ? '' : `, dropped early in ${pct(droppedWinner)}`}; ${perCycle.toFixed(2)} champion evaluations per cycle (${inRounds.toFixed(2)} of them in survivors' further rounds), ${Number.isFinite(perDropped) ? perDropped.toFixed(2) : 'none'} per challenger dropped early`,
  );
  console.log(
    JSON.stringify({
      scenario: name,
      instances: n,
      lambda: LAMBDA,
      beyond: Number(process.env.BENCH_BEYOND ?? (sc.world === competition ? 0.25 : BEYOND)),
      decisions: outs.length,
      promoted: r3(promoted / outs.length),
      promoted_ci95: [r3(lo), r3(hi)],
      ...(droppedWinner === null ? {} : { dropped_early: r3(droppedWinner) }),
      ...(name.startsWith('fam-') ? { family_rule: FAMILY_RULE.veto ? FAMILY_RULE : 'off' } : {}),
      evals_per_cycle: r3(perCycle),
      rounds_evals_per_cycle: r3(inRounds),
      evals_per_dropped: Number.isFinite(perDropped) ? r3(perDropped) : null,
      par2_change_pct: r3(truth.par2),
      geomean_change_pct: r3(truth.geomean),
    }),
  );
}

/**
 * The held-out check (scenario `heldout`): a winner of the kind BENCH_HELDOUT (uniform: BENCH_GAIN lower
 * PAR-2; par2win; geoworse; aa) against the champion on a held-out set of BENCH_INSTANCES (22), side by
 * side in one session as the engine runs it (with the family rounds of heldOut.ts heldOutAgain where the
 * world has families), judged by heldOut.ts heldOutCall on the whole set and its families; prints
 * the share of checks that vetoed it, that called it faster, and the check's cost in evaluations of the
 * held-out set.
 */
async function heldOut(): Promise<void> {
  const kind = process.env.BENCH_HELDOUT ?? 'uniform';
  const sc = SCENARIOS[kind];
  if (!sc) throw new Error(`no scenario "${kind}" for BENCH_HELDOUT`);
  const n = Number(process.env.BENCH_INSTANCES ?? 22);
  const decisions = Number(process.env.BENCH_DECISIONS ?? 2500);
  const worlds = Math.min(50, decisions);
  let [vetoed, faster, spent] = [0, 0, 0];
  for (let k = 0; k < worlds; k++) {
    const w = worldFor(sc, n, SEED * 500009 + n * 1031 + k);
    const unit = w.times.reduce((s, t) => s + Math.min(t, w.timeout), 0);
    const instances: InstanceSpec[] = w.times.map((_, i) => ({ name: name(i), file: name(i), family: w.families?.[i] ?? null, expected: null }));
    const order = raceOrder(instances, new Map());
    for (let c = 0; c < Math.floor(decisions / worlds) + (k < decisions % worlds ? 1 : 0); c++) {
      let e = sc.effect(w);
      for (let tries = 0; !e && tries < 100; tries++) e = sc.effect(w);
      const effect = e!;
      const f = session(w);
      const out = await runSession({
        order,
        challengers: ['B'],
        lanes: LANES,
        block: LANES,
        timeoutS: w.timeout,
        run: async (side, chunk, o) => {
          const rs = chunk.map((x) => run(w, index(x.name), side === 'A' ? 1 : effect[index(x.name)]!, f, w.timeout, o.lane));
          spent += cost(rs) / unit;
          return rs;
        },
        again: heldOutAgain(FAMILY_RULE, RANK_BY, w.timeout, ON),
      });
      const sp = sidePairs(out, 'B', order);
      const families = w.families ? { of: sp.map((p) => p.a.family), rule: FAMILY_RULE } : undefined;
      const call = heldOutCall(heldOutPairs(sp, w.timeout, ON), order.length, RANK_BY, w.timeout, families);
      if (call.slower === true) vetoed++;
      if (call.slower === false) faster++;
    }
  }
  const [lo, hi] = wilson(vetoed, decisions);
  const [flo, fhi] = wilson(faster, decisions);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  console.log(
    `heldout: ${n} held-out instances, a winner of kind ${kind}, ${decisions} checks; vetoed in ${pct(vetoed / decisions, 2)} (95% ${pct(lo, 2)} .. ${pct(hi, 2)}), called faster in ${pct(faster / decisions, 2)} (95% ${pct(flo, 2)} .. ${pct(fhi, 2)}); ${(spent / decisions).toFixed(2)} held-out evaluations per check`,
  );
  console.log(
    JSON.stringify({
      scenario: 'heldout',
      kind,
      instances: n,
      decisions,
      vetoed: r3(vetoed / decisions),
      vetoed_ci95: [r3(lo), r3(hi)],
      faster: r3(faster / decisions),
      faster_ci95: [r3(flo), r3(fhi)],
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
    `decision simulator: ${WORKSPACES} workspaces x ${CYCLES} cycles per row, lambda = ${LAMBDA}, noise ${NOISE === 'mixed' ? 'mixed 2-15%' : `${NOISE}%`} per run, session drift ${pct(DRIFT_LO, 0)}-${pct(DRIFT_HI, 0)}, ${pct(BEYOND, 0)} of the time range past the ${TIMEOUT_S} s timeout, decided on ${ON} time, promotion level ${promotionLevel(ALPHA, LAMBDA).toPrecision(2)} per challenger, seed ${SEED}`,
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
