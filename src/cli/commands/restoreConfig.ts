import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LAST_GOOD_CONFIG, restoreConfig, RestoreConfigError, workspaceState } from '../../core/config/lastGood';
import { CONFIG_FILE } from '../../core/layout';
import { UsageError } from '../exit';

export const RESTORE_CONFIG_HELP = `satlution restore-config [--dir D]

Puts back a deleted ${CONFIG_FILE} from the last copy that loaded (${LAST_GOOD_CONFIG}), in the
nearest folder at or above D whose store remains. \`satlution init\` there would start a new history.`;

export async function restoreConfigCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { dir: { type: 'string', default: '.' } }, strict: true });
  const ws = await configlessWorkspace(path.resolve(values.dir));
  if (!ws) throw new UsageError(`no SATLUTION workspace without a ${CONFIG_FILE} in ${values.dir} or above (nothing to restore)`);
  try {
    process.stdout.write(`restored ${await restoreConfig(ws)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof RestoreConfigError) throw new UsageError(e.message);
    throw e;
  }
}

/** The nearest folder at or above `start` that has a store but no config; a complete workspace on the way ends the search. */
async function configlessWorkspace(start: string): Promise<string | undefined> {
  for (let d = start; ; d = path.dirname(d)) {
    const s = await workspaceState(d);
    if (s === 'configMissing') return d;
    if (s === 'workspace' || path.dirname(d) === d) return undefined;
  }
}
