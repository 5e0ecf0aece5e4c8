import { cpuMeasuredHere } from '../../core/run/measurement';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { workspaceState } from '../../core/config/lastGood';
import { unisolated } from '../../core/isolation/settings';
import { formatIssue } from '../../core/config/load';
import { candidateDirName } from '../../core/layout';
import { findWorkspace, readSnapshot, type CandidateView, type WorkspaceSnapshot } from '../../core/workspace/snapshot';
import { watchWorkspace } from '../../core/workspace/watch';
import { judgeStats, type JudgeStats } from '../../core/strategy/judgeLog';
import { EvalStore } from '../../core/eval/evalStore';
import { UsageError } from '../exit';
import { red } from '../terminal';
import { noiseRule, readCalibration, type NoiseRule } from '../../core/decide/calibration';

export const STATUS_HELP = `satlution status [--dir D] [--json] [--watch]

Lists the candidates as a lineage tree with their status and the champion (★). --json prints the
same as one JSON object: { workspace, config_ok, config_issues, champion, seeds, benchmarks, candidates }.
--watch shows the status again whenever it changes (e.g. while a cycle runs elsewhere); Ctrl-C ends it.`;

export async function statusCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { dir: { type: 'string', default: '.' }, json: { type: 'boolean', default: false }, watch: { type: 'boolean', default: false } },
    strict: true,
  });
  const dir = await findWorkspace(values.dir);
  // A store without its config is a workspace to restore, not one to create: init there would orphan its history.
  if (!dir && (await workspaceState(path.resolve(values.dir))) === 'configMissing')
    throw new UsageError(`${values.dir} is a SATLUTION workspace whose satlution.yaml is missing; put it back with \`satlution restore-config\``);
  if (!dir) throw new UsageError(`no satlution.yaml in ${values.dir} or above; create a workspace with \`satlution init\``);
  const show = async () => {
    const snap = await readSnapshot(dir);
    const rule = snap.config.ok ? noiseRule(snap.config.config, await readCalibration(dir), await cpuMeasuredHere()) : undefined;
    const warnings = await new EvalStore(dir).warnings(snap.candidates.map((c) => c.dir));
    if (values.json) process.stdout.write(JSON.stringify(toJson(snap, warnings, rule), values.watch ? undefined : null, values.watch ? undefined : 2) + '\n');
    else process.stdout.write((values.watch && process.stdout.isTTY ? '\x1b[2J\x1b[H' : '') + render(snap, warnings, rule) + judgeLine(await judgeStats(dir)));
    return snap;
  };
  const snap = await show();
  if (!values.watch) return snap.config.ok ? 0 : 2;
  const w = watchWorkspace(dir, () => void show());
  await w.ready;
  // On stderr, so that scripts reading the status on stdout see statuses only.
  process.stderr.write('satlution status: watching for changes (Ctrl-C ends)\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await w.close();
  return 0;
}

function toJson(s: WorkspaceSnapshot, warnings: ReadonlyMap<string, string[]>, rule: NoiseRule | undefined) {
  return {
    verdicts: rule
      ? { on: rule.on, band_pct: rule.bandPct, margin_pct: rule.marginPct, false_promotion_pct: rule.falsePromotionPct, calibrated: rule.calibrated }
      : null,
    workspace: s.dir,
    config_ok: s.config.ok,
    config_issues: s.config.ok ? [] : s.config.issues,
    unisolated: s.config.ok ? unisolated(s.config.config) : null,
    champion: s.champion === null ? null : candidateDirName(s.champion),
    seeds: s.seeds,
    benchmarks: s.benchmarks,
    candidates: s.candidates.map((c) => ({
      id: c.id,
      dir: c.dir,
      parent: c.parent === null ? null : candidateDirName(c.parent),
      lineage: c.lineage.map(candidateDirName),
      status: c.status,
      champion: c.champion,
      seed: c.seed ?? null,
      created_at: c.created_at,
      updated_at: c.updated_at,
      detail: c.detail ?? null,
      docs: c.docs,
      missing: c.missing,
      checkpoint: c.checkpoint ?? null,
      // Gates of its latest evaluation that passed with nothing checked (evaluation.vacuous_gates: warn).
      warnings: warnings.get(c.dir) ?? [],
    })),
    store: s.store,
  };
}

/** SIFT's judge in one line: how many scores, how many evaluated, and whether scores track gains. */
function judgeLine(j: JudgeStats): string {
  if (!j.points.length) return '';
  const r = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
  return `\njudge: ${j.points.length} proposal${j.points.length > 1 ? 's' : ''} scored, ${j.n} evaluated ${j.spearman === null ? '(too few to correlate)' : `(score vs measured gain: Spearman ${r(j.spearman)}, Pearson ${r(j.pearson)})`}\n`;
}

function render(s: WorkspaceSnapshot, warnings: ReadonlyMap<string, string[]>, rule: NoiseRule | undefined): string {
  const row = (label: string, value: string) => `${label.padEnd(11)}${value}`;
  const out: string[] = [row('Workspace', s.dir)];
  if (s.config.ok) out.push(row('Config', 'satlution.yaml is valid'));
  else out.push(row('Config', `${s.config.issues.length} problem(s):`), ...s.config.issues.map((i) => '  ' + formatIssue(i)));
  if (s.config.ok) {
    const off = unisolated(s.config.config);
    if (off.workspace || off.runners.length)
      out.push(
        row(
          'Sandbox',
          `WARNING: measured without isolation (sandbox: off${off.workspace ? '' : ` on ${off.runners.join(', ')}`}): evolved code runs with your full authority and can read the answers`,
        ),
      );
    else out.push(row('Sandbox', 'on: builds and runs are isolated (bubblewrap)'));
  }
  if (rule) out.push(row('Verdicts', rule.line));
  if (s.store.rebuilt) out.push(row('Store', `rebuilt from the log and the directories on disk (${s.store.rebuilt})`));
  if (s.store.adopted.length) out.push(row('Store', `recorded directories found without a record: ${s.store.adopted.map(candidateDirName).join(', ')}`));
  out.push(row('Champion', s.champion === null ? '(none)' : candidateDirName(s.champion)));
  out.push(
    row(
      'Seeds',
      s.seeds.map((x) => `${x.name} (${x.files} files, ${x.source}${x.commit ? ' @ ' + x.commit.slice(0, 12) : ''})`).join('; ') || '(none recorded)',
    ),
  );
  if (s.benchmarks.length)
    out.push(
      row(
        'Benchmarks',
        s.benchmarks
          .map(
            (b) =>
              `${b.name} ${!b.exists ? '(missing directory ' + b.dir + ')' : b.instances === 0 ? '(empty)' : `${b.instances} instance${b.instances > 1 ? 's' : ''}${b.hasMeta ? '' : ', no meta.csv'}`}`,
          )
          .join('; '),
      ),
    );
  out.push('', 'Candidates');
  const children = new Map<number | null, CandidateView[]>();
  const ids = new Set(s.candidates.map((c) => c.id));
  for (const c of s.candidates) {
    const p = c.parent !== null && ids.has(c.parent) ? c.parent : null;
    children.set(p, [...(children.get(p) ?? []), c]);
  }
  const width = Math.max(...s.candidates.map((c) => c.dir.length + 2 * (c.lineage.length - 1)), 12);
  const walk = (parent: number | null, depth: number) => {
    for (const c of children.get(parent) ?? []) {
      const name = '  '.repeat(depth) + c.dir;
      const flags = [c.seed ? `seed ${c.seed}` : '', c.missing ? 'DIRECTORY MISSING' : '', c.detail ?? ''].filter(Boolean).join(' · ');
      out.push(`${c.champion ? '★' : ' '} ${name.padEnd(width)}  ${c.status.padEnd(10)}  ${c.updated_at.slice(0, 16).replace('T', ' ')}  ${flags}`);
      for (const w of warnings.get(c.dir) ?? []) out.push(red(`${' '.repeat(2 + 2 * depth)}  warning: ${w}`));
      walk(c.id, depth + 1);
    }
  };
  walk(null, 0);
  if (s.candidates.length === 0) out.push('  (none)');
  return out.join('\n') + '\n';
}
