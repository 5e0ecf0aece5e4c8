// Which instances of a fetched set make a training set and a held-out set a cycle can afford (the
// pure part of `satlution benchmarks curate`): from the champion's one run over the set, the
// informative instances (solved, not trivially fast) are split per stratum (family and answer) into a
// held-out share and the rest, each taken in a stratified cross-section of difficulty (the race's
// order) for as long as the champion's CPU time fits the budget. Every instance gets its reason.
import { raceOrder } from '../decide/race';

/** One instance as the champion's run over the set left it. */
export interface CurateInstance {
  name: string;
  family: string | null;
  /** The known answer (meta.csv), else the champion's. */
  answer: 'SAT' | 'UNSAT' | null;
  solved: boolean;
  /** The champion's CPU seconds (its wall time where CPU time is not known). */
  cpuS: number;
  /** How it ended when unsolved (timeout, memout, crash, ...). */
  status: string;
}

/** Where an instance went, and why. */
export interface CurateDecision {
  name: string;
  stratum: string;
  cpuS: number;
  set: 'train' | 'heldout' | 'out';
  reason: string;
}

/** The limits of a selection. */
export interface CurateLimits {
  /** The champion's CPU seconds one evaluation of the training set may take. */
  budgetS: number;
  /** The share of the informative instances kept apart for the held-out set (0-0.9). */
  heldoutShare: number;
  /** Solved faster than this: too easy to tell solvers apart. */
  minS: number;
  timeoutS: number;
}

/** The selection: every instance's decision, and the two sets' totals. */
export interface Selection {
  decisions: CurateDecision[];
  train: { instances: number; cpuS: number };
  heldout: { instances: number; cpuS: number; budgetS: number };
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
    decisions.set(i.name, { name: i.name, stratum: stratumOf(i), cpuS: i.cpuS, set, reason });
  const informative: CurateInstance[] = [];
  for (const i of instances) {
    if (!i.solved) decide(i, 'out', `not solved by the champion within ${lim.timeoutS} s (${i.status}): it would cost the timeout in every evaluation`);
    else if (i.cpuS < lim.minS) decide(i, 'out', `solved in ${fmt(i.cpuS)} s, under ${fmt(lim.minS)} s: too easy to tell solvers apart`);
    else informative.push(i);
  }
  // Per stratum, by the champion's time: every (1 / share)-th to the held-out pool, so both cover easy and hard alike.
  const pools = { train: [] as CurateInstance[], heldout: [] as CurateInstance[] };
  const strata = new Map<string, CurateInstance[]>();
  for (const i of informative) strata.set(stratumOf(i), [...(strata.get(stratumOf(i)) ?? []), i]);
  for (const members of strata.values()) {
    const sorted = [...members].sort((a, b) => a.cpuS - b.cpuS || a.name.localeCompare(b.name));
    sorted.forEach((i, k) => (Math.floor((k + 1) * lim.heldoutShare + 0.5) > Math.floor(k * lim.heldoutShare + 0.5) ? pools.heldout : pools.train).push(i));
  }
  const heldoutBudget = lim.heldoutShare > 0 ? (lim.budgetS * lim.heldoutShare) / (1 - lim.heldoutShare) : 0;
  const take = (pool: CurateInstance[], set: 'train' | 'heldout', budget: number) => {
    const reference = new Map(pool.map((i) => [i.name, i.cpuS]));
    let used = 0;
    let n = 0;
    const byName = new Map(pool.map((i) => [i.name, i]));
    for (const { name } of raceOrder(
      pool.map((i) => ({ name: i.name, family: stratumOf(i) })),
      reference,
    )) {
      const i = byName.get(name)!;
      if (used + i.cpuS <= budget) {
        used += i.cpuS;
        n++;
        decide(
          i,
          set,
          `${set === 'train' ? 'training' : 'held-out'}: ${stratumOf(i)}, the champion ${fmt(i.cpuS)} s (${fmt(used)} of ${fmt(budget)} s so far)`,
        );
      } else
        decide(
          i,
          'out',
          `informative, but the ${set === 'train' ? 'training' : 'held-out'} budget (${fmt(budget)} s) was spent: the champion needs ${fmt(i.cpuS)} s and ${fmt(budget - used)} s were left`,
        );
    }
    return { instances: n, cpuS: used };
  };
  const train = take(pools.train, 'train', lim.budgetS);
  const heldout = take(pools.heldout, 'heldout', heldoutBudget);
  return { decisions: instances.map((i) => decisions.get(i.name)!), train, heldout: { ...heldout, budgetS: heldoutBudget } };
}

const fmt = (s: number) => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s.toFixed(2));
