// The held-out check's rules (ARCHITECTURE.md, "The path of a cycle", decide): a winner and the
// champion side by side on a set that took no part in selection, judged after each pair from the first
// look on, stopped as soon as it can tell; a veto only where the winner is shown worse there.
import type { InstanceResult } from '../run/result';
import { par2Of, type TimeBasis } from '../eval/metrics';
import { pairTimes, type DuelDoc } from './duels';
import { objectiveTest, type RankBy, type TestPair } from './objectiveTest';
import { INTERVAL_LEVEL, pairsBasis, speedupInterval } from './race';

/**
 * The held-out check's veto error: a winner no worse than the champion on the held-out set is vetoed in
 * at most this share of checks (the level is split evenly among the looks that may veto).
 */
export const HELD_OUT_VETO = 0.01;

/** The fewest held-out instances with which the check can veto at all: all pairs worse (p = 2^-n) under HELD_OUT_VETO shared among the looks from the first. */
export function heldOutVetoNeeds(minInstances: number): number {
  const first = Math.max(2, minInstances);
  let n = first;
  while (2 ** -n >= HELD_OUT_VETO / (n - first + 1) && n < 64) n++;
  return n;
}

/** The held-out check's judgement on the pairs so far: faster there, slower there, or not known. */
export interface HeldOutCall {
  stop: boolean;
  /** true: significantly worse on the held-out set (a veto); false: faster there; undefined: not known. */
  slower: boolean | undefined;
  speedupPct: number;
  reason: string;
}

/**
 * The held-out check, sequential (heldOutCheck.ts): the winner and the champion side by side on the
 * held-out set, from `minInstances` pairs on. It stops with a pass as soon as a t-interval of the mean
 * log time ratio lies above 0 (clearly faster: more runs could only lead to a pass), and with a veto as
 * soon as the promotion test's mirror (`p_worse`, the winner worse on `rankBy`) is under HELD_OUT_VETO
 * shared among the looks; at the end, a winner not shown worse passes. So a winner no worse there is
 * vetoed in at most HELD_OUT_VETO of checks, whatever its gain on the perf set.
 */
export function heldOutCall(pairs: readonly TestPair[], of: number, minInstances: number, rankBy: RankBy): HeldOutCall {
  const {
    n,
    speedupPct,
    lowerPct: lo,
  } = speedupInterval(
    pairs.map((p) => ({ champion: p.a, challenger: p.b })),
    minInstances,
  );
  if (n < Math.max(2, minInstances)) return { stop: false, slower: undefined, speedupPct, reason: '' };
  const conf = `${(100 * (1 - INTERVAL_LEVEL)).toFixed(1)}%`;
  if (lo !== null && lo > 0)
    return {
      stop: true,
      slower: false,
      speedupPct,
      reason: `after ${n} of ${of} instances ${speedupPct.toFixed(1)}% faster (geometric mean), at least ${lo.toFixed(1)}% at ${conf} confidence`,
    };
  const perLook = HELD_OUT_VETO / Math.max(1, of - Math.max(2, minInstances) + 1);
  const worse = objectiveTest(pairs, rankBy).p_worse;
  const way = speedupPct >= 0 ? `${speedupPct.toFixed(1)}% faster` : `${(-speedupPct).toFixed(1)}% slower`;
  if (worse < perLook)
    return {
      stop: true,
      slower: true,
      speedupPct,
      reason: `after ${n} of ${of} instances worse than the champion there (${way} as a geometric mean; the test of worse ${rankBy === 'par2' ? 'in PAR-2 or instance by instance' : 'in solved instances, PAR-2 or instance by instance'} gives p = ${worse.toPrecision(2)}, under the ${perLook.toPrecision(2)} each look may veto at)`,
    };
  return {
    stop: false,
    slower: undefined,
    speedupPct,
    reason: `after ${n} of ${of} instances not shown worse than the champion there (${way} as a geometric mean; the test of worse gives p = ${worse.toPrecision(2)}, a veto needs under ${perLook.toPrecision(2)})`,
  };
}

/** A session pair's runs as the tests see them on `on` (complete runs: no caps). */
export const heldOutPairs = (pairs: readonly { a: InstanceResult; b: InstanceResult }[], timeoutS: number, on: TimeBasis): TestPair[] => {
  const basis = pairsBasis(on, pairs);
  return pairs.map((p) => ({
    a: par2Of(p.a, timeoutS, basis),
    b: par2Of(p.b, timeoutS, basis),
    solvedA: p.a.status === 'solved',
    solvedB: p.b.status === 'solved',
  }));
};

/** The held-out check as a duel's stop rule (measureTogether.ts stopWhen): stop the session once heldOutCall can tell. */
export function heldOutLook(
  of: number,
  timeoutS: number,
  on: TimeBasis,
  minInstances: number,
  rankBy: RankBy,
): (pairs: readonly { a: InstanceResult; b: InstanceResult }[]) => string | undefined {
  return (pairs) => {
    const call = heldOutCall(heldOutPairs(pairs, timeoutS, on), of, minInstances, rankBy);
    return call.stop ? call.reason : undefined;
  };
}

/**
 * The call that stopped a sequential held-out duel, judged again on the pairs it was made on: the first
 * `stopped.after` of the order. Lanes run a few instances past the look, so the kept pairs can say less
 * than the stop did, and a veto must not turn into "not known" on the extra pairs.
 */
export function heldOutStop(d: DuelDoc, minInstances: number, rankBy: RankBy): HeldOutCall | undefined {
  if (!d.stopped) return undefined;
  return heldOutCall(duelTestPairs(d, d.stopped.after), d.stopped.of, minInstances, rankBy);
}

/** The held-out check's last word on a duel that ran the whole set: vetoed only if shown worse there (heldOutCall). */
export function heldOutEnd(d: DuelDoc, minInstances: number, rankBy: RankBy): HeldOutCall {
  return heldOutCall(duelTestPairs(d, d.pairs.length), d.pairs.length, minInstances, rankBy);
}

/** The first `upTo` pairs of a duel as the tests see them. */
function duelTestPairs(d: DuelDoc, upTo: number): TestPair[] {
  return d.pairs.slice(0, upTo).map((p) => {
    const [a, b] = pairTimes(p, d.timeout_s, d.on);
    return { a, b, solvedA: p.a.status === 'solved', solvedB: p.b.status === 'solved' };
  });
}
