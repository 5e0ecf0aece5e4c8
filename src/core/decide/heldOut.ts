// The held-out check's rules (ARCHITECTURE.md, "The path of a cycle", decide): a winner and the
// champion side by side on a set that took no part in selection, judged on the whole set; a veto only
// where the winner is shown worse there.
import type { InstanceResult } from '../run/result';
import { par2Of, type TimeBasis } from '../eval/metrics';
import { pairTimes, type DuelDoc } from './duels';
import { objectiveTest, runNoise, type RankBy, type TestPair } from './objectiveTest';
import { pairsBasis } from './race';
import { pPhrase } from '../explain';

/**
 * The held-out check's veto error: a winner no worse than the champion on the held-out set (in expected
 * PAR-2, and ranked solved first in solved instances) is vetoed in at most this share of checks.
 */
export const HELD_OUT_VETO = 0.01;

/** The held-out check's error in calling a winner faster there: one no better there is called faster in at most this share of checks. */
export const HELD_OUT_PASS = 0.005;

/** The held-out check's judgement: faster there, slower there, or not known. */
export interface HeldOutCall {
  stop: boolean;
  /** true: significantly worse on the held-out set (a veto); false: faster there; undefined: not known. */
  slower: boolean | undefined;
  /** The PAR-2 gain there, percent of the champion's (positive: faster). */
  gainPct: number;
  reason: string;
}

/**
 * The held-out check (heldOutCheck.ts): the winner and the champion side by side on the whole held-out
 * set, judged once, at its end, by the promotion test (objectiveTest.ts: expected PAR-2 against the run
 * noise, and solved instances where they rank first). It vetoes when the test finds the winner worse at
 * HELD_OUT_VETO, and calls it faster when it finds it better at HELD_OUT_PASS; a winner not shown worse
 * passes. No look before the end: the held-out set has no champion times to order it by difficulty, so
 * a prefix is no sample of it, and a winner slower on the easy instances and faster near the limit
 * would be vetoed on the easy ones it met first (and a loser passed on them).
 */
export function heldOutCall(pairs: readonly TestPair[], of: number, rankBy: RankBy, timeoutS: number): HeldOutCall {
  const n = pairs.length;
  if (n < of || n === 0) return { stop: false, slower: undefined, gainPct: 0, reason: `after ${n} of ${of} instances: judged at the end` };
  const test = objectiveTest(pairs, rankBy, { timeoutS, sigma: runNoise(pairs) });
  const gainPct = test.gain_pct;
  const way = `PAR-2 ${Math.abs(gainPct).toFixed(1)}% ${gainPct >= 0 ? 'lower' : 'higher'}`;
  const what = rankBy === 'par2' ? 'in expected PAR-2' : 'in solved instances or expected PAR-2';
  if (test.p_worse < HELD_OUT_VETO)
    return {
      stop: true,
      slower: true,
      gainPct,
      reason: `on all ${of} instances, worse than the champion there: ${way} (the test of worse ${what} gives ${pPhrase(test.p_worse)}, under the ${HELD_OUT_VETO} a veto needs)`,
    };
  if (test.p < HELD_OUT_PASS) return { stop: true, slower: false, gainPct, reason: `on all ${of} instances, ${way}: better ${what} (${pPhrase(test.p)})` };
  return {
    stop: true,
    slower: undefined,
    gainPct,
    reason: `on all ${of} instances, not shown worse than the champion there: ${way} (the test of worse gives ${pPhrase(test.p_worse)}, a veto needs under ${HELD_OUT_VETO})`,
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

/**
 * The call that stopped a held-out duel early, which only the rule before this one did (it looked after
 * each pair): kept as it was made, a veto where it found the winner worse, else not known. Undefined
 * for a duel that ran the whole set.
 */
export function heldOutStop(d: DuelDoc): HeldOutCall | undefined {
  if (!d.stopped) return undefined;
  const worse = /instances worse than the champion there/.test(d.stopped.reason);
  return { stop: true, slower: worse ? true : undefined, gainPct: 0, reason: d.stopped.reason };
}

/** The held-out check's word on a duel that ran the whole set: vetoed only if shown worse there (heldOutCall). */
export function heldOutEnd(d: DuelDoc, rankBy: RankBy): HeldOutCall {
  return heldOutCall(duelTestPairs(d, d.pairs.length), d.pairs.length, rankBy, d.timeout_s);
}

/** The first `upTo` pairs of a duel as the tests see them. */
function duelTestPairs(d: DuelDoc, upTo: number): TestPair[] {
  return d.pairs.slice(0, upTo).map((p) => {
    const [a, b] = pairTimes(p, d.timeout_s, d.on);
    return { a, b, solvedA: p.a.status === 'solved', solvedB: p.b.status === 'solved' };
  });
}
