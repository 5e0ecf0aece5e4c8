import * as fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { compareRuns } from '../../core/eval/compare';
import { EvalDoc } from '../../core/eval/evalDoc';
import { UsageError } from '../errors';

export const COMPARE_HELP = `satlution compare A.json B.json [--alpha 0.05] [--json]

Paired comparison of two \`satlution eval --json\` results on the instances both ran: PAR-2 of each,
the difference B - A with a 95% bootstrap confidence interval, and the Wilcoxon signed-rank test on
per-instance PAR-2 times. "B faster" only when both say the difference is significant.`;

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
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { alpha: { type: 'string', default: '0.05' }, json: { type: 'boolean', default: false } }, strict: true });
  if (positionals.length !== 2) throw new UsageError(`compare needs two result files\n\n${COMPARE_HELP}`);
  const alpha = Number(values.alpha);
  if (!(alpha > 0 && alpha < 1)) throw new UsageError(`--alpha must be between 0 and 1, got "${values.alpha}"`);
  const [a, b] = await Promise.all(positionals.map(readEval));
  if (a!.timeout_s !== b!.timeout_s) throw new UsageError(`the two evaluations used different timeouts (${a!.timeout_s} s and ${b!.timeout_s} s); PAR-2 is not comparable`);
  const c = compareRuns(a!.instances, b!.instances, a!.timeout_s, { alpha });
  if (values.json) {
    process.stdout.write(JSON.stringify({ a: a!.solver, b: b!.solver, timeout_s: a!.timeout_s, ...c }, null, 2) + '\n');
    return 0;
  }
  const f = (x: number) => x.toFixed(2);
  process.stdout.write(
    [
      `A ${a!.solver}`,
      `B ${b!.solver}`,
      `common instances ${c.common}${c.onlyA || c.onlyB ? ` (only in A: ${c.onlyA}, only in B: ${c.onlyB})` : ''}`,
      `PAR-2  A ${f(c.par2A)} s   B ${f(c.par2B)} s   B - A ${f(c.diff)} s  (95% CI ${f(c.ci95[0])} .. ${f(c.ci95[1])})`,
      `solved only by A ${c.solvedOnlyA}, only by B ${c.solvedOnlyB}`,
      `Wilcoxon signed-rank: n=${c.wilcoxon.n}, W=${c.wilcoxon.w}, p=${c.wilcoxon.p.toPrecision(3)} (${c.wilcoxon.method})`,
      `verdict: ${c.verdict} (alpha ${alpha})`,
    ].join('\n') + '\n',
  );
  return 0;
}
