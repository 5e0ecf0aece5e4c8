// No family pays for a promotion. A challenger faster on the whole set may be slower on one family
// (walking that pays on random satisfiable formulas costs on structured unsatisfiable ones); users run
// next on the families they meet, so a specialist must be seen and stopped. Each family's PAR-2 under
// B is set against A's, on the means of each instance's runs, with the standard error the promotion
// test gives it (objectiveTest.ts on the family's pairs, at the whole comparison's run noise). A family
// with enough instances is judged as the promotion judges the whole set, the other way round: it
// vetoes when it is significantly slower than under the champion at error / (families judged)
// (Bonferroni) and its slowdown is beyond the tolerance. So a challenger that no judged family is
// slower under is vetoed in at most `error` of decisions, and a family exactly at the tolerance in at
// most half.
import { FamiliesSchema, type FamiliesConfig } from '../config/schema';
import { objectiveTest, type TestNoise, type TestPair } from './objectiveTest';
import type { DuelFamily } from './duels';

/** The family rule's settings (evaluation.families): whether it vetoes, the tolerance, the least instances judged, the error. */
export type FamilyRule = FamiliesConfig;

/** The rule when the workspace says nothing: the settings' defaults. */
export const DEFAULT_FAMILY_RULE: FamilyRule = FamiliesSchema.parse({});

/** The name a family-less instance is counted under. */
export const NO_FAMILY = '(no family)';

/** One family's figures in a comparison of B with A. */
export interface FamilyFigure {
  family: string;
  instances: number;
  /** Each side's PAR-2 on the family, an instance run again at the mean of its runs. */
  par2A: number;
  par2B: number;
  /** B's PAR-2 change on the family, percent of A's (positive: B slower), and its standard error from the run noise. */
  change_pct: number;
  se_pct: number;
  /** Instances each side solved (first runs). */
  solvedA: number;
  solvedB: number;
  /** That B is not slower here than A, when the family has enough instances to be judged (else null). */
  p_slower: number | null;
}

/** Every family's figures, and the families shown more than the tolerance slower. */
export interface FamilyCheck {
  rule: FamilyRule;
  families: FamilyFigure[];
  /** The level each judged family's p_slower is held to: error / families judged. */
  level: number;
  /** The judged families significantly slower, by more than the tolerance, worst first. */
  slower: string[];
}

/** A pair as the family check sees it: its family and the test's view of its runs. */
export interface FamilyPair {
  family: string | null;
  pair: TestPair;
}

/** Each family's figures and the check; undefined when the pairs have fewer than two families (the whole set is the one family, and the promotion test judges it). */
export function familyCheck(pairs: readonly FamilyPair[], noise: TestNoise, rule: FamilyRule = DEFAULT_FAMILY_RULE): FamilyCheck | undefined {
  const groups = new Map<string, TestPair[]>();
  for (const p of pairs) {
    const f = p.family || NO_FAMILY;
    groups.set(f, [...(groups.get(f) ?? []), p.pair]);
  }
  if (groups.size < 2) return undefined;
  const judged = [...groups.values()].filter((g) => g.length >= rule.min_instances).length;
  const level = judged ? rule.error / judged : 0;
  const families = [...groups.entries()]
    .map(([family, g]) => figure(family, g, noise, rule))
    .sort((x, y) => y.change_pct - x.change_pct || x.family.localeCompare(y.family));
  const slower = families.filter((f) => f.p_slower !== null && f.p_slower < level && f.change_pct > rule.tolerance_pct).map((f) => f.family);
  return { rule, families, level, slower };
}

/** One family's figures (familyCheck). */
function figure(family: string, g: readonly TestPair[], noise: TestNoise, rule: FamilyRule): FamilyFigure {
  const test = objectiveTest(g, 'par2', noise);
  const side = (k: 'a' | 'b') => mean(g.map((p) => mean([p[k], ...(p.again ?? []).map((r) => r[k].t)])));
  const change = -test.gain_pct;
  const se = test.gain_se_pct;
  return {
    family,
    instances: g.length,
    par2A: side('a'),
    par2B: side('b'),
    change_pct: change,
    se_pct: se,
    solvedA: g.filter((p) => p.solvedA).length,
    solvedB: g.filter((p) => p.solvedB).length,
    p_slower: g.length >= rule.min_instances ? test.p_worse : null,
  };
}

/**
 * A judged family is in doubt while its slowdown plus this many standard errors is beyond the tolerance:
 * it may be vetoed. A family of 8 instances carries a PAR-2 standard error of about 6% from one run each
 * (3-18%, bench/decisions.ts), so a family 15% slower is often not shown so by one run: its instances
 * run again until it is out of doubt or has FAMILY_RUNS runs each.
 */
export const FAMILY_DOUBT_SES = 1;

/**
 * The most runs of an instance of a family in doubt (a session's rounds of further runs allow more:
 * scheduler.ts MAX_AGAIN_ROUNDS). At 6, a
 * challenger 15% slower on a family of 8 and 20% faster elsewhere was promoted in 16.7% of decisions at
 * 44 instances; at 9, in 12.7% (bench/decisions.ts fam-loser).
 */
export const FAMILY_RUNS = 9;

/**
 * The race's family rounds (race.ts raceAgain, while a survivor's promotion test passes): the instances
 * of the families in doubt that have fewer than FAMILY_RUNS runs, to run once more on both sides; those
 * no run solved too, as the variance of a flip unseen in a small family is a large part of its own. A family shown slower keeps running to its last round too, so the veto is judged
 * on all its runs and not where a run happened to make it look worst; only clearing it stops it early,
 * which can only make a veto rarer.
 */
export function familyAgain(pairs: readonly FamilyPair[], names: readonly string[], noise: TestNoise, rule: FamilyRule): string[] {
  const c = familyCheck(pairs, noise, rule);
  if (!c || !rule.veto) return [];
  const doubt = new Set(c.families.filter((f) => f.p_slower !== null && f.change_pct + FAMILY_DOUBT_SES * f.se_pct > rule.tolerance_pct).map((f) => f.family));
  return pairs.flatMap((p, k) => (doubt.has(p.family || NO_FAMILY) && 1 + (p.pair.again?.length ?? 0) < FAMILY_RUNS ? [names[k]!] : []));
}

/** The figures as a duel keeps them (duels.ts DuelFamily), for the dashboard. */
export function duelFamilies(c: FamilyCheck): DuelFamily[] {
  return c.families.map((f) => ({
    family: f.family,
    instances: f.instances,
    par2A: f.par2A,
    par2B: f.par2B,
    change_pct: f.change_pct,
    judged: f.p_slower !== null,
    slower: c.slower.includes(f.family),
  }));
}

/** Whether the check vetoes a promotion: the rule vetoes and a judged family is shown more than the tolerance slower. */
export const familyVeto = (c: FamilyCheck | undefined): boolean => !!c?.rule.veto && c.slower.length > 0;

/** "uniform-unsat 15.2% slower (8 instances, PAR-2 10.1 -> 11.6 s)" for a family. */
export function familyPhrase(f: FamilyFigure): string {
  const way = `${Math.abs(f.change_pct).toFixed(1)}% ${f.change_pct > 0 ? 'slower' : 'faster'}`;
  return `${f.family} ${way} (${f.instances} instance${f.instances === 1 ? '' : 's'}, PAR-2 ${f.par2A.toFixed(2)} -> ${f.par2B.toFixed(2)} s)`;
}

/** Why the check vetoes: the families shown slower, with their figures and the rule. */
export function familyVetoReason(c: FamilyCheck): string {
  const shown = c.slower.map((name) => c.families.find((f) => f.family === name)!);
  const judged = c.families.filter((f) => f.p_slower !== null).length;
  return `slower on ${shown.length === 1 ? 'a family' : `${shown.length} families`}: ${shown.map(familyPhrase).join('; ')}; significantly and more than the ${c.rule.tolerance_pct}% a family may lose (each family judged at ${c.level.toPrecision(2)}: an error of ${c.rule.error} over ${judged})`;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
