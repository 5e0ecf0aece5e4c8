import * as fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load';
import { createClient, apiKeyFromEnv } from '../../core/llm/factory';
import { proposeObjective } from '../../core/objectives/propose';
import { addObjective, DEFAULT_OBJECTIVES, scorePortfolio } from '../../core/objectives/portfolio';
import { candidateDirName } from '../../core/layout';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../exit';

export const OBJECTIVES_HELP = `satlution objectives [list | defaults | add NAME FILE [--rationale TEXT] [--multiplier M] | propose] [--dir D] [--json]

The objective portfolio: functions over a candidate's per-instance perf results (lower is better),
merged by consensus (ranks, Kendall tau agreement with age decay and multipliers, weighted Borda
score). Correctness is a gate, never an objective: only candidates that passed every gate on the full
perf set are scored. Each objective runs in its own sandboxed process with time and memory limits.
  list       the objectives with their weights, and the candidates by consensus score (default)
  defaults   adds a starting set: par2, unsolved, par2_unsat, geomean_speedup
  add        adds FILE (a JavaScript arrow function (d) => number) as NAME
  propose    asks the judge model (else the planner's) to write one; it must run on every scored
             candidate before it is added`;

export async function objectivesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      dir: { type: 'string', default: '.' },
      json: { type: 'boolean', default: false },
      rationale: { type: 'string' },
      multiplier: { type: 'string' },
    },
    strict: true,
  });
  const ws = await findWorkspace(values.dir);
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above; create a workspace with \`satlution init\``);
  const [sub = 'list', ...rest] = positionals;
  if (sub === 'defaults') {
    for (const o of DEFAULT_OBJECTIVES) await addObjective(ws, { ...o, author: 'person' });
    process.stderr.write(`added ${DEFAULT_OBJECTIVES.map((o) => o.name).join(', ')}\n`);
  } else if (sub === 'add') {
    const [name, file] = rest;
    if (!name || !file) throw new UsageError(`add needs NAME and FILE\n\n${OBJECTIVES_HELP}`);
    const multiplier = values.multiplier === undefined ? 1 : Number(values.multiplier);
    if (!(multiplier >= 0)) throw new UsageError(`--multiplier must be a number >= 0, got "${values.multiplier}"`);
    const code = await fs.readFile(file, 'utf8').catch(() => {
      throw new UsageError(`cannot read ${file}`);
    });
    try {
      await addObjective(ws, { name, code, rationale: values.rationale ?? '', author: 'person', multiplier });
    } catch (e) {
      throw new UsageError(
        (e as Error).message.includes('objective name')
          ? `"${name}": an objective name is lowercase letters, digits, "_" and "-", starting with a letter`
          : (e as Error).message,
      );
    }
  } else if (sub === 'propose') {
    const config = await loadConfig(ws);
    const m = config.models.judge ?? config.models.planner;
    if (!m) throw new UsageError('propose needs a model: set models.judge (or models.planner) in satlution.yaml');
    const e = await proposeObjective(ws, createClient(m, apiKeyFromEnv(m)));
    process.stderr.write(`added ${e.name}: ${e.rationale}\n`);
  } else if (sub !== 'list') throw new UsageError(`unknown subcommand "${sub}"\n\n${OBJECTIVES_HELP}`);
  const view = await scorePortfolio(ws);
  if (values.json) process.stdout.write(JSON.stringify(view, null, 2) + '\n');
  else {
    const out = [`Objectives (round ${view.round})`];
    for (const o of view.objectives)
      out.push(
        `  ${o.name.padEnd(22)} weight ${o.weight.toFixed(2)}  tau ${o.tau === null ? ' n/a' : o.tau.toFixed(2).padStart(5)}  ${o.author.padEnd(6)} round ${o.created_round}${o.multiplier !== 1 ? `  x${o.multiplier}` : ''}${o.error ? `  ERROR ${o.error}` : ''}`,
      );
    if (!view.objectives.length) out.push('  (none: `satlution objectives defaults` adds a starting set)');
    out.push('', 'Candidates by consensus (0 = ranked first by every weighted objective)');
    for (const c of view.candidates) out.push(`  ${candidateDirName(c.candidate).padEnd(14)} ${c.score.toFixed(3)}`);
    if (!view.candidates.length) out.push('  (none measured on the full perf set yet)');
    process.stdout.write(out.join('\n') + '\n');
  }
  return EXIT.ok;
}
