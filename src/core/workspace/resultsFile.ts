// The one writer of a candidate's RESULTS.md: the placeholder a new candidate starts with, and the
// report of its evaluation (gates, metrics, and the paired comparison with the champion). Its inputs
// are described here by shape, so the evaluation document (eval/evalDoc.ts) and the comparison
// (decide/comparison.ts) fit them without this lower folder importing the evaluator.
import * as path from 'node:path';
import { readCandidateDoc, writeCandidateDoc } from './candidateFs';
import { explainComparison, marginGainPct, runLabel } from '../explain';
import { familyGlance, familyMarkdown, familySummary, type ReportedFamilies } from '../familyReport';

/** The file's name inside a candidate directory. */
export const RESULTS_FILE = 'RESULTS.md';

/** What a report needs of an evaluation document. */
export interface ResultsInput {
  verdict: 'pass' | 'fail';
  /** `off`: some of it ran without the sandbox, and the report says so. */
  isolation?: 'bwrap' | 'off' | undefined;
  /** `warning`: the gate passed without checking anything (evaluation.vacuous_gates: warn); `promotion_audit`: perf's, before a promotion. */
  gates: readonly {
    gate: string;
    ok: boolean;
    detail: string;
    failures: readonly string[];
    warning?: string | undefined;
    promotion_audit?: PromotionAuditInput | undefined;
  }[];
  /** The cycle's race (decide/race.ts): a challenger rejected early ran only part of the set. */
  race?:
    | {
        outcome: 'rejected early' | 'survived';
        on: 'wall' | 'cpu';
        ran: number;
        of: number;
        capped: number;
        challenger_s: number;
        champion_s: number;
        spent_s: number;
        reason: string;
        speedup_pct?: number | undefined;
        entrants?: number | undefined;
      }
    | undefined;
  metrics: {
    solved: number;
    n: number;
    solved_sat: number;
    solved_unsat: number;
    par2: number;
    par2_sat: number | null;
    par2_unsat: number | null;
    wrong: number;
    unique_solved: number | null;
  } | null;
}

/** One answer the promotion audit checked, as a report shows it. */
interface PromotionAuditRow {
  instance: string;
  verdict: 'ok' | 'caught' | 'unsolved' | 'not_audited';
  from: 'duel' | 'second run' | 'evaluation' | 'held-out';
  /** Which run of the instance a further run was (absent: the second). */
  nth?: number;
  champion_s: number;
  challenger_s: number;
  champion_status: string;
  detail: string;
  /** The run whose proof was checked (absent in records from before proofs were kept: a re-run was checked). */
  run?: string | undefined;
}

/** What a report needs of the promotion audit (the evaluation document's PromotionAuditDoc). */
export interface PromotionAuditInput {
  champion: { solver: string };
  duel: string | null;
  on: 'wall' | 'cpu';
  rule: string;
  /** `kept`: the measured runs' own proofs were checked; absent in records from before, which re-ran the answers (limit `timeout_s`). */
  from?: 'kept' | undefined;
  timeout_s?: number | undefined;
  already_checked: readonly string[];
  instances: readonly PromotionAuditRow[];
  /** UNSAT answers left unchecked, each counted at the champion's time; absent in records from before (which checked the much-faster answers only). */
  unchecked?: readonly string[] | undefined;
  /** Whether the test passed on checked answers alone; absent in records from before. */
  passed?: boolean | undefined;
  held_out?: { duel: string; instances: readonly PromotionAuditRow[]; unchecked?: readonly string[] | undefined; passed?: boolean | undefined } | undefined;
}

/** The heading of the promotion audit's section: always the report's last, so it can be replaced in place. */
const PROMOTION_HEADING = '## Proof-checked before promotion';

/** The promotion audit's section of a report. */
function promotionAuditSection(a: PromotionAuditInput): string[] {
  const where = a.duel ? `side by side (session ${a.duel})` : 'in the perf evaluations';
  const how =
    a.from === 'kept'
      ? 'was checked by drat-trim from the DRAT proof written by the very run that gave it'
      : `was run again with a DRAT proof${a.timeout_s ? ` (limit ${a.timeout_s} s)` : ''} and checked by drat-trim`;
  const basis = `${a.on === 'cpu' ? 'CPU' : 'wall'} time, ${where}`;
  // Records since a promotion rests on checked answers say whether it passed; older ones checked the much-faster answers.
  const head = [
    PROMOTION_HEADING,
    '',
    a.passed === undefined
      ? `Before this candidate could replace ${a.champion.solver}, every UNSAT answer it gave much faster (${a.rule}; ${basis}) ${how}.`
      : `Before this candidate could replace ${a.champion.solver}, its UNSAT answers (${basis}) were checked by drat-trim from the DRAT proof written by the very run that gave each, ${a.rule}. An answer whose proof was not verified counts as unsolved; a lie fails the candidate.`,
  ];
  const outcome = (part: { unchecked?: readonly string[] | undefined; passed?: boolean | undefined }) =>
    part.passed === undefined
      ? []
      : [
          '',
          `${part.passed ? 'The test passed on checked answers alone' : '**On checked answers alone the test no longer passed**'}${
            part.unchecked?.length
              ? `; ${part.unchecked.length} UNSAT answer${part.unchecked.length === 1 ? ' was' : 's were'} left unchecked, each counted at ${a.champion.solver}'s time: ${part.unchecked.join(', ')}`
              : ''
          }.`,
        ];
  const before = a.already_checked.length
    ? [`${a.already_checked.length} more had been proof-checked by the perf audit already: ${a.already_checked.join(', ')}.`]
    : [];
  const champion = (i: PromotionAuditRow) =>
    i.champion_status === 'solved' ? `${i.champion_s.toFixed(3)} s` : `${i.champion_status} (${i.champion_s.toFixed(0)} s)`;
  const verdict = (i: PromotionAuditRow) =>
    i.verdict === 'ok' ? 'verified' : i.verdict === 'caught' ? `**caught**: ${i.detail}` : i.verdict === 'unsolved' ? `unsolved: ${i.detail}` : i.detail;
  const table = (rows: readonly PromotionAuditRow[]) => [
    `| instance | champion | this | ${a.from === 'kept' ? "its run's proof (run)" : 're-run with a proof'} |`,
    '|---|---|---|---|',
    ...rows.map(
      (i) =>
        `| ${i.instance}${i.from === 'second run' ? runLabel(i.nth ?? 2) : ''} | ${champion(i)} | ${i.challenger_s.toFixed(3)} s | ${verdict(i).replace(/\|/g, '/')}${i.run ? ` (${i.run.slice(0, 8)})` : ''} |`,
    ),
  ];
  const main = a.instances.length
    ? [...(before.length ? ['', ...before] : []), '', ...table(a.instances)]
    : ['', `${a.passed === undefined ? 'None was left to check.' : 'No proof needed checking.'}${before.length ? ` ${before[0]}` : ''}`];
  const held = a.held_out
    ? [
        '',
        `On the held-out set (session ${a.held_out.duel}), the same for its ${a.held_out.passed === undefined ? 'much faster ' : ''}UNSAT answers: ${a.held_out.instances.length ? '' : 'none checked.'}`,
        ...(a.held_out.instances.length ? ['', ...table(a.held_out.instances)] : []),
        ...outcome(a.held_out),
      ]
    : [];
  return [...head, ...main, ...outcome(a), ...held];
}

/** What a report needs of the paired comparison with the champion (A: the champion, B: this candidate). */
export interface ResultsComparison {
  common: number;
  par2A: number;
  par2B: number;
  /** Where the test and the margin were judged on further runs (decide/comparison.ts `again`). */
  again?: { instances: number; runs?: number; par2A: number; par2B: number };
  diff: number;
  ci95: readonly [number, number];
  wilcoxon: { n: number; p: number; method: string };
  /** The geometric mean of the time ratios and its sign-flip p (in B's favour); absent in comparisons made before it. */
  ratio?: { speedup_pct: number; p: number; method: string };
  /** The verdict's test (decide/objectiveTest.ts); absent in comparisons made before it. */
  test?: { rank_by: 'par2' | 'solved-then-par2'; p: number; par2_p: number; log_ratio_p: number; solved_p: number | null; method: string; sigma?: number };
  /** Instances solved by one side and not the other. */
  solvedOnlyA?: number;
  solvedOnlyB?: number;
  verdict: 'A faster' | 'B faster' | 'no significant difference';
  /** The time compared (CPU or wall). */
  on?: 'wall' | 'cpu';
  /** Each family's figures and the family rule's judgement, where the set has two families or more. */
  families?: ReportedFamilies;
}

/** How the comparison was made: the same-session duel it comes from and the rule in force. */
export interface ResultsNotes {
  /** The configured min_improvement_pct and the calibrated noise band (percent). */
  marginPct: number;
  bandPct: number;
  /** The share of decisions between identical solvers the rule can promote (percent: the test's one-sided level). */
  falsePromotionPct?: number;
  duel?: { session: string; block: number; pairs: readonly unknown[]; started_at: string; ended_at: string };
  /** Measured in full but not compared side by side with the champion, and why. */
  unmatched?: string;
  /** The paired test's two-sided level (twice the one-sided level a promotion needs), for the plain-sentence "Why". */
  alpha?: number;
  /** Challengers that shared the race (the level is divided among them). */
  entrants?: number;
}

/** The text of a candidate's RESULTS.md before any evaluation. */
export const placeholderResults = (candidate: string): string => `# Results — ${candidate}\n\nNot evaluated yet.\n`;

/** The report of an evaluation, as Markdown. */
export function renderResults(candidate: string, cycle: number, doc: ResultsInput, cmp?: ResultsComparison, notes?: ResultsNotes): string {
  const m = doc.metrics;
  const unconfined =
    doc.isolation === 'off'
      ? [
          "> **Measured without isolation** (`sandbox: off`): this candidate's build and runs could read the answers and write outside their directory, so these figures are not evidence of a real improvement.",
          '',
        ]
      : [];
  // The same warnings as eval/evalDoc.ts's vacuousWarnings (this lower folder cannot import it).
  const vacuous = doc.gates.flatMap((g) => (g.warning ? [`> **Warning:** ${g.warning}`, ''] : []));
  const lines = [
    `# Results — ${candidate} (cycle ${cycle})`,
    '',
    ...unconfined,
    ...vacuous,
    `Verdict: **${doc.verdict}**`,
    '',
    '| gate | result |',
    '|---|---|',
    ...doc.gates.map((g) => `| ${g.gate} | ${g.ok ? 'pass' : 'FAIL'}: ${g.detail.replace(/\|/g, '/')} |`),
  ];
  const failed = doc.gates.find((g) => !g.ok);
  if (failed) lines.push('', '## Failures', ...failed.failures.map((f) => `- ${f}`));
  if (m)
    lines.push(
      '',
      '## Metrics',
      '',
      '| metric | value |',
      '|---|---|',
      `| solved | ${m.solved}/${m.n} (SAT ${m.solved_sat}, UNSAT ${m.solved_unsat}) |`,
      `| PAR-2 | ${m.par2.toFixed(3)} s |`,
      `| PAR-2 SAT / UNSAT | ${m.par2_sat?.toFixed(3) ?? '-'} / ${m.par2_unsat?.toFixed(3) ?? '-'} s |`,
      `| wrong answers | ${m.wrong} |`,
      ...(m.unique_solved !== null ? [`| solved by no baseline | ${m.unique_solved} |`] : []),
    );
  const r = doc.race;
  if (r?.outcome === 'rejected early')
    lines.push(
      '',
      `## Rejected early by racing (${r.ran} of ${r.of} instances)`,
      '',
      `${r.reason[0]!.toUpperCase()}${r.reason.slice(1)}.`,
      `It ran beside the champion in one session; its runs were capped at a multiple of the champion's time (${r.capped} hit the cap). On those instances, on ${r.on === 'cpu' ? 'CPU' : 'wall'} time, it took at least ${r.challenger_s.toFixed(2)} s where the champion took ${r.champion_s.toFixed(2)} s. Its runs cost ${r.spent_s.toFixed(1)} s; the metrics above cover only the instances it ran.`,
    );
  if (!cmp && notes?.unmatched)
    lines.push('', '## Not compared side by side with the champion', '', `${notes.unmatched[0]!.toUpperCase()}${notes.unmatched.slice(1)}.`);
  if (cmp) {
    const margin = notes ? Math.max(notes.marginPct, notes.bandPct) : undefined;
    const gain = marginGainPct(cmp);
    lines.push(
      '',
      notes?.duel ? `## Against the champion, side by side (${cmp.common} instances, one session)` : `## Against the champion (${cmp.common} common instances)`,
      '',
      ...(notes?.duel
        ? [
            `Both ran in the same session (${notes.duel.session}, ${notes.duel.started_at.slice(0, 16).replace('T', ' ')} to ${notes.duel.ended_at.slice(11, 16)}), in blocks of ${notes.duel.block} alternating which went first (ABBA), so a drift of the machine moves both alike. Times compared: ${cmp.on === 'cpu' ? 'CPU (user + system of the process tree)' : 'wall'}.`,
            '',
          ]
        : []),
      `PAR-2 champion ${cmp.par2A.toFixed(3)} s, this ${cmp.par2B.toFixed(3)} s; difference ${cmp.diff.toFixed(3)} s (95% CI ${cmp.ci95[0].toFixed(3)} .. ${cmp.ci95[1].toFixed(3)}).`,
      ...(cmp.again
        ? [
            `Both ran ${cmp.again.instances} instance${cmp.again.instances === 1 ? '' : 's'} again, up to ${cmp.again.runs ?? 2} times each (those near the time limit and the longest): with each at the mean of its runs, PAR-2 champion ${cmp.again.par2A.toFixed(3)} s, this ${cmp.again.par2B.toFixed(3)} s${cmp.test?.method === 'run-noise' ? ' (the test and the margin are judged on these)' : ' (the margin is judged on these; the test on the first runs)'}.`,
          ]
        : []),
      ...(cmp.ratio
        ? [
            `Instance by instance: ${Math.abs(cmp.ratio.speedup_pct).toFixed(1)}% ${cmp.ratio.speedup_pct >= 0 ? 'faster' : 'slower'} as a geometric mean of the time ratios.`,
          ]
        : []),
      ...(cmp.test
        ? [
            `The promotion test (ranked by ${cmp.test.rank_by === 'par2' ? 'PAR-2' : 'solved instances, then PAR-2'}; one-sided, ${cmp.test.method === 'run-noise' ? `expected PAR-2 on this set against the run noise${cmp.test.sigma !== undefined ? ` of ${(100 * cmp.test.sigma).toFixed(1)}% per run` : ''}` : cmp.test.method === 'exact' ? 'every sign pattern' : 'sampled sign patterns'}): p = ${cmp.test.p.toPrecision(3)}${notes?.alpha !== undefined ? ` against the promotion level ${(notes.alpha / 2).toPrecision(2)}${notes.entrants && notes.entrants > 1 ? ` (shared by the race's ${notes.entrants} challengers)` : ''}` : ''}; its parts: PAR-2 lower p = ${cmp.test.par2_p.toPrecision(3)}${cmp.test.solved_p === null ? '' : `, solves more p = ${cmp.test.solved_p.toPrecision(3)} (${cmp.solvedOnlyB ?? 0} solved only by this, ${cmp.solvedOnlyA ?? 0} only by the champion)`}; for the report, faster instance by instance (geometric mean, sign flips) p = ${cmp.test.log_ratio_p.toPrecision(3)}.`,
          ]
        : []),
      `Wilcoxon signed-rank: n = ${cmp.wilcoxon.n}, p = ${cmp.wilcoxon.p.toPrecision(3)} (${cmp.wilcoxon.method}). Verdict: **${cmp.verdict === 'B faster' ? 'faster than the champion' : cmp.verdict === 'A faster' ? 'slower than the champion' : 'no significant difference'}**.`,
      ...(notes?.alpha !== undefined && margin !== undefined ? ['', `**Why:** ${explainComparison(cmp, { alpha: notes.alpha, marginPct: margin })}`] : []),
      ...(notes && margin !== undefined
        ? [
            `Promotion needs a significant gain of at least ${margin.toFixed(1)}% in PAR-2 (min_improvement_pct ${notes.marginPct}%${notes.bandPct ? `, measured noise band ${notes.bandPct.toFixed(1)}%` : ''}${notes.falsePromotionPct !== undefined ? `; two identical solvers pass this rule in at most ${notes.falsePromotionPct.toFixed(1)}% of decisions` : ''}); this one is ${gain.toFixed(1)}% ${gain >= 0 ? 'faster' : 'slower'}${cmp.verdict === 'B faster' && gain >= margin ? ': enough' : cmp.verdict === 'B faster' ? ': significant, but under the margin' : ''}.`,
          ]
        : []),
      ...(cmp.families
        ? [
            '',
            '### By family',
            '',
            `**By family:** ${familyGlance(cmp.families)}.`,
            '',
            ...familyMarkdown(cmp.families, 'champion', 'this'),
            '',
            familySummary(cmp.families),
          ]
        : []),
    );
  }
  const audit = doc.gates.find((g) => g.promotion_audit)?.promotion_audit;
  if (audit) lines.push('', ...promotionAuditSection(audit));
  return lines.join('\n') + '\n';
}

/** Puts the promotion audit's section at the end of a candidate's RESULTS.md, replacing an earlier one (the rest of the report stands). */
export async function writePromotionAudit(candidateDir: string, audit: PromotionAuditInput): Promise<void> {
  const text = (await readCandidateDoc(candidateDir, RESULTS_FILE).catch(() => undefined)) ?? placeholderResults(path.basename(candidateDir));
  const at = text.indexOf(`\n${PROMOTION_HEADING}\n`);
  await writeCandidateDoc(candidateDir, RESULTS_FILE, `${(at < 0 ? text : text.slice(0, at)).trimEnd()}\n\n${promotionAuditSection(audit).join('\n')}\n`);
}

/** Writes the evaluation report into the candidate directory (replacing whatever stands under the name). */
export async function writeResults(candidateDir: string, cycle: number, doc: ResultsInput, cmp?: ResultsComparison, notes?: ResultsNotes): Promise<void> {
  await writeCandidateDoc(candidateDir, RESULTS_FILE, renderResults(path.basename(candidateDir), cycle, doc, cmp, notes));
}

/**
 * The verdict lines of a candidate's RESULTS.md, read once: the "**Why:**" sentence, when its evaluation
 * was compared with the champion, and the "**By family:**" line (each family's change), where its set
 * has families.
 */
export async function readVerdict(candidateDir: string): Promise<{ why: string | undefined; families: string | undefined }> {
  const text = (await readCandidateDoc(candidateDir, RESULTS_FILE).catch(() => undefined)) ?? '';
  const line = (label: string) => new RegExp(`^\\*\\*${label}:\\*\\* (.+)$`, 'm').exec(text)?.[1]?.trim();
  return { why: line('Why'), families: line('By family') };
}

/** The "**Why:**" sentence of a candidate's RESULTS.md (readVerdict). */
export const readWhy = async (candidateDir: string): Promise<string | undefined> => (await readVerdict(candidateDir)).why;
