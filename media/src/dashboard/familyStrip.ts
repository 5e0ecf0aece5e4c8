// Families at a glance in the Verdicts tab: each family's PAR-2 change under a challenger against the
// champion (decide/familyCheck.ts, kept with the duel), slowest first; a family the rule found slower
// beyond its tolerance stands out.
import type { DashDecision, DashDuel } from '../../../src/core/dashboard/dashboardSchema';
import { h } from '../shared/dom';

type Families = NonNullable<DashDuel['families']>;

/** A change in percent of the champion's PAR-2, signed ("+30.0%" slower, "−20.1%" faster). */
const signed = (x: number) => `${x > 0 ? '+' : x < 0 ? '\u2212' : '\u00b1'}${Math.abs(x).toFixed(1)}%`;

/** How a family's change reads: slower beyond the tolerance, slower, or faster. */
const tone = (f: Families[number]) => (f.slower ? 'fam slower' : f.changePct > 0 ? 'fam loss' : 'fam gain');

/** The families as a row of small marks, the slowest first (up to `max`, the rest counted). */
export function familyStrip(families: Families, max = 4): HTMLElement {
  const shown = families.slice(0, max);
  return h(
    'span',
    { class: 'fam-strip' },
    ...shown.map((f) =>
      h(
        'span',
        {
          class: tone(f),
          title: `${f.family}: PAR-2 ${signed(f.changePct)} on ${f.instances} instance${f.instances === 1 ? '' : 's'}${f.slower ? ', slower beyond the tolerance (the family rule)' : f.judged ? '' : ', too few instances to be judged'}`,
        },
        `${f.family} ${signed(f.changePct)}`,
      ),
    ),
    families.length > max ? h('span', { class: 'muted' }, ` +${families.length - max}`) : null,
  );
}

/**
 * The families over the cycles: a row per decision with a duel (newest first), a column per family,
 * each cell the challenger's PAR-2 change there against the champion it met; undefined when no duel
 * has families.
 */
export function familyGrid(decisions: readonly DashDecision[], dirOf: (id: number) => string, max = 50, maxFamilies = 16): HTMLElement | undefined {
  const rows = decisions
    .filter((d) => d.duel?.families?.length)
    .slice(-max)
    .reverse();
  if (!rows.length) return undefined;
  // The families judged most often first (a competition track may have a hundred small ones), then by name.
  const judged = new Map<string, number>();
  for (const d of rows) for (const f of d.duel!.families!) judged.set(f.family, (judged.get(f.family) ?? 0) + (f.judged ? 1 : 0));
  const all = [...judged.keys()].sort((x, y) => judged.get(y)! - judged.get(x)! || x.localeCompare(y));
  const names = all.slice(0, maxFamilies).sort();
  return h(
    'table',
    { class: 'plain families fam-grid' },
    h(
      'caption',
      { class: 'muted' },
      `Families over the cycles: each challenger\u2019s PAR-2 change per family against the champion it met (positive: slower; outlined: slower beyond the tolerance, which keeps it out).${rows.some((d) => d.parent) ? ' Below it, against its parent where that is another candidate: the duels from the parent to it multiplied, each measured side by side in its own session.' : ''}${all.length > names.length ? ` The ${names.length} families judged most often, of ${all.length}.` : ''}`,
    ),
    h(
      'thead',
      {},
      h('tr', {}, h('th', { scope: 'col' }, 'Cycle'), h('th', { scope: 'col' }, 'Challenger'), ...names.map((n) => h('th', { scope: 'col', class: 'num' }, n))),
    ),
    h(
      'tbody',
      {},
      ...rows.map((d) => {
        const by = new Map(d.duel!.families!.map((f) => [f.family, f]));
        const byParent = new Map(d.parent?.families.map((f) => [f.family, f]));
        const via = d.parent ? d.parent.via.map(dirOf).join(' \u2192 ') : '';
        return h(
          'tr',
          {},
          h('td', { class: 'num' }, String(d.cycle)),
          h('td', {}, dirOf(d.candidate), d.parent ? h('div', { class: 'muted' }, `from ${dirOf(d.parent.id)}`) : null),
          ...names.map((n) => {
            const f = by.get(n);
            const p = byParent.get(n);
            return h(
              'td',
              {
                class: `num${f ? ` ${tone(f)}` : ''}`,
                ...(f ? { title: `${n}: ${f.instances} instances${p ? `; against the parent ${signed(p.changePct)} (through ${via})` : ''}` } : {}),
              },
              f ? signed(f.changePct) : '\u2013',
              p ? h('div', { class: `fam-parent ${p.changePct > 0 ? 'fam loss' : 'fam gain'}` }, `parent ${signed(p.changePct)}`) : null,
            );
          }),
        );
      }),
    ),
  );
}

/** The families of a duel as a table: instances, change, and the rule's judgement. */
export function familyTable(families: Families, caption: string): HTMLElement {
  return h(
    'table',
    { class: 'plain families' },
    h('caption', { class: 'muted' }, caption),
    h(
      'thead',
      {},
      h('tr', {}, ...['Family', 'Instances', 'PAR-2 change', 'Judged'].map((t, i) => h('th', { scope: 'col', class: i === 1 || i === 2 ? 'num' : '' }, t))),
    ),
    h(
      'tbody',
      {},
      ...families.map((f) =>
        h(
          'tr',
          {},
          h('td', {}, f.family),
          h('td', { class: 'num' }, String(f.instances)),
          h('td', { class: `num ${tone(f)}` }, signed(f.changePct)),
          h('td', {}, f.slower ? 'slower beyond the tolerance' : f.judged ? 'not shown slower beyond it' : 'too few instances'),
        ),
      ),
    ),
  );
}
