import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { Phase } from '../../core/rules/ruleSchema';
import { applyPatch, history, listPatches, rejectPatch, ruleStats } from '../../core/rules/evolution';
import { installHook } from '../../core/rules/hook';
import { checkCandidate } from '../../core/rules/workspaceCheck';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../exit';

export const RULES_HELP = `satlution rules check [DIR] [--phase PHASE] [--json]
satlution rules pending [--diff]          satlution rules apply ID        satlution rules reject ID
satlution rules history                   satlution rules stats           satlution rules install-hook

Checks a candidate directory (default: the current one) against the workspace's .rules/: required files
and sections, forbidden patterns in C/C++ code (comments and strings ignored), banned includes and link
flags, benchmark instance names in the source, protected paths changed from the parent. Pattern hits the
parent already has are not counted. Prints each violation as RULE file:line message and the compliance
score. Exit 0: no errors (warnings allowed); 1: errors; 2: bad usage or a broken rule file.

After each evaluation in a workspace, a post-mortem records the failure signatures; a failure that
repeats in two candidates becomes a pending rule patch. \`pending\` lists them (--diff shows each diff),
\`apply\` writes one (bumping the rule's version and snapshotting the rule set to .rules/.history/vN/),
\`reject\` drops it. \`history\` shows what changed and why; \`stats\` how often each rule fired, stopped a
candidate, and was followed by a fix. \`install-hook\` adds a git pre-commit hook that runs the check on
every staged candidate.`;

export async function rulesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'check') return checkSub(rest);
  if (sub === 'pending' || sub === 'apply' || sub === 'reject' || sub === 'history' || sub === 'stats' || sub === 'install-hook')
    return evolutionSub(sub, rest);
  throw new UsageError(`rules needs a subcommand: check, pending, apply, reject, history, stats or install-hook\n\n${RULES_HELP}`);
}

async function workspaceOf(dir: string): Promise<string> {
  const ws = await findWorkspace(dir);
  if (!ws) throw new UsageError(`${dir} is not inside a SATLUTION workspace (no satlution.yaml above it)`);
  return ws;
}

async function evolutionSub(sub: string, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { diff: { type: 'boolean', default: false }, dir: { type: 'string', default: '.' } },
    strict: true,
  });
  const ws = await workspaceOf(path.resolve(values.dir));
  const out = (s: string) => process.stdout.write(s + '\n');
  switch (sub) {
    case 'pending': {
      const pending = (await listPatches(ws)).filter((p) => p.status === 'pending');
      if (!pending.length) out('no pending rule patches');
      for (const p of pending) {
        out(`${p.id}  ${p.rule_id} (${p.file})  ${p.rationale}`);
        if (values.diff) out(p.diff);
      }
      return EXIT.ok;
    }
    case 'apply':
    case 'reject': {
      const id = positionals[0];
      if (!id) throw new UsageError(`rules ${sub} needs a patch id (satlution rules pending lists them)`);
      try {
        if (sub === 'apply') out(`applied ${id}: the rule set is now version ${await applyPatch(ws, id)} (.rules/.history/)`);
        else {
          await rejectPatch(ws, id);
          out(`rejected ${id}`);
        }
      } catch (e) {
        throw new UsageError((e as Error).message);
      }
      return EXIT.ok;
    }
    case 'history': {
      const h = await history(ws);
      if (!h.length) out('the rule set has not changed since init');
      for (const e of h) out(`v${e.version}  ${e.at.slice(0, 16).replace('T', ' ')}  ${e.rule ?? '-'}  ${e.patch ?? ''}  ${e.why}`);
      return EXIT.ok;
    }
    case 'stats': {
      const st = await ruleStats(ws);
      if (!st.length) out('no rule has fired yet');
      else out('rule                            fired  stopped a candidate  followed by a fix');
      for (const r of st) out(`${r.rule.padEnd(32)}${String(r.fired).padStart(5)}  ${String(r.prevented).padStart(19)}  ${String(r.fixed).padStart(17)}`);
      return EXIT.ok;
    }
    default: {
      const hook = await installHook(ws, path.resolve(__filename));
      out(`installed ${hook}: each commit runs \`satlution rules check\` on the candidates it changes`);
      return EXIT.ok;
    }
  }
}

async function checkSub(rest: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { phase: { type: 'string', default: 'pre-evaluation' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  const phase = Phase.safeParse(values.phase);
  if (!phase.success) throw new UsageError(`--phase must be one of ${Phase.options.join(', ')}`);
  const dir = path.resolve(positionals[0] ?? '.');
  const ws = await workspaceOf(dir);
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
    for (const v of report.violations)
      process.stdout.write(`${v.severity === 'error' ? 'error  ' : 'warning'} ${v.rule} ${v.check}  ${rel(v.file, v.line)}  ${v.message}\n`);
    process.stdout.write(
      `${report.errors} error(s), ${report.warnings} warning(s)${report.inherited ? `, ${report.inherited} hit(s) in code the candidate inherited (not counted)` : ''}; compliance ${(100 * report.score).toFixed(0)}% (${report.checksPassed}/${report.checksRun} checks passed)\n`,
    );
  }
  return report.errors ? EXIT.gateFailed : EXIT.ok;
}
