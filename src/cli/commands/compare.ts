import * as fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import * as path from 'node:path';
import { compareSeparate, type Comparison } from '../../core/decide/comparison';
import { bandFor, readCalibration } from '../../core/decide/calibration';
import { driftBand, readDrift } from '../../core/decide/drift';
import { measureSideBySide } from '../../core/decide/measureTogether';
import type { TimeBasis } from '../../core/eval/metrics';
import { loadConfig } from '../../core/config/load';
import { findWorkspace } from '../../core/workspace/snapshot';
import { runnerEnv } from '../runnerEnv';
import { EvalDoc } from '../../core/eval/evalDoc';
import { UsageError } from '../exit';
import { familySummary, familyText } from '../../core/familyReport';

export const COMPARE_HELP = `satlution compare A.json B.json [--alpha 0.05] [--on cpu|wall] [--band PCT] [--json]
       satlution compare --measure DIR_A DIR_B [--set NAME] [--dir D] [--json]

Paired comparison of two \`satlution eval --json\` results on the instances both ran: PAR-2 of each,
the difference B - A with a 95% confidence interval (random-subset means), the promotion test (each
side's expected PAR-2 on these instances against the run noise, and its unsolved instances where the
workspace's evaluation.rank_by is solved-then-par2), B's geometric-mean speed-up with its sign-flip p,
and the Wilcoxon signed-rank test on per-instance PAR-2 times (for the record). Where the instances
have two families or more (meta.csv), each family's PAR-2 on both sides, its change and solved counts,
and the families B is significantly slower on by more than the workspace's evaluation.families
tolerance (default 5%); the JSON has them under "families".
"B faster" only when the promotion test's one-sided p is under alpha / 2 and the difference is larger
than the noise band (--band, default: the workspace's calibration, else 0); "A faster" likewise the
other way. --on picks the time compared
(default: the workspace's evaluation.decide_on, else cpu; CPU only when every run compared has a
measured CPU time, else wall time for all of them, and the output says which).
Two results measured at different moments carry the machine's drift between them: the band is raised
to the drift the workspace has recorded between separate measurements of one binary (the median
observation; one is recorded each time a cycle or calibrate measures the champion again); before any
is recorded, or when their runs got clearly different shares of the CPU (other load on the machine),
no difference is called at all (an explicit --band decides instead of the record). --measure runs the
two solvers side by side in one session on the workspace's perf set, or on the benchmark set --set
names (ABBA), and needs none of this; its JSON adds the session, whose per-instance pairs are in .satlution/duels/SESSION.json.`;

/** What a comparison needs of an evaluation document (eval/evalDoc.ts): a measurement with its timeout. */
const Measured = EvalDoc.pick({ solver: true, instances: true }).extend({ timeout_s: z.number().positive() });

async function readEval(file: string) {
  const text = await fs.readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${e.code ?? e.message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON (expected the output of satlution eval --json)`);
  }
  const r = Measured.safeParse(json);
  if (!r.success) throw new UsageError(`${file} is not a satlution eval result: ${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message}`);
  return r.data;
}

export async function compareCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      alpha: { type: 'string', default: '0.05' },
      json: { type: 'boolean', default: false },
      on: { type: 'string' },
      band: { type: 'string' },
      measure: { type: 'boolean', default: false },
      set: { type: 'string' },
      dir: { type: 'string', default: '.' },
    },
    strict: true,
  });
  if (positionals.length !== 2) throw new UsageError(`compare needs two ${values.measure ? 'solver directories' : 'result files'}\n\n${COMPARE_HELP}`);
  const alpha = Number(values.alpha);
  if (!(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must be between 0 and 1, got "${values.alpha}"`);
  if (values.on !== undefined && values.on !== 'cpu' && values.on !== 'wall') throw new UsageError(`--on must be cpu or wall, got "${values.on}"`);
  const band = values.band === undefined ? undefined : Number(values.band);
  if (band !== undefined && !(band >= 0 && band < 100)) throw new UsageError(`--band must be a percentage between 0 and 100, got "${values.band}"`);
  const ws = await findWorkspace(values.dir);
  const config = ws ? await loadConfig(ws).catch(() => undefined) : undefined;
  const on: TimeBasis = (values.on as TimeBasis | undefined) ?? config?.evaluation.decide_on ?? 'cpu';
  const bandPct = band ?? (ws ? bandFor(await readCalibration(ws), on) : 0);
  if (values.measure) {
    if (!ws || !config) throw new UsageError(`--measure runs on a workspace's perf set: no satlution.yaml in ${values.dir} or above`);
    const dirs = positionals.map((p) => path.resolve(ws, p));
    if (values.set !== undefined && !(values.set in config.benchmarks))
      throw new UsageError(`--set ${values.set}: no such benchmark set in satlution.yaml (sets: ${Object.keys(config.benchmarks).join(', ')})`);
    const progress = process.stderr.isTTY ? (done: number, total: number) => process.stderr.write(`\rside by side: ${done}/${total} runs`) : undefined;
    const d = await measureSideBySide({
      ws,
      config,
      a: dirs[0]!,
      b: dirs[1]!,
      purpose: 'compare',
      on,
      bandPct,
      alpha,
      build: true,
      runnerEnv: runnerEnv(),
      ...(values.set !== undefined ? { overrides: { bench: values.set } } : {}),
      ...(progress ? { onProgress: progress } : {}),
    });
    if (progress) process.stderr.write('\n');
    return report(
      { solver: dirs[0]! },
      { solver: dirs[1]! },
      d.doc.timeout_s,
      d.cmp,
      alpha,
      values.json === true,
      `side by side in one session (${d.doc.session}, ${d.doc.pairs.length} pairs on ${d.doc.set}, blocks of ${d.doc.block}, ABBA)`,
      d.doc.session,
    );
  }
  const [a, b] = await Promise.all(positionals.map(readEval));
  if (a!.timeout_s !== b!.timeout_s)
    throw new UsageError(`the two evaluations used different timeouts (${a!.timeout_s} s and ${b!.timeout_s} s); PAR-2 is not comparable`);
  // An explicit --band is the user's; otherwise separate measurements need the drift the workspace has recorded.
  const drift = band !== undefined ? undefined : (driftBand(ws ? await readDrift(ws) : undefined, on) ?? 'unmeasured');
  const c = compareSeparate(a!.instances, b!.instances, a!.timeout_s, {
    alpha,
    on,
    bandPct,
    ...(config ? { rankBy: config.evaluation.rank_by, families: config.evaluation.families } : {}),
    ...(drift ? { drift } : {}),
  });
  const driftNote =
    drift && drift !== 'unmeasured'
      ? `; band raised to the drift recorded between separate measurements here (median observation), ${drift.pct.toFixed(1)}% (${drift.n} observation${drift.n > 1 ? 's' : ''})`
      : '';
  return report(
    a!,
    b!,
    a!.timeout_s,
    c,
    alpha,
    values.json === true,
    `two separate measurements (drift between them is not cancelled; --measure compares side by side)${driftNote}`,
  );
}

/** Prints a comparison, as JSON or for a person. */
function report(
  a: { solver: string },
  b: { solver: string },
  timeoutS: number,
  c: Comparison,
  alpha: number,
  json: boolean,
  how: string,
  session?: string,
): number {
  if (json) {
    process.stdout.write(JSON.stringify({ a: a.solver, b: b.solver, timeout_s: timeoutS, how, ...(session ? { session } : {}), ...c }, null, 2) + '\n');
    return 0;
  }
  const f = (x: number) => x.toFixed(2);
  process.stdout.write(
    [
      `A ${a.solver}`,
      `B ${b.solver}`,
      `measured: ${how}`,
      `common instances ${c.common}${c.onlyA || c.onlyB ? ` (only in A: ${c.onlyA}, only in B: ${c.onlyB})` : ''}`,
      `PAR-2 on ${c.on === 'cpu' ? 'CPU' : 'wall'} time  A ${f(c.par2A)} s   B ${f(c.par2B)} s   B - A ${f(c.diff)} s  (95% CI ${f(c.ci95[0])} .. ${f(c.ci95[1])})`,
      `solved only by A ${c.solvedOnlyA}, only by B ${c.solvedOnlyB}`,
      `test (ranked by ${c.test.rank_by === 'par2' ? 'PAR-2' : 'solved, then PAR-2'}): B better p=${c.test.p.toPrecision(3)}, B worse p=${c.test.p_worse.toPrecision(3)}; its parts in B's favour: expected PAR-2 p=${c.test.par2_p.toPrecision(3)} (gain ${c.test.gain_pct.toFixed(1)}% +- ${c.test.gain_se_pct.toFixed(1)}%)${c.test.solved_p === null ? '' : `, unsolved instances p=${c.test.solved_p.toPrecision(3)}`} (against a run noise of ${(100 * c.test.sigma).toFixed(1)}% per run); for the report, log time ratios p=${c.test.log_ratio_p.toPrecision(3)} (sign-flip)`,
      `geometric mean: B ${Math.abs(c.ratio.speedup_pct).toFixed(1)}% ${c.ratio.speedup_pct >= 0 ? 'faster' : 'slower'} than A`,
      `Wilcoxon signed-rank: n=${c.wilcoxon.n}, W=${c.wilcoxon.w}, p=${c.wilcoxon.p.toPrecision(3)} (${c.wilcoxon.method})`,
      `verdict: ${c.verdict} (alpha ${alpha}${c.band_pct ? `, noise band ${c.band_pct.toFixed(1)}%` : ''})`,
      ...(c.caveat ? [`why: ${c.caveat}`] : []),
      ...(c.families ? ['', 'by family:', ...familyText(c.families, 'A', 'B').map((l) => `  ${l}`), familySummary(c.families)] : []),
    ].join('\n') + '\n',
  );
  return 0;
}
