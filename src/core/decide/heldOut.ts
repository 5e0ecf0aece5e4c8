// The held-out check's rules (ARCHITECTURE.md, "The path of a cycle", decide): a winner and the
// champion side by side on a set that took no part in selection, judged on the whole set and on each
// family; a veto only where the winner is shown worse there, or slower beyond the tolerance on a family.
import type { InstanceResult } from '../run/result';
import { par2Of, type TimeBasis } from '../eval/metrics';
import { pairTimes, type DuelDoc } from './duels';
import { objectiveTest, runNoise, type RankBy, type TestPair } from './objectiveTest';
import { pairsBasis } from './race';
import { pPhrase } from '../explain';
import { familyAgain, familyCheck, familyVeto, familyVetoReason, type FamilyRule } from './familyCheck';
import type { SessionPair } from './scheduler';

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
 * HELD_OUT_VETO, or with `families` (each pair's, and the rule) when a judged family is shown slower
 * beyond the tolerance (familyCheck.ts, at the rule's error); it calls it faster when it finds it better
 * at HELD_OUT_PASS; a winner not shown worse passes. No look before the end: the held-out set has no champion times to order it by difficulty, so
 * a prefix is no sample of it, and a winner slower on the easy instances and faster near the limit
 * would be vetoed on the easy ones it met first (and a loser passed on them).
 */
export function heldOutCall(
  pairs: readonly TestPair[],
  of: number,
  rankBy: RankBy,
  timeoutS: number,
  families?: { of: readonly (string | null)[]; rule: FamilyRule },
): HeldOutCall {
  const n = pairs.length;
  if (n < of || n === 0) return { stop: false, slower: undefined, gainPct: 0, reason: `after ${n} of ${of} instances: judged at the end` };
  const noise = { timeoutS, sigma: runNoise(pairs) };
  const test = objectiveTest(pairs, rankBy, noise);
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
  const fam =
    families &&
    familyCheck(
      pairs.map((pair, k) => ({ family: families.of[k] ?? null, pair })),
      noise,
      families.rule,
    );
  if (familyVeto(fam)) return { stop: true, slower: true, gainPct, reason: `on all ${of} instances, ${way}, but ${familyVetoReason(fam!)}` };
  if (test.p < HELD_OUT_PASS) return { stop: true, slower: false, gainPct, reason: `on all ${of} instances, ${way}: better ${what} (${pPhrase(test.p)})` };
  return {
    stop: true,
    slower: undefined,
    gainPct,
    reason: `on all ${of} instances, not shown worse than the champion there: ${way} (the test of worse gives ${pPhrase(test.p_worse)}, a veto needs under ${HELD_OUT_VETO})`,
  };
}

/** A session pair's runs as the tests see them on `on` (complete runs: no caps), with their further runs where they ran again. */
export const heldOutPairs = (
  pairs: readonly { a: InstanceResult; b: InstanceResult; again?: readonly { a: InstanceResult; b: InstanceResult }[] }[],
  timeoutS: number,
  on: TimeBasis,
): TestPair[] => {
  const basis = pairsBasis(on, pairs);
  const run = (r: InstanceResult) => ({ t: par2Of(r, timeoutS, basis), solved: r.status === 'solved' });
  return pairs.map((p) => ({
    a: par2Of(p.a, timeoutS, basis),
    b: par2Of(p.b, timeoutS, basis),
    solvedA: p.a.status === 'solved',
    solvedB: p.b.status === 'solved',
    ...(p.again?.length ? { again: p.again.map((x) => ({ a: run(x.a), b: run(x.b) })) } : {}),
  }));
};

/**
 * The held-out duel's family rounds (scheduler.ts `again`): while the whole held-out set does not veto
 * the winner, the instances of its families in doubt run again on both sides (familyCheck.ts
 * familyAgain, up to FAMILY_RUNS runs), so a family it is slower on there is seen as the race sees one
 * on the training set. The rounds follow which side was slower in a family, but run only while the
 * whole set does not veto, so they can add a family's veto and never take the whole set's away.
 */
export function heldOutAgain(rule: FamilyRule, rankBy: RankBy, timeoutS: number, on: TimeBasis): (side: string, pairs: readonly SessionPair[]) => string[] {
  return (_side, pairs) => {
    if (!rule.veto) return [];
    const tp = heldOutPairs(pairs, timeoutS, on);
    const noise = { timeoutS, sigma: runNoise(tp) };
    if (objectiveTest(tp, rankBy, noise).p_worse < HELD_OUT_VETO) return [];
    return familyAgain(
      pairs.map((p, k) => ({ family: p.a.family ?? p.b.family, pair: tp[k]! })),
      pairs.map((p) => p.instance),
      noise,
      rule,
    );
  };
}

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

/** The held-out check's word on a duel that ran the whole set: vetoed only if shown worse there, on the whole set or a family (heldOutCall). */
export function heldOutEnd(d: DuelDoc, rankBy: RankBy, rule?: FamilyRule): HeldOutCall {
  const families = rule ? { of: d.pairs.map((p) => p.family ?? null), rule } : undefined;
  return heldOutCall(duelTestPairs(d, d.pairs.length), d.pairs.length, rankBy, d.timeout_s, families);
}

/** The first `upTo` pairs of a duel as the tests see them, with their further runs. */
function duelTestPairs(d: DuelDoc, upTo: number): TestPair[] {
  return d.pairs.slice(0, upTo).map((p) => {
    const [a, b] = pairTimes(p, d.timeout_s, d.on);
    const again = (p.again ?? []).map((x) => {
      const [ta, tb] = pairTimes({ ...p, a: x.a, b: x.b }, d.timeout_s, d.on);
      return { a: { t: ta, solved: x.a.status === 'solved' }, b: { t: tb, solved: x.b.status === 'solved' } };
    });
    return { a, b, solvedA: p.a.status === 'solved', solvedB: p.b.status === 'solved', ...(again.length ? { again } : {}) };
  });
}
