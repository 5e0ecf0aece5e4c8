// What a cycle needs to reach a verdict noise cannot fool: the noise band (calibrated when missing or
// stale), the racing policy against the champion's latest times, which survivor meets the champion, and
// the same-session duel of that challenger with the champion (found again on resume instead of measured
// twice).
import * as path from 'node:path';
import type { Config } from '../config/schema';
import { bandFor, calibrate, currentScope, effectiveMargin, readCalibration, staleBecause, type CalibrationDoc } from '../eval/calibration';
import { compareRuns, type Comparison } from '../eval/compare';
import { measureSideBySide, readDuels, type DuelDoc, type DuelPurpose } from '../eval/duel';
import { recordChampionDrift } from '../eval/drift';
import { measuredInFull, type EvalDoc } from '../eval/evalDoc';
import { par2Of } from '../eval/metrics';
import type { RacePolicy } from '../eval/race';
import { solverIdentity } from '../eval/resultsStore';
import type { InstanceResult } from '../run/result';
import type { RunnerEnv } from '../runners/select';

/** What the verdict helpers need of a cycle request. */
export interface VerdictContext {
  ws: string;
  config: Config;
  runnerEnv: RunnerEnv;
  signal?: AbortSignal;
  log: (message: string) => void;
  /** A progress line for the duel's runs (done of total). */
  progress?: (done: number, total: number, message: string) => void;
}

/** The kept calibration, measured first (the champion against itself) when calibration.auto says so and it is missing or stale. */
export async function noiseBand(ctx: VerdictContext, championDir: string): Promise<{ cal: CalibrationDoc | undefined; bandPct: number }> {
  const { config } = ctx;
  let cal = await readCalibration(ctx.ws);
  const stale = staleBecause(cal, await currentScope(ctx.ws, config), config.evaluation.calibration.max_age_days);
  if (stale && config.evaluation.calibration.auto) {
    ctx.log(`calibrating the noise band (${stale}): ${path.basename(championDir)} against itself, side by side`);
    try {
      cal = await calibrate({ ws: ctx.ws, config, solverDir: championDir, runnerEnv: ctx.runnerEnv, ...(ctx.signal ? { signal: ctx.signal } : {}), ...(ctx.progress ? { onProgress: ctx.progress } : {}) });
    } catch (e) {
      // A set that cannot be measured on (empty, or the champion fails there) fails the challengers' gates
      // with a clear message; the cycle must get that far rather than end in the calibration.
      if (ctx.signal?.aborted) throw e;
      ctx.log(`the noise band could not be measured (${(e as Error).message}); the margin alone decides until it can`);
      return { cal, bandPct: cal && !staleBecause(cal, await currentScope(ctx.ws, config), Infinity) ? bandFor(cal, config.evaluation.decide_on) : 0 };
    }
    const n = config.evaluation.decide_on === 'cpu' && cal.cpu ? cal.cpu : cal.wall;
    ctx.log(`noise band ${n.band_pct.toFixed(1)}% of PAR-2 on ${config.evaluation.decide_on === 'cpu' && cal.cpu ? 'CPU' : 'wall'} time (A/A difference ${n.diff_pct.toFixed(1)}%, n = ${cal.n}); the promotion margin is ${effectiveMargin(config.strategy.min_improvement_pct, n.band_pct).toFixed(1)}%`);
  } else if (stale) ctx.log(`the noise band is not calibrated (${stale}); calibration.auto is off, so the band is taken as 0 — run \`satlution calibrate\``);
  return { cal, bandPct: stale && !config.evaluation.calibration.auto ? 0 : bandFor(cal, config.evaluation.decide_on) };
}

/** The racing policy against the champion's latest full measurement, or undefined when racing is off or there is nothing to race against. */
export function racePolicy(config: Config, champion: EvalDoc | undefined, bandPct: number, championDir?: string): RacePolicy | undefined {
  if (!config.evaluation.racing.enabled || !champion || champion.verdict !== 'pass' || !measuredInFull(champion) || champion.timeout_s !== config.stages.perf.timeout_s) return undefined;
  const on = config.evaluation.decide_on;
  const T = champion.timeout_s;
  return {
    reference: new Map(champion.instances.map((r) => [r.instance, par2Of(r, T, on)])),
    on,
    racing: config.evaluation.racing,
    marginPct: effectiveMargin(config.strategy.min_improvement_pct, bandPct),
    bandPct,
    ...(championDir ? { championDir } : {}),
  };
}

/**
 * Of several candidates measured in full ((1+lambda)), the one that meets the champion in the duel: the
 * fastest relative to the champion in its own session. Each was measured in a session of its own, and
 * the machine's speed drifts between sessions (5-10% on a VM), so their own PAR-2s rank the sessions as
 * much as the candidates; a race's totals are against the champion's times in that session (re-run in
 * the decision window, the rest scaled by the speed the window measured), which drift moves alike. With
 * 10% drift the simulator (bench/decisions.ts) sends the truly best of three to the duel more often this
 * way. Without a race for every one (racing off), by their own PAR-2; ties by the lower id.
 */
export function meetsChampion(measured: readonly { id: number; doc: EvalDoc }[]): number | undefined {
  const relative = (d: EvalDoc) => (d.race && d.race.champion_s > 0 ? d.race.challenger_s / d.race.champion_s : undefined);
  const byRace = measured.every((m) => relative(m.doc) !== undefined);
  const key = (d: EvalDoc) => (byRace ? relative(d)! : (d.metrics?.par2 ?? Infinity));
  return [...measured].sort((a, b) => key(a.doc) - key(b.doc) || a.id - b.id)[0]?.id;
}

/** The challenger side by side with the champion for this cycle: the duel kept from a resumed run, else a new one. */
export async function duelWithChampion(ctx: VerdictContext, o: { cycle: number; purpose: DuelPurpose; championDir: string; challengerDir: string; bandPct: number; bench?: string }): Promise<DuelDoc> {
  const [ha, hb] = [await solverIdentity(o.championDir), await solverIdentity(o.challengerDir)];
  const kept = (await readDuels(ctx.ws)).filter((d) => d.cycle === o.cycle && d.purpose === o.purpose && d.a.hash === ha && d.b.hash === hb).pop();
  if (kept) return kept;
  ctx.log(`${path.basename(o.challengerDir)} side by side with ${path.basename(o.championDir)}${o.bench ? ` on ${o.bench}` : ''} (same session, ABBA blocks)`);
  const d = await measureSideBySide({
    ws: ctx.ws,
    config: ctx.config,
    a: o.championDir,
    b: o.challengerDir,
    purpose: o.purpose,
    cycle: o.cycle,
    ...(o.bench ? { overrides: { bench: o.bench } } : {}),
    on: ctx.config.evaluation.decide_on,
    bandPct: o.bandPct,
    alpha: ctx.config.strategy.alpha,
    runnerEnv: ctx.runnerEnv,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.progress ? { onProgress: ctx.progress } : {}),
  });
  // The champion measured again on the perf set: against its stored evaluation, a pair of separate measurements (drift.ts).
  if (o.purpose === 'decision') await recordChampionDrift(ctx.ws, { dir: o.championDir, hash: d.doc.a.hash, from: 'decision', now: d.a, timeoutS: d.doc.timeout_s, on: d.doc.on });
  return d.doc;
}

/** The paired comparison of a kept duel, recomputed from its pairs (the same rule, on the same basis and band). */
export function duelComparison(d: DuelDoc, alpha: number): Comparison {
  const as = (side: 'a' | 'b') => d.pairs.map((p): InstanceResult => ({ instance: p.instance, family: null, expected: null, expected_from: 'none', answer: null, status: p[side].status === 'solved' ? 'solved' : 'timeout', time_s: p[side].time_s, cpu_s: p[side].cpu_s, mem_mb: null, exit_code: null, signal: null, check: { kind: 'none', ok: null, time_s: 0, detail: '' }, detail: '' }));
  return compareRuns(as('a'), as('b'), d.timeout_s, { alpha, on: d.on, bandPct: d.comparison.band_pct });
}
