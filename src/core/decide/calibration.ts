// Noise calibration: the champion measured against itself side by side (an A/A duel, measureTogether.ts). What two
// runs of one binary differ by on this machine, runner and perf set is the noise band, shown for information:
// no decision uses it (the promotion test is exact on same-session pairs, and the margin is
// strategy.min_improvement_pct alone; promotionRule.ts). Kept in `.satlution/calibration.json`; measured again when the machine, the runner,
// the perf set or its limits change, or when it is older than calibration.max_age_days.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config/schema';
import { listSet } from '../instances/instances';
import { STATE_DIR } from '../layout';
import type { InstanceResult } from '../run/result';
import type { RunnerEnv } from '../runners/select';
import { writeJsonAtomic } from '../store/atomic';
import { BAND_LEVEL, compareRuns, relativeInterval } from './comparison';
import { recordChampionDrift } from './drift';
import { measureSideBySide } from './measureTogether';
import { basisOf, timeOn, type TimeBasis } from '../eval/metrics';
import { planStages } from '../eval/plan';

/** The noise of one time basis, from an A/A duel. */
export const NoiseDoc = z.object({
  /** The band: the larger end of the BAND_LEVEL (99%) CI of the A/A PAR-2 difference, in percent of PAR-2. */
  band_pct: z.number().nonnegative(),
  /** The A/A PAR-2 difference itself, percent, and its paired test's p. */
  diff_pct: z.number(),
  p: z.number(),
  /** Per-instance relative spread |a - b| / mean of instances both solved: median and 90th percentile, percent. */
  spread_median_pct: z.number().nonnegative().nullable(),
  spread_p90_pct: z.number().nonnegative().nullable(),
  /** Whether the A/A duel would itself have been called significant without the band (it should not be). */
  aa_significant: z.boolean(),
});
export type NoiseDoc = z.infer<typeof NoiseDoc>;

/** Where a calibration holds: it is measured again when any of this changes. */
export const CalibrationScope = z.object({
  machine: z.string(),
  runner: z.string(),
  /** A hash of the perf set's instance names and sizes. */
  set: z.string(),
  timeout_s: z.number().positive(),
});
export type CalibrationScope = z.infer<typeof CalibrationScope>;

/** `.satlution/calibration.json`. */
export const CalibrationDoc = z.object({
  at: z.string(),
  scope: CalibrationScope,
  /** The duel it came from (`.satlution/duels/<session>.json`) and the solver measured against itself. */
  session: z.string(),
  solver: z.string(),
  n: z.number().int().nonnegative(),
  wall: NoiseDoc,
  /** null: this machine gave no CPU times (no cgroup). */
  cpu: NoiseDoc.nullable(),
  alpha: z.number(),
});
export type CalibrationDoc = z.infer<typeof CalibrationDoc>;

export const calibrationFile = (ws: string) => path.join(ws, STATE_DIR, 'calibration.json');

/** The kept calibration, if any and readable. */
export async function readCalibration(ws: string): Promise<CalibrationDoc | undefined> {
  const p = CalibrationDoc.safeParse(
    await fs
      .readFile(calibrationFile(ws), 'utf8')
      .then((t) => JSON.parse(t) as unknown)
      .catch(() => undefined),
  );
  return p.success ? p.data : undefined;
}

/** This machine as a calibration sees it: host, CPU model and count (a new machine has new noise). */
export function machineFingerprint(): string {
  const cpus = os.cpus();
  return `${os.hostname()} / ${cpus[0]?.model.trim() ?? 'unknown CPU'} x${cpus.length}`;
}

/** The scope the workspace's perf stage has now. */
export async function currentScope(ws: string, config: Config): Promise<CalibrationScope> {
  const perf = planStages(config, ws, { stage: 'perf' })[0]!;
  const h = createHash('sha256');
  for (const i of (await listSet(perf.dir)).sort((x, y) => x.name.localeCompare(y.name)))
    h.update(
      `${i.name}\0${await fs.stat(i.file).then(
        (s) => s.size,
        () => -1,
      )}\n`,
    );
  return { machine: machineFingerprint(), runner: perf.runner ?? 'local', set: h.digest('hex').slice(0, 16), timeout_s: perf.timeoutS };
}

/** Why a calibration must be measured again for this scope, or undefined when it still holds. */
export function staleBecause(cal: CalibrationDoc | undefined, scope: CalibrationScope, maxAgeDays: number, now = Date.now()): string | undefined {
  if (!cal) return 'the noise band has not been measured yet';
  if (cal.scope.machine !== scope.machine) return `the machine changed (${cal.scope.machine} -> ${scope.machine})`;
  if (cal.scope.runner !== scope.runner) return `the perf runner changed (${cal.scope.runner} -> ${scope.runner})`;
  if (cal.scope.set !== scope.set) return 'the perf set changed';
  if (cal.scope.timeout_s !== scope.timeout_s) return `the perf timeout changed (${cal.scope.timeout_s} s -> ${scope.timeout_s} s)`;
  const days = (now - Date.parse(cal.at)) / 86400e3;
  if (days > maxAgeDays) return `it is ${Math.floor(days)} days old (calibration.max_age_days: ${maxAgeDays})`;
  return undefined;
}

/** The noise of one basis from the two sides of an A/A duel. */
export function noiseOf(a: InstanceResult[], b: InstanceResult[], timeoutS: number, on: TimeBasis, alpha: number): NoiseDoc {
  const c = compareRuns(a, b, timeoutS, { alpha, on });
  const band = relativeInterval(a, b, timeoutS, on);
  const byB = new Map(b.map((r) => [r.instance, r]));
  const spreads = a
    .flatMap((x) => {
      const y = byB.get(x.instance);
      if (!y || x.status !== 'solved' || y.status !== 'solved') return [];
      const [tx, ty] = [timeOn(x, on), timeOn(y, on)];
      return tx + ty > 0 ? [(200 * Math.abs(tx - ty)) / (tx + ty)] : [];
    })
    .sort((p, q) => p - q);
  const q = (f: number) => (spreads.length ? round(spreads[Math.min(spreads.length - 1, Math.floor(f * spreads.length))]!) : null);
  return {
    band_pct: round(band.band_pct),
    diff_pct: round(band.diff_pct),
    p: c.wilcoxon.p,
    spread_median_pct: q(0.5),
    spread_p90_pct: q(0.9),
    aa_significant: c.verdict !== 'no significant difference',
  };
}

/** Measures the noise band: `solverDir` (the champion) against itself, side by side, and keeps it. */
export async function calibrate(req: {
  ws: string;
  config: Config;
  solverDir: string;
  runnerEnv: RunnerEnv;
  build?: boolean;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, message: string) => void;
}): Promise<CalibrationDoc> {
  const alpha = req.config.strategy.alpha;
  const scope = await currentScope(req.ws, req.config);
  const duel = await measureSideBySide({
    ws: req.ws,
    config: req.config,
    a: req.solverDir,
    b: req.solverDir,
    purpose: 'calibration',
    on: req.config.evaluation.decide_on,
    bandPct: 0,
    alpha,
    runnerEnv: req.runnerEnv,
    ...(req.build ? { build: true } : {}),
    ...(req.signal ? { signal: req.signal } : {}),
    ...(req.onProgress ? { onProgress: req.onProgress } : {}),
  });
  // A calibration of a broken solver would measure its failures, not the machine's noise.
  if (duel.doc.fatal) throw new Error(`the calibration cannot use ${path.basename(req.solverDir)}: it failed against itself (${duel.doc.fatal.detail})`);
  const solved = duel.a.filter((r) => r.status === 'solved').length;
  if (solved === 0)
    throw new Error(
      `the calibration cannot use ${path.basename(req.solverDir)}: it solved none of the perf set within the timeout, so there is no time to measure noise on`,
    );
  const hasCpu = basisOf('cpu', [...duel.a, ...duel.b]) === 'cpu';
  const doc: CalibrationDoc = {
    at: new Date().toISOString(),
    scope,
    session: duel.doc.session,
    solver: path.basename(req.solverDir),
    n: duel.cmp.common,
    wall: noiseOf(duel.a, duel.b, duel.doc.timeout_s, 'wall', alpha),
    cpu: hasCpu ? noiseOf(duel.a, duel.b, duel.doc.timeout_s, 'cpu', alpha) : null,
    alpha,
  };
  await writeJsonAtomic(calibrationFile(req.ws), doc);
  await recordChampionDrift(req.ws, {
    dir: req.solverDir,
    hash: duel.doc.a.hash,
    from: 'calibration',
    now: duel.a,
    timeoutS: duel.doc.timeout_s,
    on: req.config.evaluation.decide_on,
  });
  return doc;
}

/** The band in force for a decision on `on` (percent): the calibration's, 0 when there is none. CPU falls back to wall where CPU was not measured. */
export function bandFor(cal: CalibrationDoc | undefined, on: TimeBasis): number {
  if (!cal) return 0;
  return on === 'cpu' && cal.cpu ? cal.cpu.band_pct : cal.wall.band_pct;
}

/**
 * The false-promotion rate the rule allows per decision between two identical solvers: the promotion
 * test's one-sided level, alpha / 2 and at most 0.5% (decide/againstChampion.ts promotionLevel, before it is
 * shared among a race's challengers). The PAR-2 test measures its session's run noise, so no band is needed.
 */
export const allowedFalsePromotion = (alpha: number): number => Math.round(1e9 * Math.min(alpha / 2, (1 - BAND_LEVEL) / 2)) / 1e9;

const round = (x: number) => Math.round(x * 100) / 100;

/** The promotion rule in force, for status lines and views. */
export interface NoiseRule {
  on: TimeBasis;
  /** The measured noise band, for information (decisions do not use it); 0 when not calibrated. */
  bandPct: number;
  /** min_improvement_pct: the PAR-2 gain a promotion needs. */
  marginPct: number;
  /** At most this share of decisions between identical solvers promotes (percent). */
  falsePromotionPct: number;
  calibrated: { at: string; n: number; machine: string } | null;
  /** The rule in one line. */
  line: string;
}

/**
 * The rule a workspace's decisions follow now, from its config and kept calibration; `cpuHere`: whether
 * this machine measures CPU time (run/measurement.ts), where the host knows: without it, decisions are on wall time.
 */
export function noiseRule(config: Config, cal: CalibrationDoc | undefined, cpuHere?: boolean): NoiseRule {
  const on = config.evaluation.decide_on;
  const bandPct = bandFor(cal, on);
  const marginPct = config.strategy.min_improvement_pct;
  const falsePromotionPct = 100 * allowedFalsePromotion(config.strategy.alpha);
  const basis = on === 'cpu' && (!cal || cal.cpu) && cpuHere !== false ? 'CPU' : 'wall';
  const band = cal
    ? `noise band ${bandPct.toFixed(1)}% (calibrated ${cal.at.slice(0, 10)}, ${cal.n} instances; for information)`
    : "PAR-2 test against the session's run noise, no noise band needed";
  return {
    on,
    bandPct,
    marginPct,
    falsePromotionPct,
    calibrated: cal ? { at: cal.at, n: cal.n, machine: cal.scope.machine } : null,
    line: `raced side by side on ${basis} time; ${band}; margin ${marginPct.toFixed(1)}%; identical solvers promoted at most ${falsePromotionPct.toFixed(1)}% of decisions`,
  };
}
