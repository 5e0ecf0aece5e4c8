import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { parseCandidateDir } from '../../core/layout';
import { newCandidate } from '../../core/workspace/newCandidate';
import { findWorkspace } from '../../core/workspace/snapshot';
import { UsageError } from '../exit';

export const NEW_HELP = `satlution new [--from SATLUTION_k] [--title TEXT] [--dir D]

Starts a challenger by hand: records SATLUTION_<next> with its parent (default: the champion), copies
the parent's directory, and writes HYPOTHESIS.md / CHANGELOG.md / RESULTS.md to fill in. Edit it, then
\`satlution eval SATLUTION_<next>\`.`;

export async function newCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { from: { type: 'string' }, title: { type: 'string' }, dir: { type: 'string', default: '.' } },
    strict: true,
  });
  const ws = await findWorkspace(path.resolve(values.dir));
  if (!ws) throw new UsageError(`no satlution.yaml in ${values.dir} or above`);
  const parent = values.from === undefined ? undefined : parseCandidateDir(values.from);
  if (values.from !== undefined && parent === undefined) throw new UsageError(`--from expects a candidate such as SATLUTION_3, got "${values.from}"`);
  try {
    const rec = await newCandidate(ws, { ...(parent !== undefined ? { parent } : {}), ...(values.title ? { title: values.title } : {}) });
    process.stdout.write(`${path.join(ws, rec.dir)}\n`);
    return 0;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
