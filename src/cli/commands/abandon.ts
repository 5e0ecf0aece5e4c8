import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { candidateDirName } from '../../core/layout';
import { AbandonError, abandonCycle } from '../../core/store/abandonInterrupted';
import { findWorkspace } from '../../core/workspace/snapshot';
import { UsageError } from '../exit';

export const ABANDON_HELP = `satlution abandon [--dir D]

Abandons the interrupted (paused or crashed) evolution cycle: its unfinished candidates are marked
discarded ("abandoned by the user"; their directories stay) and the cycle ends, so the next
\`satlution cycle\` starts a new one instead of resuming it. Refuses while a cycle is running.`;

export async function abandonCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { dir: { type: 'string', default: '.' } }, strict: true });
  const ws = await findWorkspace(path.resolve(values.dir));
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above`);
  try {
    const r = await abandonCycle(ws);
    const what = r.discarded.length ? `; discarded ${r.discarded.map(candidateDirName).join(', ')}` : '';
    process.stdout.write(`cycle ${r.cycle} abandoned${what}\n`);
    return 0;
  } catch (e) {
    if (e instanceof AbandonError) throw new UsageError(e.message);
    throw e;
  }
}
