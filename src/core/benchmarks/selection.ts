// Which instances of a fetched set make a training set and a held-out set a cycle can afford (the
// pure part of `satlution benchmarks curate`): from the champion's one run over the set, the
// informative instances (solved, not trivially fast) are split per stratum (family and answer) into a
// held-out share and the rest, each taken in a stratified cross-section of difficulty (the race's
// order) for as long as the champion's time fits the budget (CPU time where every run has it, else wall time: curateSet.ts). Every instance gets its reason.
// Whole families can be held out instead (heldoutFamilies): their instances go to the held-out set
// only, and every other family to training, so the held-out check measures what evolution never saw.
import { createHash } from 'node:crypto';
import { raceOrder } from '../decide/race';

/** One instance as the champion's run over the set left it. */
export interface CurateInstance {
  name: string;
  family: string | null;
  /** The known answer (meta.csv), else the champion's. */
  answer: 'SAT' | 'UNSAT' | null;
  solved: boolean;
  /** The champion's seconds on the curation's clock (CPU, or wall where a run has no CPU time). */
  timeS: number;
  /** How it ended when unsolved (timeout, memout, crash, ...). */
  status: string;
}

/** Where an instance went, and why. */
export interface CurateDecision {
  name: string;
  stratum: string;
  timeS: number;
  set: 'train' | 'heldout' | 'out';
  reason: string;
}

/** The limits of a selection. */
export interface CurateLimits {
  /** The champion's seconds one evaluation of the training set may take, on the same clock. */
  budgetS: number;
  /** The share of the informative instances kept apart for the held-out set (0-0.9). */
  heldoutShare: number;
  /** Solved faster than this: too easy to tell solvers apart. */
  minS: number;
  timeoutS: number;
  /** Families held out whole: these names, or this many (heldOutFamilies); the share then sets the held-out budget only. */
  heldoutFamilies?: { names: readonly string[] } | { count: number };
}

/** The fewest informative instances a family needs to be held out by count: the family rule judges no smaller one (evaluation.families.min_instances' default). */
export const HELDOUT_FAMILY_MIN = 4;

/** A selection that cannot be made as asked (a family not in the set, more families than can be held out). */
export class SelectionError extends Error {}

/**
 * The families to hold out whole: the names given (each must be in the set), or `count` of the
 * families with at least HELDOUT_FAMILY_MIN informative instances, in an order fixed by their names'
 * hashes (the same set gives the same choice; neither size nor name decides). At least one family is
 * left for training.
 */
export function heldOutFamilies(informative: readonly CurateInstance[], ask: NonNullable<CurateLimits['heldoutFamilies']>): Set<string> {
  const sizes = new Map<string, number>();
  for (const i of informative) if (i.family !== null) sizes.set(i.family, (sizes.get(i.family) ?? 0) + 1);
  if ('names' in ask) {
    const unknown = ask.names.filter((n) => !sizes.has(n));
    if (unknown.length)
      throw new SelectionError(
        `no informative instance of the famil${unknown.length === 1 ? 'y' : 'ies'} ${unknown.join(', ')} to hold out (families here: ${[...sizes.keys()].sort().join(', ') || 'none'})`,
      );
    if (ask.names.length >= sizes.size) throw new SelectionError(`holding out ${ask.names.join(', ')} leaves no family to train on`);
    return new Set(ask.names);
  }
  const eligible = [...sizes.entries()].filter(([, n]) => n >= HELDOUT_FAMILY_MIN).map(([f]) => f);
  const hash = (f: string) => createHash('sha256').update(f).digest('hex');
  const chosen = eligible.sort((a, b) => hash(a).localeCompare(hash(b))).slice(0, ask.count);
  if (chosen.length < ask.count || chosen.length >= sizes.size)
    throw new SelectionError(
      `cannot hold out ${ask.count} whole famil${ask.count === 1 ? 'y' : 'ies'}: ${eligible.length} of the ${sizes.size} families have ${HELDOUT_FAMILY_MIN} or more informative instances, and one must be left to train on`,
    );
  return new Set(chosen);
}

/** The selection: every instance's decision, and the two sets' totals. */
export interface Selection {
  decisions: CurateDecision[];
  train: { instances: number; timeS: number };
  heldout: { instances: number; timeS: number; budgetS: number };
}

/** The stratum an instance is balanced in: its family and its answer. */
export const stratumOf = (i: Pick<CurateInstance, 'family' | 'answer'>): string => `${i.family ?? 'no family'}/${i.answer ?? 'unknown'}`;

/**
 * Selects the training and held-out sets (see the file's comment). The held-out set gets the same
 * share of the budget as of the instances (budget x share / (1 - share)), so the check before a
 * promotion costs about what its share says.
 */
export function selectInstances(instances: readonly CurateInstance[], lim: CurateLimits): Selection {
  const decisions = new Map<string, CurateDecision>();
  const decide = (i: CurateInstance, set: CurateDecision['set'], reason: string) =>
    decisions.set(i.name, { name: i.name, stratum: stratumOf(i), timeS: i.timeS, set, reason });
  const informative: CurateInstance[] = [];
  for (const i of instances) {
    if (!i.solved) decide(i, 'out', `not solved by the champion within ${lim.timeoutS} s (${i.status}): it would cost the timeout in every evaluation`);
    else if (i.timeS < lim.minS) decide(i, 'out', `solved in ${fmt(i.timeS)} s, under ${fmt(lim.minS)} s: too easy to tell solvers apart`);
    else informative.push(i);
  }
  // Per stratum, by the champion's time: every (1 / share)-th to the held-out pool, so both cover easy and hard alike.
  // With families held out whole, their instances are the held-out pool and the rest train.
  const pools = { train: [] as CurateInstance[], heldout: [] as CurateInstance[] };
  const whole = lim.heldoutFamilies ? heldOutFamilies(informative, lim.heldoutFamilies) : undefined;
  if (whole) for (const i of informative) (i.family !== null && whole.has(i.family) ? pools.heldout : pools.train).push(i);
  const strata = new Map<string, CurateInstance[]>();
  if (!whole) for (const i of informative) strata.set(stratumOf(i), [...(strata.get(stratumOf(i)) ?? []), i]);
  for (const members of strata.values()) {
    const sorted = [...members].sort((a, b) => a.timeS - b.timeS || a.name.localeCompare(b.name));
    sorted.forEach((i, k) => (Math.floor((k + 1) * lim.heldoutShare + 0.5) > Math.floor(k * lim.heldoutShare + 0.5) ? pools.heldout : pools.train).push(i));
  }
  const heldoutBudget = lim.heldoutShare > 0 ? (lim.budgetS * lim.heldoutShare) / (1 - lim.heldoutShare) : 0;
  const take = (pool: CurateInstance[], set: 'train' | 'heldout', budget: number) => {
    const reference = new Map(pool.map((i) => [i.name, i.timeS]));
    let used = 0;
    let n = 0;
    const byName = new Map(pool.map((i) => [i.name, i]));
    for (const { name } of raceOrder(
      pool.map((i) => ({ name: i.name, family: stratumOf(i) })),
      reference,
    )) {
      const i = byName.get(name)!;
      if (used + i.timeS <= budget) {
        used += i.timeS;
        n++;
        decide(
          i,
          set,
          `${set === 'train' ? 'training' : whole ? `held-out (the family ${i.family} is held out whole)` : 'held-out'}: ${stratumOf(i)}, the champion ${fmt(i.timeS)} s (${fmt(used)} of ${fmt(budget)} s so far)`,
        );
      } else
        decide(
          i,
          'out',
          `informative, but the ${set === 'train' ? 'training' : 'held-out'} budget (${fmt(budget)} s) was spent: the champion needs ${fmt(i.timeS)} s and ${fmt(budget - used)} s were left`,
        );
    }
    return { instances: n, timeS: used };
  };
  const train = take(pools.train, 'train', lim.budgetS);
  const heldout = take(pools.heldout, 'heldout', heldoutBudget);
  return { decisions: instances.map((i) => decisions.get(i.name)!), train, heldout: { ...heldout, budgetS: heldoutBudget } };
}

const fmt = (s: number) => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s.toFixed(2));
