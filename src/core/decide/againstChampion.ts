// A cycle's challengers against its champion: the race (the champion and the challengers side by side
// in one session, each dropped once its chance to pass the promotion test at the end of the set is too
// small; race.ts), the test level a promotion needs, and the same-session duels (found again on resume
// instead of measured twice).
import * as path from 'node:path';
import type { Config } from '../config/schema';
import { compareRuns, type Comparison } from './comparison';
import { measureTogether, type TogetherRequest } from './measureTogether';
import { readDuels, type DuelDoc, type DuelPurpose } from './duels';
import { recordChampionDrift } from './drift';
import { measuredInFull, type EvalDoc } from '../eval/evalDoc';
import { basisOf, par2Of } from '../eval/metrics';
import type { RankBy } from './objectiveTest';
import type { RacePolicy } from './race';
import { withRace } from './withRace';
import { recordEvaluation } from '../eval/record';
import { solverIdentity } from '../eval/resultsStore';
import type { InstanceResult } from '../run/result';
import type { RunnerEnv } from '../runners/select';
import type { AuditRandom } from '../eval/audit';
import type { FamilyRule } from './familyCheck';

/** What the verdict helpers need of a cycle request. */
export interface VerdictContext {
  ws: string;
  config: Config;
  runnerEnv: RunnerEnv;
  signal?: AbortSignal;
  /** The perf audit's draw in the race (default: crypto randomness). */
  auditRandom?: AuditRandom;
  log: (message: string) => void;
  /** A progress line for the side-by-side runs (done of total). */
  progress?: (done: number, total: number, message: string) => void;
}

/**
 * The most false promotions a decision may make, whatever alpha says: two identical solvers are
 * promoted in at most this share of decisions (one-sided).
 */
export const MAX_FALSE_PROMOTION = 0.005;

/**
 * The one-sided level a challenger's promotion test must reach to be promoted: alpha / 2, at most
 * MAX_FALSE_PROMOTION, shared among the challengers of the cycle's race (Bonferroni: with three
 * challengers that are all no faster, the chance that any one is promoted stays under the level).
 */
export function promotionLevel(alpha: number, entrants: number): number {
  return Math.min(alpha / 2, MAX_FALSE_PROMOTION) / Math.max(1, entrants);
}

/** The race's order and caps: the champion's latest full measurement at the perf set's limits, or none to order by. */
export function racePolicy(config: Config, champion: EvalDoc | undefined): RacePolicy {
  const usable = champion && champion.verdict === 'pass' && measuredInFull(champion) && champion.timeout_s === config.stages.perf.timeout_s;
  const on = usable ? basisOf(config.evaluation.decide_on, champion.instances) : config.evaluation.decide_on;
  return {
    racing: config.evaluation.racing,
    on,
    reference: new Map(usable ? champion.instances.map((r) => [r.instance, par2Of(r, champion.timeout_s!, on)]) : []),
  };
}

/**
 * The cycle's race: the champion and the challengers on the perf set side by side in one session
 * (`session`, kept in the cycle's state so a resumed race reuses its stored runs). Each challenger's
 * perf measurement, its race and (a survivor's) perf audit go into its evaluation document, recorded.
 */
export async function raceChallengers(
  ctx: VerdictContext,
  race: {
    cycle: number;
    session: string;
    championDir: string;
    champion: EvalDoc | undefined;
    challengers: readonly { id: number; dir: string; doc: EvalDoc }[];
  },
): Promise<void> {
  const names = race.challengers.map((c) => path.basename(c.dir)).join(', ');
  ctx.log(
    `race: ${names} side by side with ${path.basename(race.championDir)} on the perf set (one session; ${ctx.config.evaluation.racing.enabled ? 'a challenger is dropped once it cannot pass the promotion test' : 'racing off: every one runs the whole set'})`,
  );
  const raced = await measureTogether({
    ws: ctx.ws,
    config: ctx.config,
    a: race.championDir,
    challengers: race.challengers.map((c) => c.dir),
    purpose: 'decision',
    cycle: race.cycle,
    session: race.session,
    // The challengers' proofs are kept under the session's name until the cycle's decision is made (engine.ts releases it).
    hold: race.session,
    race: racePolicy(ctx.config, race.champion),
    on: ctx.config.evaluation.decide_on,
    bandPct: 0,
    alpha: 2 * promotionLevel(ctx.config.strategy.alpha, race.challengers.length),
    runnerEnv: ctx.runnerEnv,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.auditRandom ? { auditRandom: ctx.auditRandom } : {}),
    ...(ctx.progress ? { onProgress: ctx.progress } : {}),
  });
  for (const [k, d] of raced.duels.entries()) {
    const c = race.challengers[k]!;
    const speed = d.race!.speedup_pct ?? 0;
    const outcome = d.race!.outcome === 'rejected early' && d.race!.ran >= d.race!.of ? 'rejected at the end' : d.race!.outcome;
    ctx.log(
      `race: ${path.basename(c.dir)} ${outcome} after ${d.race!.ran} of ${d.race!.of} instances${d.race!.outcome === 'rejected early' ? `: ${d.race!.reason}` : ` (${Math.abs(speed).toFixed(1)}% ${speed >= 0 ? 'faster' : 'slower'} as a geometric mean)`}`,
    );
    await recordEvaluation(ctx.ws, c.dir, withRace(c.doc, { results: d.b, race: d.race!, plan: d.plan!, ...(d.audit ? { audit: d.audit } : {}) }));
  }
  // The champion measured again on the perf set (as far as the race went): against its stored evaluation, a pair of separate measurements (drift.ts).
  const first = raced.duels[0];
  if (first)
    await recordChampionDrift(ctx.ws, {
      dir: race.championDir,
      hash: first.doc.a.hash,
      from: 'decision',
      now: longestA(raced.duels),
      timeoutS: first.doc.timeout_s,
      on: first.doc.on,
    });
}

/** The champion's runs of a race: the duel that paired the most of them (the last challenger dropped). */
const longestA = (duels: readonly { a: InstanceResult[] }[]): InstanceResult[] =>
  duels.reduce((m, d) => (d.a.length > m.length ? d.a : m), [] as InstanceResult[]);

/** The decision duel of a challenger in this cycle's race, if it ran. */
export async function raceDuel(ws: string, duel: { cycle: number; championDir: string; challengerDir: string }): Promise<DuelDoc | undefined> {
  return keptDuel(ws, { ...duel, purpose: 'decision' });
}

/** The latest duel of this cycle for `purpose` between exactly these two builds (by their hashes), if one was kept. */
async function keptDuel(ws: string, duel: { cycle: number; purpose: DuelPurpose; championDir: string; challengerDir: string }): Promise<DuelDoc | undefined> {
  const [ha, hb] = [await solverIdentity(duel.championDir), await solverIdentity(duel.challengerDir)];
  return (await readDuels(ws)).filter((d) => d.cycle === duel.cycle && d.purpose === duel.purpose && d.a.hash === ha && d.b.hash === hb).pop();
}

/** The challenger side by side with the champion for this cycle outside a race (the held-out check): the duel kept from a resumed run, else a new one. */
export async function duelWithChampion(
  ctx: VerdictContext,
  duel: {
    cycle: number;
    purpose: DuelPurpose;
    championDir: string;
    challengerDir: string;
    bench?: string;
    stopWhen?: TogetherRequest['stopWhen'];
    hold?: string;
    /** The perf stage on `bench`, opened already (the held-out check needed its set first). */
    perf?: TogetherRequest['perf'];
  },
): Promise<DuelDoc> {
  const kept = await keptDuel(ctx.ws, duel);
  if (kept) return kept;
  ctx.log(
    `${path.basename(duel.challengerDir)} side by side with ${path.basename(duel.championDir)}${duel.bench ? ` on ${duel.bench}` : ''} (same session, ABBA${duel.stopWhen ? ', stopped as soon as it can tell' : ''})`,
  );
  const { duels } = await measureTogether({
    ws: ctx.ws,
    config: ctx.config,
    a: duel.championDir,
    challengers: [duel.challengerDir],
    ...(duel.stopWhen ? { stopWhen: duel.stopWhen } : {}),
    ...(duel.hold ? { hold: duel.hold } : {}),
    ...(duel.perf ? { perf: duel.perf } : {}),
    purpose: duel.purpose,
    cycle: duel.cycle,
    ...(duel.bench ? { overrides: { bench: duel.bench } } : {}),
    on: ctx.config.evaluation.decide_on,
    bandPct: 0,
    alpha: ctx.config.strategy.alpha,
    runnerEnv: ctx.runnerEnv,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.progress ? { onProgress: ctx.progress } : {}),
  });
  return duels[0]!.doc;
}

/** The paired comparison of a kept duel, recomputed from its pairs at a two-sided `alpha` (the same rule, on the same basis, ranked by `rankBy`, families judged by `families`). */
export function duelComparison(d: DuelDoc, alpha: number, rankBy: RankBy, families?: FamilyRule): Comparison {
  const familyOf = new Map(d.pairs.map((p) => [p.instance, p.family ?? null]));
  const result = (instance: string, r: DuelDoc['pairs'][number]['a']): InstanceResult => ({
    instance,
    family: familyOf.get(instance) ?? null,
    expected: null,
    expected_from: 'none',
    answer: null,
    status: r.status === 'solved' ? 'solved' : 'timeout',
    time_s: r.time_s,
    cpu_s: r.cpu_s,
    mem_mb: null,
    exit_code: null,
    signal: null,
    check: { kind: 'none', ok: null, time_s: 0, detail: '' },
    detail: '',
  });
  const as = (side: 'a' | 'b') => d.pairs.map((p) => result(p.instance, p[side]));
  const again = new Map(
    d.pairs.flatMap((p) => (p.again?.length ? [[p.instance, p.again.map((x) => ({ a: result(p.instance, x.a), b: result(p.instance, x.b) }))] as const] : [])),
  );
  return compareRuns(as('a'), as('b'), d.timeout_s, { alpha, on: d.on, bandPct: d.comparison.band_pct, rankBy, again, ...(families ? { families } : {}) });
}
