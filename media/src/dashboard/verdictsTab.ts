// The Verdicts tab: the promotion rule in force and the noise it rests on, every cycle's decisions,
// and the evidence of the selected one: its same-session pairs (a scatter of the champion's time
// against the challenger's, and a sortable table with CPU next to wall), or where racing stopped it.
import type { Chart } from 'chart.js';
import {
  RUN_STATUSES,
  type DashDecision,
  type DashDuel,
  type DecisionOutcome,
  type DuelPairs,
  type NoiseRow,
} from '../../../src/core/dashboard/dashboardSchema';
import { pairsScatter, type PairPoint } from './charts';
import { familyStrip, familyTable } from './familyStrip';
import { h, linkButton } from '../shared/dom';
import { count, secs, secsUnit } from './format';
import type { View } from './model';
import { chartBox, chartHeight, checkbox, empty, stat, toolbar } from './parts';
import type { UiState } from './state';
import type { TabContext } from './tabContext';

/** Decisions listed, newest first (an older one's story is in its candidate's RESULTS.md). */
const MAX_ROWS = 200;
/** Pairs listed in the table; the scatter shows them all. */
const MAX_PAIRS = 300;

/** Each outcome in words. */
const OUTCOME_LABEL: Record<DecisionOutcome, string> = {
  promoted: 'promoted',
  'not significant': 'not significant',
  slower: 'slower',
  'under the margin': 'under the margin',
  vetoed: 'faster, not promoted',
  'rejected early': 'rejected early by racing',
  'stopped at a tier': 'stopped at a perf tier',
  failed: 'failed',
  'not compared': 'not compared',
  pending: 'pending',
};

/** An outcome as a coloured pill (class oc-<outcome>), with why on hover. */
const badge = (d: DashDecision) => h('span', { class: `outcome oc-${d.outcome.replace(/\W+/g, '-')}`, title: why(d) }, OUTCOME_LABEL[d.outcome]);

/** Why a decision ended as it did, in plain sentences (the host's core/explain.ts: CI, n, p, the margin and the reason). */
const why = (d: DashDecision): string => d.why;

/** A time basis as a sentence says it. */
const basisName = (on: 'wall' | 'cpu') => (on === 'cpu' ? 'CPU' : 'wall');
/** A percentage. */
const pct = (x: number, digits = 1) => `${x.toFixed(digits)}%`;
/** A percentage with its sign (+ faster, − slower). */
const signedPct = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(1)}%`;
/** A p-value, two significant digits. */
const pValue = (p: number) => (p < 0.001 ? '< 0.001' : p.toPrecision(2));
/** A decision's key in UiState.decision. */
const keyOf = (d: Pick<DashDecision, 'cycle' | 'candidate'>) => `${d.cycle}:${d.candidate}`;

/** The decision the tab shows: the one chosen, else the newest with evidence (a duel or a race), else the newest. */
export function selectedDecision(v: View, ui: Pick<UiState, 'decision'>): DashDecision | undefined {
  const ds = v.data.verdicts.decisions;
  return ds.find((d) => keyOf(d) === ui.decision) ?? [...ds].reverse().find((d) => d.duel || d.race) ?? ds[ds.length - 1];
}

/** The session whose pairs the tab needs now, if any. */
export function neededPairs(v: View, ui: Pick<UiState, 'decision'>): string | undefined {
  return selectedDecision(v, ui)?.duel?.session;
}

/** The tab: the rule, the decisions, and the chosen decision's evidence. */
export function verdicts(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  const { v } = ctx;
  const d = v.data.verdicts;
  el.append(ruleBlock(ctx));
  if (!d.decisions.length) {
    el.append(
      empty(
        'No decisions yet.',
        'Each cycle\u2019s challengers meet the champion side by side in one session (or are stopped early by racing); how each was judged appears here.',
      ),
    );
    return;
  }
  const chosen = selectedDecision(v, ctx.ui);
  const table = decisionsTable(ctx, chosen);
  el.append(h('h3', {}, 'Decisions'), table);
  // The chosen row in view inside the table's own scroll (the page stays where it is).
  const row = table.querySelector<HTMLElement>('tr.selected');
  if (row && (row.offsetTop < table.scrollTop || row.offsetTop + row.offsetHeight > table.scrollTop + table.clientHeight))
    table.scrollTop = Math.max(0, row.offsetTop - table.clientHeight / 2);
  if (chosen) el.append(decisionDetail(ctx, chosen, charts));
}

/** The rule in force and the calibrated noise it rests on (wall and CPU). */
function ruleBlock(ctx: TabContext): HTMLElement {
  const { rule, noise, calibration } = ctx.v.data.verdicts;
  const box = h('div', { class: 'rule-block' });
  if (rule) {
    box.append(
      h('p', { class: 'rule-line', title: rule.line }, rule.short),
      h(
        'p',
        { class: 'muted' },
        calibration
          ? `Noise band measured ${calibration.at.slice(0, 10)} on ${calibration.machine}, runner ${calibration.runner}: ${calibration.solver} against itself side by side on ${count(calibration.n, 'instance')} (timeout ${secsUnit(calibration.timeoutS)}), for information. A promotion needs its race with the champion to pass the PAR-2 test against the session's run noise (at most ${pct(rule.falsePromotionPct)} of decisions between identical solvers promote) and a PAR-2 gain of at least min_improvement_pct at 80% confidence (${pct(rule.marginPct)}).`
          : `A promotion needs its race with the champion to pass the PAR-2 test against the session's run noise (at most ${pct(rule.falsePromotionPct)} of decisions between identical solvers promote) and a PAR-2 gain of at least min_improvement_pct at 80% confidence (${pct(rule.marginPct)}). No noise band is needed; \`satlution calibrate\` measures one for information.`,
      ),
    );
  } else box.append(h('p', { class: 'muted' }, 'satlution.yaml could not be read: the rule in force is not shown.'));
  if (noise.length)
    box.append(
      h(
        'table',
        { class: 'plain noise' },
        h('caption', { class: 'visually-hidden' }, 'Calibrated noise per time basis'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Basis', 'Noise band', 'A/A difference', 'A/A p', 'Spread, median', 'Spread, 90th pct', 'A/A alone significant'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        h('tbody', {}, ...noise.map((n) => noiseRow(n, rule?.basis === n.basis))),
      ),
    );
  return box;
}

/** One basis's calibrated noise; the basis decisions use is marked. */
function noiseRow(n: NoiseRow, inForce: boolean): HTMLElement {
  const opt = (x: number | null) => (x === null ? '\u2013' : pct(x));
  return h(
    'tr',
    {},
    h('th', { scope: 'row' }, `${basisName(n.basis)} time`, inForce ? h('span', { class: 'muted' }, ' (decides)') : null),
    h('td', {}, pct(n.bandPct)),
    h('td', {}, signedPct(n.diffPct)),
    h('td', {}, pValue(n.p)),
    h('td', {}, opt(n.spreadMedianPct)),
    h('td', {}, opt(n.spreadP90Pct)),
    h('td', { class: n.aaSignificant ? 'warning' : '' }, n.aaSignificant ? 'yes: noisy' : 'no'),
  );
}

/** A candidate's directory name (also for one the store no longer lists). */
const dirOf = (v: View, id: number | null) => (id === null ? '\u2013' : (v.byId.get(id)?.dir ?? `SATLUTION_${id}`));

/** The decisions, newest first; a row (or its button) selects one. */
function decisionsTable(ctx: TabContext, chosen: DashDecision | undefined): HTMLElement {
  const { v } = ctx;
  const all = v.data.verdicts.decisions;
  const rows = [...all].reverse().slice(0, MAX_ROWS);
  const select = (d: DashDecision) => ctx.setUi({ decision: keyOf(d) });
  const body = rows.map((d) => {
    const on = chosen !== undefined && keyOf(d) === keyOf(chosen);
    const duel = d.duel;
    const tr = h(
      'tr',
      { class: on ? 'decision selected' : 'decision', ...(on ? { 'aria-current': 'true' } : {}) },
      h('td', { class: 'num' }, String(d.cycle)),
      h(
        'td',
        {},
        linkButton(dirOf(v, d.candidate), () => select(d), { aria: `Show how ${dirOf(v, d.candidate)} was judged in cycle ${d.cycle}` }),
      ),
      h('td', {}, badge(d)),
      h('td', { class: 'num' }, duel ? duel.n.toLocaleString() : d.race ? `ran ${d.race.ran.toLocaleString()} of ${d.race.of.toLocaleString()}` : '\u2013'),
      h(
        'td',
        { class: 'num' },
        duel
          ? `${secs(duel.par2A)} \u2192 ${secs(duel.par2B)} s`
          : d.race && d.race.estimatedPar2 !== null
            ? `\u2265 ${secs(d.race.estimatedPar2)} s (estimate)`
            : '\u2013',
        duel ? h('span', { class: 'muted' }, ` ${basisName(duel.on)}`) : null,
      ),
      h('td', { class: `num${duel ? (duel.gainPct > 0 ? ' gain' : duel.gainPct < 0 ? ' loss' : '') : ''}` }, duel ? signedPct(duel.gainPct) : '\u2013'),
      h('td', { class: 'num' }, duel ? pValue(duel.p) : '\u2013'),
      h('td', { class: 'num' }, duel ? pct(duel.bandPct) : d.race ? pct(d.race.bandPct) : '\u2013'),
      h('td', {}, duel?.families ? familyStrip(duel.families) : '\u2013'),
    );
    // The whole row selects; the button in it is the keyboard's way.
    tr.addEventListener('click', (e) => {
      if (!(e.target instanceof HTMLButtonElement)) select(d);
    });
    return tr;
  });
  return h(
    'div',
    { class: 'decisions-wrap' },
    h(
      'table',
      { class: 'plain decisions' },
      h('caption', { class: 'visually-hidden' }, 'Decisions, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Cycle', 'Challenger', 'Outcome', 'Pairs', 'PAR-2 champion \u2192 challenger', 'Gain', 'p', 'Band', 'Families (PAR-2 change)'].map((t, i) =>
            h('th', { scope: 'col', class: i === 0 || (i >= 3 && i < 8) ? 'num' : '' }, t),
          ),
        ),
      ),
      h('tbody', {}, ...body),
    ),
    all.length > rows.length ? h('p', { class: 'muted note' }, `The newest ${rows.length} of ${all.length} decisions.`) : null,
  );
}

/** How one decision was reached: the cycle's words, racing's evidence or the duel with its pairs. */
function decisionDetail(ctx: TabContext, d: DashDecision, charts: Chart[]): HTMLElement {
  const { v } = ctx;
  const box = h('section', { class: 'decision-detail', 'aria-label': `Cycle ${d.cycle}: ${dirOf(v, d.candidate)}` });
  const cycle = v.data.cycles.find((c) => c.cycle === d.cycle);
  box.append(h('h3', {}, `Cycle ${d.cycle}: ${dirOf(v, d.candidate)} against ${dirOf(v, d.champion)} \u2014 `, badge(d)), h('p', {}, why(d)));
  // The cycle's own sentence on how it ended (the promotion rule's words); racing's evidence says it below in full.
  if (cycle?.outcome && !d.race) box.append(h('p', { class: 'muted' }, cycle.outcome));
  const cand = v.byId.get(d.candidate);
  if (d.outcome === 'failed' && cand?.failure) box.append(h('p', { class: 'warning' }, `Failed ${cand.failedGate ?? ''}: ${cand.failure}`));
  if (d.race) box.append(raceEvidence(d.race, dirOf(v, d.candidate)));
  if (d.tier)
    box.append(
      h(
        'p',
        {},
        `Stopped at perf tier ${d.tier.reached} of ${d.tier.of}: not among the best there, so it was never measured on the whole perf set and met the champion in no duel.`,
      ),
    );
  if (d.duel) {
    box.append(duelSummary(d.duel));
    if (d.duel.families) box.append(familyTable(d.duel.families, 'By family, side by side: the PAR-2 change under the challenger (positive: slower).'));
    if (d.heldOut?.families) box.append(familyTable(d.heldOut.families, 'By family on the held-out set.'));
    if (d.heldOut)
      box.append(
        h(
          'p',
          { class: 'held-out' },
          `Held-out set, side by side: PAR-2 ${secs(d.heldOut.par2A)} \u2192 ${secs(d.heldOut.par2B)} s on ${basisName(d.heldOut.on)} time (${signedPct(d.heldOut.gainPct)}, p = ${pValue(d.heldOut.p)}, n = ${d.heldOut.n}): ${d.heldOut.verdict === 'B faster' ? 'the challenger is faster there too' : d.heldOut.verdict === 'A faster' ? 'the champion is faster there' : 'no significant difference there'}.`,
        ),
      );
    pairsView(box, ctx, d, d.duel, charts);
  } else if (!d.race && !d.tier && d.outcome !== 'failed')
    box.append(
      h('p', { class: 'muted' }, d.outcome === 'pending' ? 'Not measured side by side with the champion yet.' : 'This challenger met the champion in no duel.'),
    );
  return box;
}

/** Why racing stopped a challenger, in words, with its lower bound, the champion's time and (an older race) the threshold side by side. */
function raceEvidence(r: NonNullable<DashDecision['race']>, dir: string): HTMLElement {
  const basis = `${basisName(r.on)} time`;
  if (r.dropBelow !== undefined || r.detectGainPct !== undefined) return sessionRaceEvidence(r, dir, basis);
  const most = Math.max(r.challengerS, r.championS, r.thresholdS, 1e-9);
  const bar = (label: string, x: number, cls: string) => {
    const fill = h('span', { class: `bar-fill ${cls}` });
    fill.style.width = `${Math.max(0.5, (100 * x) / most).toFixed(2)}%`;
    return h(
      'div',
      { class: 'bar-row' },
      h('span', { class: 'bar-label' }, label),
      h('span', { class: 'bar-track' }, fill),
      h('span', { class: 'bar-value num' }, secsUnit(x)),
    );
  };
  return h(
    'div',
    { class: 'race' },
    h(
      'p',
      {},
      `Rejected early by racing after ${r.ran} of ${count(r.of, 'instance')}${r.capped ? ` (${count(r.capped, 'run')} stopped at its cap, a multiple of the champion\u2019s time)` : ''}. Racing may only reject: ${dir} could no longer beat the champion by the ${pct(r.marginPct)} margin${r.bandPct ? ` (noise band ${pct(r.bandPct)})` : ''}.`,
    ),
    h(
      'div',
      {
        class: 'bars',
        role: 'img',
        'aria-label': `On the instances run: the challenger's lower bound ${secsUnit(r.challengerS)}, the champion's time ${secsUnit(r.championS)}, the threshold ${secsUnit(r.thresholdS)}`,
      },
      bar('Its lower bound', r.challengerS, 'challenger'),
      bar('Champion', r.championS, 'champion'),
      bar('Threshold', r.thresholdS, 'threshold'),
    ),
    h(
      'p',
      {},
      `On the instances it ran, its ${basis} (capped runs count their cap, unsolved ones twice the timeout) was at least ${secsUnit(r.challengerS)}${r.thresholdS > 0 ? `, ${pct((100 * (r.challengerS - r.thresholdS)) / r.thresholdS)} over the threshold` : ''}, against the champion\u2019s ${secsUnit(r.championS)}; it needed at most ${secsUnit(r.thresholdS)} to stay in the race. The champion\u2019s whole set takes ${secsUnit(r.championTotalS)}.`,
    ),
    h(
      'p',
      { class: 'muted' },
      `${r.estimatedPar2 !== null ? `Its PAR-2 extrapolated from the race: at least ${secsUnit(r.estimatedPar2)} (an estimate, not a measurement of the set). ` : ''}The race spent ${secsUnit(r.spentS)} of ${basis}. The rule\u2019s words: ${r.reason}`,
    ),
  );
}

/** The futility rule's evidence in words: its chance to pass (older races: the likelihood ratio, or the upper confidence bound). */
function evidence(r: NonNullable<DashDecision['race']>): string {
  if (r.dropBelow !== undefined)
    return r.passChance !== null && r.passChance !== undefined
      ? `; its chance to pass the promotion test at the end of the set was ${chance(r.passChance)}, and the race drops under ${chance(r.dropBelow)}`
      : '';
  if (r.odds !== null && r.odds !== undefined)
    return `; its pairs are ${times(r.odds)} times likelier if it is no faster than the champion than if it were ${pct(r.detectGainPct ?? 0)} faster${r.dropOdds ? `, and the race drops at ${times(r.dropOdds)}` : ''}`;
  return r.upperPct !== null && r.upperPct !== undefined ? `, at most ${pct(r.upperPct)} faster at 99.5% confidence` : '';
}

/** A chance for people. */
function chance(p: number): string {
  return p < 0.001 ? 'under 0.1%' : `${(100 * p).toFixed(p < 0.1 ? 1 : 0)}%`;
}

/** A likelihood ratio for people. */
function times(x: number): string {
  return x >= 1e6 ? 'over a million' : x >= 10 ? String(Math.round(x)) : x.toFixed(1);
}

/** A one-session race's drop: its speed-up so far against the gain the race was for, and both sides' times. */
function sessionRaceEvidence(r: NonNullable<DashDecision['race']>, dir: string, basis: string): HTMLElement {
  const most = Math.max(r.challengerS, r.championS, 1e-9);
  const bar = (label: string, x: number, cls: string) => {
    const fill = h('span', { class: `bar-fill ${cls}` });
    fill.style.width = `${Math.max(0.5, (100 * x) / most).toFixed(2)}%`;
    return h(
      'div',
      { class: 'bar-row' },
      h('span', { class: 'bar-label' }, label),
      h('span', { class: 'bar-track' }, fill),
      h('span', { class: 'bar-value num' }, secsUnit(x)),
    );
  };
  const speed = r.speedupPct ?? 0;
  return h(
    'div',
    { class: 'race' },
    h(
      'p',
      {},
      `Dropped by the race after ${r.ran} of ${count(r.of, 'instance')}${r.capped ? ` (${count(r.capped, 'run')} stopped at its cap, a multiple of the champion\u2019s time)` : ''}: it ran beside the champion in one session, and its pairs say ${r.dropBelow !== undefined ? `${dir} cannot pass the promotion test at the end` : `${dir} is not the ${pct(r.detectGainPct ?? 0)} gain the race was for`} (${pct(Math.abs(speed))} ${speed >= 0 ? 'faster' : 'slower'} as a geometric mean${evidence(r)}). Racing may only drop: a promotion is decided on the whole set.`,
    ),
    h(
      'div',
      { class: 'bars', role: 'img', 'aria-label': `On the instances run: the challenger ${secsUnit(r.challengerS)}, the champion ${secsUnit(r.championS)}` },
      bar('Challenger', r.challengerS, 'challenger'),
      bar('Champion', r.championS, 'champion'),
    ),
    h(
      'p',
      { class: 'muted' },
      `On ${basis}, capped runs counting their cap and unsolved ones twice the timeout. ${r.estimatedPar2 !== null ? `Its PAR-2 extrapolated from the race: about ${secsUnit(r.estimatedPar2)} (an estimate, not a measurement of the set). ` : ''}Its runs took ${secsUnit(r.spentS)}.`,
    ),
  );
}

/** A duel's comparison in figures and one sentence. */
function duelSummary(d: DashDuel): HTMLElement {
  const basis = basisName(d.on);
  return h(
    'div',
    {},
    h(
      'div',
      { class: 'stats' },
      stat('Pairs', d.n.toLocaleString()),
      stat(`PAR-2 on ${basis}, champion \u2192 challenger`, `${secs(d.par2A)} \u2192 ${secs(d.par2B)} s`),
      stat('Gain', signedPct(d.gainPct)),
      stat('p (paired test)', pValue(d.p)),
      stat('Noise band', pct(d.bandPct)),
      stat('PAR-2 on wall time', `${secs(d.wallPar2A)} \u2192 ${secs(d.wallPar2B)} s`),
    ),
    h(
      'p',
      { class: 'muted' },
      `Measured side by side in one session${d.together ? ', both sides running each block at the same moment' : ', block by block'}, the order alternating (ABBA). 95% interval of the per-instance difference: ${secs(d.ci95[0])} to ${secs(d.ci95[1])} s. Verdict of the paired test: ${d.verdict === 'B faster' ? 'the challenger is faster' : d.verdict === 'A faster' ? 'the champion is faster' : 'no significant difference'}.`,
    ),
    d.fatal ? h('p', { class: 'warning' }, `In the duel, ${d.fatal}`) : null,
  );
}

/** A run status by its code in the pairs' columns. */
const statusOf = (code: number) => (code >= 0 ? (RUN_STATUSES[code] ?? 'unknown') : 'unknown');

/** The pairs of a duel: scatter and table, once they have arrived. */
function pairsView(box: HTMLElement, ctx: TabContext, d: DashDecision, duel: DashDuel, charts: Chart[]): void {
  const pairs = ctx.pairs(duel.session);
  box.append(h('h3', {}, `The ${count(duel.n, 'pair')}`));
  if (pairs === undefined) {
    box.append(h('p', { class: 'muted' }, 'Loading the pairs\u2026'));
    return;
  }
  if (pairs === null) {
    box.append(h('p', { class: 'muted' }, 'The pairs of this duel are no longer on disk.'));
    return;
  }
  const { v, ui, p } = ctx;
  const points: PairPoint[] = pairs.instance.map((instance, i) => ({
    instance,
    order: pairs.order[i]!,
    a: pairs.a.par2[i]!,
    b: pairs.b.par2[i]!,
    aStatus: statusOf(pairs.a.status[i]!),
    bStatus: statusOf(pairs.b.status[i]!),
  }));
  const faster = points.filter((x) => x.b < x.a).length;
  const slower = points.filter((x) => x.b > x.a).length;
  const basis = basisName(pairs.on);
  box.append(
    toolbar(
      checkbox('Logarithmic axes', ui.pairsLog, (on) => ctx.setUi({ pairsLog: on })),
      h(
        'span',
        { class: 'muted' },
        `Below the diagonal the challenger was faster: ${faster} of ${points.length}; above it, ${slower}. Unsolved runs count twice the timeout (${secsUnit(2 * pairs.timeoutS)}).`,
      ),
    ),
  );
  const summary = [
    h(
      'p',
      {},
      `${points.length} pairs on ${basis} time: the challenger was faster on ${faster}, slower on ${slower}, equal on ${points.length - faster - slower}.`,
    ),
  ];
  // A square plot (so y = x runs at 45 degrees) with the table beside it where the panel is wide enough.
  const row = h('div', { class: 'pairs-row' });
  const plot = h('div', { class: 'pairs-plot' });
  box.append(row);
  row.append(plot, pairsTable(ctx, pairs));
  const side = Math.max(300, Math.min(560, chartHeight(340)));
  plot.style.width = `${side + 40}px`;
  const canvas = chartBox(
    plot,
    `Scatter plot: per instance, the champion's ${basis} time (x) against the challenger's (y), with the line of equal time; blocks where the champion ran first are circles, where the challenger ran first squares`,
    summary,
    side,
  );
  charts.push(
    pairsScatter(canvas, { points, champion: dirOf(v, d.champion), challenger: dirOf(v, d.candidate), basis, timeoutS: pairs.timeoutS, log: ui.pairsLog }, p),
  );
}

/** The pairs, sorted as chosen; the first MAX_PAIRS rows. */
function pairsTable(ctx: TabContext, pairs: DuelPairs): HTMLElement {
  const { ui } = ctx;
  const n = pairs.instance.length;
  const ratio = (i: number) => {
    const a = pairs.a.par2[i]!;
    const b = pairs.b.par2[i]!;
    return a > 0 ? b / a : b > 0 ? Infinity : 1;
  };
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  const sign = ui.pairSort.dir === 'asc' ? 1 : -1;
  const by: Record<UiState['pairSort']['key'], (i: number, j: number) => number> = {
    instance: (i, j) => collator.compare(pairs.instance[i]!, pairs.instance[j]!),
    order: (i, j) => pairs.order[i]!.localeCompare(pairs.order[j]!),
    a: (i, j) => pairs.a.par2[i]! - pairs.a.par2[j]!,
    b: (i, j) => pairs.b.par2[i]! - pairs.b.par2[j]!,
    ratio: (i, j) => ratio(i) - ratio(j) || 0,
  };
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (i, j) => sign * by[ui.pairSort.key](i, j) || collator.compare(pairs.instance[i]!, pairs.instance[j]!),
  );
  const basis = basisName(pairs.on);
  const head = (label: string, key: UiState['pairSort']['key'] | null, cls = '') => {
    if (!key) return h('th', { scope: 'col', class: cls }, label);
    const on = ui.pairSort.key === key;
    const b = h(
      'button',
      { type: 'button', class: 'sort', title: `Sort by ${label}` },
      h('span', { class: 'label' }, label),
      h('span', { class: 'arrow', 'aria-hidden': 'true' }, on ? (ui.pairSort.dir === 'asc' ? '\u25b2' : '\u25bc') : ''),
    );
    b.addEventListener('click', () => ctx.setUi({ pairSort: { key, dir: on && ui.pairSort.dir === 'desc' ? 'asc' : 'desc' } }));
    return h('th', { scope: 'col', class: cls, 'aria-sort': on ? (ui.pairSort.dir === 'asc' ? 'ascending' : 'descending') : 'none' }, b);
  };
  const time = (side: DuelPairs['a'], i: number) => {
    const st = statusOf(side.status[i]!);
    return st === 'solved' ? secs(side.par2[i]!) : `${secs(side.par2[i]!)} (${st})`;
  };
  const opt = (x: number | null | undefined) => (x === null || x === undefined ? '\u2013' : secs(x));
  const rows = order.slice(0, MAX_PAIRS).map((i) => {
    const r = ratio(i);
    return h(
      'tr',
      {},
      h('td', { class: 'inst', title: pairs.instance[i]! }, pairs.instance[i]!),
      h('td', {}, pairs.order[i]!),
      h('td', { class: 'num' }, time(pairs.a, i)),
      h('td', { class: 'num' }, time(pairs.b, i)),
      h('td', { class: `num${r < 1 ? ' gain' : r > 1 ? ' loss' : ''}` }, Number.isFinite(r) ? `\u00d7${r.toFixed(2)}` : '\u221e'),
      h('td', { class: 'num muted' }, secs(pairs.a.wall[i]!)),
      h('td', { class: 'num muted' }, opt(pairs.a.cpu[i])),
      h('td', { class: 'num muted' }, secs(pairs.b.wall[i]!)),
      h('td', { class: 'num muted' }, opt(pairs.b.cpu[i])),
    );
  });
  return h(
    'div',
    { class: 'pairs-wrap' },
    h(
      'table',
      { class: 'plain pairs' },
      h('caption', { class: 'muted' }, `Seconds: each side\u2019s PAR-2 on ${basis} time (the decision\u2019s), then wall and CPU time of each run.`),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head('Instance', 'instance'),
          head('Order', 'order'),
          head('Champion', 'a', 'num'),
          head('Challenger', 'b', 'num'),
          head('Ratio', 'ratio', 'num'),
          head('Champ. wall', null, 'num'),
          head('Champ. CPU', null, 'num'),
          head('Chall. wall', null, 'num'),
          head('Chall. CPU', null, 'num'),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
    n > MAX_PAIRS ? h('p', { class: 'muted note' }, `The first ${MAX_PAIRS} of ${n} pairs in this order; the scatter shows them all.`) : null,
  );
}
