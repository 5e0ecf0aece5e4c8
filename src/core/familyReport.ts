// Per-family figures for people, wherever a comparison is shown (RESULTS.md, `satlution compare`, the
// Steering view): each family's PAR-2 on both sides, its change and solved counts, and what the family
// rule (decide/familyCheck.ts) made of it. Described by shape, so every layer can print them.

/** What a report needs of a comparison's family figures (decide/familyCheck.ts FamilyCheck). */
export interface ReportedFamilies {
  rule: { veto: boolean; tolerance_pct: number; min_instances: number; error: number };
  level: number;
  slower: readonly string[];
  families: readonly {
    family: string;
    instances: number;
    par2A: number;
    par2B: number;
    change_pct: number;
    solvedA: number;
    solvedB: number;
    p_slower: number | null;
  }[];
}

/** One family's judgement in words: slower beyond the tolerance, within it, or not judged (too few instances). */
function judgement(f: ReportedFamilies['families'][number], r: ReportedFamilies): string {
  if (f.p_slower === null) return `not judged (under ${r.rule.min_instances} instances)`;
  if (r.slower.includes(f.family)) return `**slower beyond ${r.rule.tolerance_pct}%**`;
  return f.change_pct > 0 ? 'not shown slower beyond the tolerance' : 'no loss';
}

/** The cells of the family table, a header first; `a` and `b` name the two sides. */
export function familyRows(r: ReportedFamilies, a: string, b: string): string[][] {
  const head = ['family', 'instances', `PAR-2 ${a}`, `PAR-2 ${b}`, 'change', `solved ${a} / ${b}`, 'judged'];
  const rows = r.families.map((f) => [
    // A family name is the user's (meta.csv): one line of it.
    f.family.replace(/\s+/g, ' '),
    String(f.instances),
    `${f.par2A.toFixed(2)} s`,
    `${f.par2B.toFixed(2)} s`,
    `${f.change_pct > 0 ? '+' : ''}${f.change_pct.toFixed(1)}%`,
    `${f.solvedA} / ${f.solvedB}`,
    judgement(f, r),
  ]);
  return [head, ...rows];
}

/** The family table as Markdown. */
export function familyMarkdown(r: ReportedFamilies, a: string, b: string): string[] {
  const [head, ...rows] = familyRows(r, a, b);
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replace(/\|/g, '/')).join(' | ')} |`;
  return [line(head!), `|${head!.map(() => '---').join('|')}|`, ...rows.map(line)];
}

/** The family table as aligned plain text (bold marks dropped). */
export function familyText(r: ReportedFamilies, a: string, b: string): string[] {
  const rows = familyRows(r, a, b).map((cells) => cells.map((c) => c.replace(/\*\*/g, '')));
  const widths = rows[0]!.map((_, k) => Math.max(...rows.map((cells) => cells[k]!.length)));
  return rows.map((cells) => cells.map((c, k) => (k === cells.length - 1 ? c : c.padEnd(widths[k]!))).join('  '));
}

/** The families at a glance, slowest first: "f1 +30.0% (slower beyond 5%), f2 -20.1%, ..." (for the Steering view). */
export function familyGlance(r: ReportedFamilies): string {
  return r.families
    .map(
      (f) =>
        `${f.family} ${f.change_pct > 0 ? '+' : ''}${f.change_pct.toFixed(1)}%${r.slower.includes(f.family) ? ` (slower beyond ${r.rule.tolerance_pct}%)` : ''}`,
    )
    .join(', ');
}

/** One sentence on what the rule made of the families. */
export function familySummary(r: ReportedFamilies): string {
  const judged = r.families.filter((f) => f.p_slower !== null).length;
  const how = `significantly (each of ${judged} judged at ${r.level.toPrecision(2)}: an error of ${r.rule.error}) and more than the ${r.rule.tolerance_pct}% tolerance`;
  if (!r.slower.length) return `No family with ${r.rule.min_instances} or more instances is slower ${how}.`;
  const names = r.slower.join(', ');
  return `Slower on ${r.slower.length === 1 ? 'the family' : 'the families'} ${names}, ${how}: ${r.rule.veto ? 'no promotion (the family rule)' : 'reported only (evaluation.families.veto is off)'}.`;
}
