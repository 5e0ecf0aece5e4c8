import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { Phase } from '../../core/rules/schema';
import { checkCandidate } from '../../core/rules/workspaceCheck';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../errors';

export const RULES_HELP = `satlution rules check [DIR] [--phase PHASE] [--json]

Checks a candidate directory (default: the current one) against the workspace's .rules/: required files
and sections, forbidden patterns in C/C++ code (comments and strings ignored), banned includes and link
flags, benchmark instance names in the source, protected paths changed from the parent. Pattern hits the
parent already has are not counted. Prints each violation as RULE file:line message and the compliance
score. Exit 0: no errors (warnings allowed); 1: errors; 2: bad usage or a broken rule file.`;

export async function rulesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'check') throw new UsageError(`rules needs a subcommand: check\n\n${RULES_HELP}`);
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { phase: { type: 'string', default: 'pre-evaluation' }, json: { type: 'boolean', default: false } }, strict: true });
  const phase = Phase.safeParse(values.phase);
  if (!phase.success) throw new UsageError(`--phase must be one of ${Phase.options.join(', ')}`);
  const dir = path.resolve(positionals[0] ?? '.');
  const ws = await findWorkspace(dir);
  if (!ws) throw new UsageError(`${dir} is not inside a SATLUTION workspace (no satlution.yaml above it)`);
  let report;
  try {
    report = await checkCandidate(ws, await loadConfig(ws), dir, phase.data);
  } catch (e) {
    if ((e as Error).name === 'ConfigError') throw e;
    throw new UsageError((e as Error).message);
  }
  if (values.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else {
    const rel = (f: string | null, l: number | null) => (f ? `${f}${l ? `:${l}` : ''}` : '-');
    for (const v of report.violations) process.stdout.write(`${v.severity === 'error' ? 'error  ' : 'warning'} ${v.rule} ${v.check}  ${rel(v.file, v.line)}  ${v.message}\n`);
    process.stdout.write(
      `${report.errors} error(s), ${report.warnings} warning(s)${report.inherited ? `, ${report.inherited} hit(s) in code the candidate inherited (not counted)` : ''}; compliance ${(100 * report.score).toFixed(0)}% (${report.checksPassed}/${report.checksRun} checks passed)\n`,
    );
  }
  return report.errors ? EXIT.gateFailed : EXIT.ok;
}
