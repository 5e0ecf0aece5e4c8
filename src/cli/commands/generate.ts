import * as fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pigeonhole, planted3Sat } from '../../core/instances/generators';
import { UsageError } from '../errors';

export const GENERATE_HELP = `satlution generate pigeonhole PIGEONS HOLES [--out FILE]
satlution generate planted VARS RATIO SEED [--out FILE]

Writes a CNF whose answer is known by construction, for smoke and verify sets: pigeonhole is UNSAT
when PIGEONS > HOLES (hard for resolution: PHP(10,9) takes seconds); planted is "2-hidden" random
3-SAT, satisfiable by construction (ratio about 4.2 is hardest).`;

export async function generateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' } }, strict: true });
  const [kind, ...rest] = positionals;
  const nums = rest.map(Number);
  const ints = (n: number) => nums.slice(0, n).every((x) => Number.isInteger(x) && x > 0);
  let text: string;
  if (kind === 'pigeonhole' && rest.length === 2 && ints(2)) text = pigeonhole(nums[0]!, nums[1]!);
  else if (kind === 'planted' && rest.length === 3 && Number.isInteger(nums[0]) && nums[0]! >= 3 && nums[1]! > 0 && Number.isInteger(nums[2])) text = planted3Sat(nums[0]!, nums[1]!, nums[2]!);
  else throw new UsageError(`cannot generate "${positionals.join(' ')}"\n\n${GENERATE_HELP}`);
  if (values.out) await fs.writeFile(values.out, text);
  else process.stdout.write(text);
  return 0;
}
