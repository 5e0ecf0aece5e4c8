import { cpuFix } from '../../core/run/measurement';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { allowedFalsePromotion, calibrate, type CalibrationDoc, type NoiseDoc } from '../../core/decide/calibration';
import { candidateDirName } from '../../core/layout';
import { CandidateStore } from '../../core/store/candidates';
import { findWorkspace } from '../../core/workspace/snapshot';
import { UsageError } from '../exit';
import { runnerEnv } from '../runnerEnv';
import { pPhrase } from '../../core/explain';

export const CALIBRATE_HELP = `satlution calibrate [--dir D] [--solver SATLUTION_N] [--json]

Measures the noise band: the champion (or --solver) against itself on the perf set, side by side in one
session (ABBA blocks on the perf runner), and keeps it in .satlution/calibration.json. Prints the A/A PAR-2
difference with its CI and the per-instance spread: how noisy this machine, runner and set are. For
information: decisions do not use the band (the race's PAR-2 test measures the run noise of its own
session), and cycles no longer calibrate.`;

export async function calibrateCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { dir: { type: 'string', default: '.' }, solver: { type: 'string' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  const ws = await findWorkspace(values.dir);
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above; create a workspace with \`satlution init\``);
  const config = await loadConfig(ws);
  const champion = (await new CandidateStore(ws).load()).index.champion;
  const solver = values.solver ?? (champion === null ? undefined : candidateDirName(champion));
  if (!solver) throw new UsageError('there is no champion to calibrate with; pass --solver SATLUTION_N');
  const progress = process.stderr.isTTY ? (done: number, total: number) => process.stderr.write(`\rcalibrating: ${done}/${total} runs`) : undefined;
  const doc = await calibrate({
    ws,
    config,
    solverDir: path.resolve(ws, solver),
    runnerEnv: runnerEnv(),
    build: true,
    ...(progress ? { onProgress: progress } : {}),
  });
  if (progress) process.stderr.write('\n');
  if (values.json) process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  else process.stdout.write(renderCalibration(doc, config.evaluation.decide_on, config.strategy.min_improvement_pct));
  return 0;
}

/** The calibration as a person reads it. */
export function renderCalibration(doc: CalibrationDoc, on: 'wall' | 'cpu', minImprovementPct: number): string {
  const line = (name: string, n: NoiseDoc) =>
    `${name}: band ${n.band_pct.toFixed(1)}% of PAR-2 (A/A difference ${n.diff_pct.toFixed(1)}%, ${pPhrase(n.p)}${n.aa_significant ? ', significant without the band' : ''}); per-instance spread median ${n.spread_median_pct ?? '-'}%, 90th percentile ${n.spread_p90_pct ?? '-'}%`;
  const used = on === 'cpu' && doc.cpu ? doc.cpu : doc.wall;
  return (
    [
      `${doc.solver} against itself on ${doc.n} instances, side by side (${doc.scope.runner}, ${doc.scope.machine}, timeout ${doc.scope.timeout_s} s)`,
      line('wall time', doc.wall),
      doc.cpu ? line('CPU time ', doc.cpu) : `CPU time: not measured for every run on this machine, so decisions use wall time; to get it: ${cpuFix()}`,
      `decisions on ${on === 'cpu' && doc.cpu ? 'CPU' : 'wall'} time: a challenger needs a PAR-2 gain of at least ${minImprovementPct}% (min_improvement_pct) in its race with the champion, and the PAR-2 test against its session's run noise at one-sided ${allowedFalsePromotion(doc.alpha)} (shared among the race's challengers), so two identical solvers pass at most ${(100 * allowedFalsePromotion(doc.alpha)).toFixed(1)}% of the time whatever the band; this band (${used.band_pct.toFixed(1)}%) is for information`,
    ].join('\n') + '\n'
  );
}
