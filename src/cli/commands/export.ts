import * as fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { exportTrajectories } from '../../core/export/trajectories';
import { findWorkspace } from '../../core/workspace/snapshot';
import { EXIT, UsageError } from '../exit';

export const EXPORT_HELP = `satlution export [--out FILE] [--dir D]

Writes every agent session (planner, coder, judge) as one JSONL line in the chat format fine-tuning
tools read: {"messages": [system, user, assistant with tool_calls, tool ...], "metadata": {cycle, role,
candidate, status, verdict, failed_gate, gain_pct, reward, input_tokens, output_tokens}}. The reward is
-0.4 (no patch), -0.3 (rule violation), -0.2 (build failure or crash), -0.1 (wrong answer or bad
proof), or for a correct candidate 1/(1+exp(-gain%/5)) of its PAR-2 gain over the parent; null where
nothing was measured. Without --out, to standard output. Sessions of the offline tuner have no
transcript and are not exported.`;

export async function exportCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { out: { type: 'string' }, dir: { type: 'string', default: '.' } }, strict: true });
  const ws = await findWorkspace(values.dir);
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above; create a workspace with \`satlution init\``);
  const records = await exportTrajectories(ws);
  const text = records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : '');
  if (values.out) await fs.writeFile(values.out, text);
  else process.stdout.write(text);
  const rewarded = records.filter((r) => r.metadata.reward !== null).length;
  process.stderr.write(
    `exported ${records.length} session${records.length === 1 ? '' : 's'} (${rewarded} with a reward)${values.out ? ` to ${values.out}` : ''}\n`,
  );
  return EXIT.ok;
}
