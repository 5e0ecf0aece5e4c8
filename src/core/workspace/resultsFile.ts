// The one writer of a candidate's RESULTS.md: the placeholder a new candidate starts with, and the
// report of its evaluation (gates, metrics, and the paired comparison with the champion). Its inputs
// are described here by shape, so the evaluation document (eval/evalDoc.ts) and the comparison
// (eval/compare.ts) fit them without this lower folder importing the evaluator.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** The file's name inside a candidate directory. */
export const RESULTS_FILE = 'RESULTS.md';

/** What a report needs of an evaluation document. */
export interface ResultsInput {
  verdict: 'pass' | 'fail';
  /** `off`: some of it ran without the sandbox, and the report says so. */
  isolation?: 'bwrap' | 'off' | undefined;
  gates: readonly { gate: string; ok: boolean; detail: string; failures: readonly string[] }[];
  metrics: { solved: number; n: number; solved_sat: number; solved_unsat: number; par2: number; par2_sat: number | null; par2_unsat: number | null; wrong: number; unique_solved: number | null } | null;
}

/** What a report needs of the paired comparison with the champion (A: the champion, B: this candidate). */
export interface ResultsComparison {
  common: number;
  par2A: number;
  par2B: number;
  diff: number;
  ci95: readonly [number, number];
  wilcoxon: { n: number; p: number; method: string };
  verdict: 'A faster' | 'B faster' | 'no significant difference';
}

/** The text of a candidate's RESULTS.md before any evaluation. */
export const placeholderResults = (candidate: string): string => `# Results — ${candidate}\n\nNot evaluated yet.\n`;

/** The report of an evaluation, as Markdown. */
export function renderResults(candidate: string, cycle: number, doc: ResultsInput, cmp?: ResultsComparison): string {
  const m = doc.metrics;
  const unconfined = doc.isolation === 'off' ? ['> **Measured without isolation** (`sandbox: off`): this candidate\'s build and runs could read the answers and write outside their directory, so these figures are not evidence of a real improvement.', ''] : [];
  const lines = [`# Results — ${candidate} (cycle ${cycle})`, '', ...unconfined, `Verdict: **${doc.verdict}**`, '', '| gate | result |', '|---|---|', ...doc.gates.map((g) => `| ${g.gate} | ${g.ok ? 'pass' : 'FAIL'}: ${g.detail.replace(/\|/g, '/')} |`)];
  const failed = doc.gates.find((g) => !g.ok);
  if (failed) lines.push('', '## Failures', ...failed.failures.map((f) => `- ${f}`));
  if (m) lines.push('', '## Metrics', '', '| metric | value |', '|---|---|', `| solved | ${m.solved}/${m.n} (SAT ${m.solved_sat}, UNSAT ${m.solved_unsat}) |`, `| PAR-2 | ${m.par2.toFixed(3)} s |`, `| PAR-2 SAT / UNSAT | ${m.par2_sat?.toFixed(3) ?? '-'} / ${m.par2_unsat?.toFixed(3) ?? '-'} s |`, `| wrong answers | ${m.wrong} |`, ...(m.unique_solved !== null ? [`| solved by no baseline | ${m.unique_solved} |`] : []));
  if (cmp)
    lines.push(
      '',
      `## Against the champion (${cmp.common} common instances)`,
      '',
      `PAR-2 champion ${cmp.par2A.toFixed(3)} s, this ${cmp.par2B.toFixed(3)} s; difference ${cmp.diff.toFixed(3)} s (95% CI ${cmp.ci95[0].toFixed(3)} .. ${cmp.ci95[1].toFixed(3)}).`,
      `Wilcoxon signed-rank: n = ${cmp.wilcoxon.n}, p = ${cmp.wilcoxon.p.toPrecision(3)} (${cmp.wilcoxon.method}). Verdict: **${cmp.verdict === 'B faster' ? 'faster than the champion' : cmp.verdict === 'A faster' ? 'slower than the champion' : 'no significant difference'}**.`,
    );
  return lines.join('\n') + '\n';
}

/** Writes the evaluation report into the candidate directory. */
export async function writeResults(candidateDir: string, cycle: number, doc: ResultsInput, cmp?: ResultsComparison): Promise<void> {
  await fs.writeFile(path.join(candidateDir, RESULTS_FILE), renderResults(path.basename(candidateDir), cycle, doc, cmp));
}
