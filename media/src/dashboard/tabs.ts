// The content of each tab: a chart (with an aria-label and a visually hidden summary of its data), its
// controls, and an empty state that says what would fill it.
import type { Chart } from 'chart.js';
import type { DashCandidate } from '../../../src/core/dashboard/dashboardSchema';
import {
  cactusChart,
  costChart,
  cyclesChart,
  failureBars,
  judgeScatter,
  par2Bars,
  type BarRow,
  type CactusSeries,
  type CyclePoint,
  type RejectedPoint,
} from './charts';
import { h, linkButton } from '../shared/dom';
import { chartBox, chartHeight, checkbox, empty, stat, toolbar } from './parts';
import { change, count, secs, secsUnit, tokens, usd } from './format';
import { solvedTimes, styleOf } from './model';
import type { Tab } from './state';
import type { TableColumn } from './table';
import { verdicts } from './verdictsTab';
import { familyGrid } from './familyStrip';
import type { TabContext } from './tabContext';

/** Renders one tab into `el`; the charts it creates are pushed to `charts` (the caller destroys them). */
export function renderTab(tab: Tab, el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  // The table stays in place across refreshes: it keeps its scroll position and focus.
  const keep = tab === 'instances' && ctx.table.el.parentElement === el ? ctx.table.el : undefined;
  for (const c of [...el.children]) if (c !== keep) c.remove();
  el.prepend(h('h2', { class: 'tab-title' }, TITLES[tab]));
  (({ cycles, verdicts, cactus, satunsat, instances, failures, cost, strategy }) satisfies Record<Tab, unknown>)[tab](el, ctx, charts);
}

const TITLES: Record<Tab, string> = {
  cycles: 'PAR-2 per cycle: the champion, each cycle\u2019s candidate, the baselines',
  verdicts: 'Verdicts: the rule in force, and how each challenger was judged against the champion',
  cactus: 'Cactus plot: instances solved within a time',
  satunsat: 'PAR-2 on all, SAT and UNSAT instances',
  instances: 'Per-instance results',
  failures: 'Failed evaluations by the first gate they failed',
  cost: 'Tokens and cost per cycle',
  strategy: 'What the search strategy is doing',
};

// ---- PAR-2 per cycle (paper Fig. 8) --------------------------------------------------------------

function cycles(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  const { v, p } = ctx;
  const cs = v.data.cycles;
  const baselines = v.baselines
    .filter((b) => b.perf)
    .map((b) => ({
      label: b.seed ?? b.dir,
      par2: b.perf!.par2,
      color: styleOf(v, ctx.ui.selected, p, b.id).color,
      dash: styleOf(v, ctx.ui.selected, p, b.id).dash ?? [],
    }));
  if (!cs.length) {
    el.append(
      empty(
        'No cycles yet.',
        'Start an evolution cycle: the champion\u2019s PAR-2 after each cycle, each cycle\u2019s candidate and the baselines appear here.',
      ),
    );
    return;
  }
  const dirOf = (id: number | null) => (id === null ? '' : (v.byId.get(id)?.dir ?? ''));
  const start = v.byId.get(cs[0]!.parent)?.perf?.par2;
  const champion = [
    ...(start !== undefined ? [{ x: 0, y: start, dir: dirOf(cs[0]!.parent) }] : []),
    ...cs.filter((c) => c.championPar2 !== null).map((c) => ({ x: c.cycle, y: c.championPar2!, dir: dirOf(c.champion) })),
  ];
  const points: CyclePoint[] = cs
    .filter((c) => c.candidatePar2 !== null && c.candidate !== null)
    .map((c) => ({
      cycle: c.cycle,
      par2: c.candidatePar2!,
      dir: dirOf(c.candidate),
      title: c.title,
      outcome: c.outcome,
      newChampion: c.championChanged,
      why: v.data.verdicts.decisions.find((d) => d.cycle === c.cycle && d.candidate === c.candidate)?.why ?? null,
    }));
  const last = cs[cs.length - 1]!;
  // A baseline far above the candidates would squash them: fit the axis unless asked otherwise.
  const top = Math.max(...champion.map((c) => c.y), ...points.map((c) => c.par2));
  const shown = baselines.map((b) => ({ ...b, offScale: ctx.ui.cyclesFit && Number.isFinite(top) && b.par2 > top * 1.3 }));
  // Rejected early by racing: no PAR-2 of the set, only the race's lower estimate; an estimate far above the axis sits at its top.
  const cap = ctx.ui.cyclesFit && Number.isFinite(top) ? top * 1.15 : Infinity;
  const rejected: RejectedPoint[] = cs
    .filter((c) => c.candidatePartial === 'rejected early' && c.candidateEstimate !== null && c.candidate !== null)
    .map((c) => ({ cycle: c.cycle, y: Math.min(c.candidateEstimate!, cap), estimate: c.candidateEstimate!, dir: dirOf(c.candidate), title: c.title }));
  const early = cs.filter((c) => c.candidatePartial !== null).length;
  const unmeasured = cs.length - points.length - early;
  const first = champion[0];
  const now = champion[champion.length - 1];
  const summary = [
    h(
      'p',
      {},
      first && now
        ? `The champion's PAR-2 went from ${secsUnit(first.y)} (${first.dir}, cycle ${first.x}) to ${secsUnit(now.y)} (${now.dir}, after cycle ${now.x}).`
        : 'No champion has a measured PAR-2 yet.',
    ),
    h(
      'p',
      {},
      `${count(points.length, 'cycle')} produced a candidate measured on the whole set; ${early ? `${early} stopped early (racing or a perf tier: no PAR-2 of the set); ` : ''}${unmeasured} did not (failed a gate or still running). ${count(cs.filter((c) => c.championChanged).length, 'cycle')} crowned a new champion.`,
    ),
    baselines.length ? h('p', {}, `Baselines: ${baselines.map((b) => `${b.label} ${secsUnit(b.par2)}`).join(', ')}.`) : null,
  ];
  el.append(
    toolbar(
      checkbox('Fit the axis to the candidates', ctx.ui.cyclesFit, (on) => ctx.setUi({ cyclesFit: on })),
      h(
        'span',
        { class: 'muted' },
        `${count(cs.length, 'cycle')} · ${count(points.length, 'measured candidate')}${rejected.length ? ` · ${rejected.length} rejected early (\u25b3: racing's estimate, not a measurement)` : ''}`,
      ),
      h('span', { class: 'muted hint' }, 'Click a candidate to open its RESULTS.md'),
    ),
  );
  const canvas = chartBox(
    el,
    `Line chart: PAR-2 in seconds per cycle, for the champion and each cycle's candidate, with ${baselines.length} baseline reference line${baselines.length === 1 ? '' : 's'}`,
    summary,
    chartHeight(320),
  );
  // The point under the pointer, explained below the chart (the tooltip shows it too, but vanishes): the newest by default.
  const explained = points.filter((c) => c.why);
  const pointWhy = h('p', { class: 'point-why', 'aria-live': 'polite' });
  const explain = (c: CyclePoint | undefined) => {
    if (c?.why) pointWhy.replaceChildren(h('strong', {}, `Cycle ${c.cycle}, ${c.dir}: `), c.why);
  };
  explain(explained[explained.length - 1]);
  el.append(pointWhy);
  // Which families each challenger made faster or slower, over the cycles (a family that got slower stands out).
  const grid = familyGrid(v.data.verdicts.decisions, (id) => v.byId.get(id)?.dir ?? `SATLUTION_${id}`);
  if (grid) el.append(grid);
  charts.push(
    cyclesChart(
      canvas,
      { champion, candidates: points, rejected, baselines: shown, lastCycle: last.cycle },
      p,
      (dir) => ctx.post({ type: 'openResults', candidate: dir }),
      explain,
    ),
  );
}

// ---- cactus plot (paper Fig. 2) ----------------------------------------------------------------------

function cactus(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  const { v, ui, p } = ctx;
  const ids = [...v.baselines.map((b) => b.id), ...ui.selected.filter((id) => !v.baselines.some((b) => b.id === id))];
  const withDetail = ids.filter((id) => v.byId.get(id)?.hasDetail);
  el.append(
    toolbar(
      checkbox('Logarithmic time axis', ui.cactusLog, (on) => ctx.setUi({ cactusLog: on })),
      h('span', { class: 'muted' }, `Baselines dashed${v.champion?.timeoutS ? ` · timeout ${secsUnit(v.champion.timeoutS)}` : ''}`),
    ),
  );
  if (!withDetail.length) {
    el.append(empty('No per-instance results to plot.', 'Evaluate a baseline or compare candidates that reached the perf stage.'));
    return;
  }
  if (!ctx.columns) {
    el.append(empty('Loading per-instance results…'));
    return;
  }
  const series: CactusSeries[] = withDetail.flatMap((id) => {
    const col = ctx.columns!.get(id);
    const c = v.byId.get(id)!;
    if (!col) return [];
    const st = styleOf(v, ui.selected, p, id);
    return [
      {
        label: `${c.seed ?? c.dir}${c.partial ? ` (${c.partial}: part of the set)` : ''}`,
        color: st.color,
        baseline: c.seed !== null,
        ...(st.dash ? { dash: st.dash } : {}),
        times: solvedTimes(col),
      },
    ];
  });
  const summary = [
    h(
      'p',
      {},
      series.map((s) => `${s.label} solved ${s.times.length}${s.times.length ? `, the last within ${secsUnit(s.times[s.times.length - 1])}` : ''}`).join('; ') +
        '.',
    ),
  ];
  const canvas = chartBox(
    el,
    `Cactus plot: instances solved (x) against the time needed (y) for ${series.map((s) => s.label).join(', ')}`,
    summary,
    chartHeight(340),
  );
  charts.push(cactusChart(canvas, series, p, ui.cactusLog));
}

// ---- SAT / UNSAT PAR-2 bars (paper Figs. 3-7) -------------------------------------------------------

function satunsat(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  const { v, ui, p } = ctx;
  // A candidate stopped early (racing, a perf tier) has a PAR-2 of part of the set only: not comparable, so not a bar.
  const measured = v.data.candidates.filter((c) => c.perf && !c.partial);
  const chosen = ui.barsAll
    ? measured
    : [...v.baselines, ...(v.champion ? [v.champion] : []), ...ui.selected.map((id) => v.byId.get(id)!).filter(Boolean)].filter(
        (c, i, all) => c.perf && !c.partial && all.findIndex((x) => x.id === c.id) === i,
      );
  const early = (ui.barsAll ? v.data.candidates : ui.selected.map((id) => v.byId.get(id)!).filter(Boolean)).filter((c) => c.perf && c.partial);
  el.append(
    toolbar(
      checkbox('All measured candidates', ui.barsAll, (on) => ctx.setUi({ barsAll: on })),
      h('span', { class: 'muted' }, ui.barsAll ? count(chosen.length, 'candidate') : 'Baselines, the champion and the compared candidates'),
      early.length
        ? h(
            'span',
            { class: 'muted hint' },
            `Left out, stopped early (part of the set only): ${early
              .slice(0, 5)
              .map((c) => `${c.dir} (${c.partial})`)
              .join(', ')}${early.length > 5 ? ` and ${early.length - 5} more` : ''}`,
          )
        : null,
    ),
  );
  if (!chosen.length) {
    el.append(empty('No PAR-2 measured yet.', 'Candidates that pass the perf stage appear here.'));
    return;
  }
  const rows: BarRow[] = chosen.map((c) => ({
    label: `${c.seed !== null ? `${c.seed} (baseline)` : c.dir}${c.champion ? ' ★' : ''}`,
    all: c.perf!.par2,
    sat: c.perf!.par2Sat,
    unsat: c.perf!.par2Unsat,
  }));
  const table = h(
    'table',
    {},
    h('caption', {}, 'PAR-2 in seconds'),
    h('tr', {}, h('th', {}, 'Solver'), h('th', {}, 'All'), h('th', {}, 'SAT'), h('th', {}, 'UNSAT')),
    ...rows.map((r) => h('tr', {}, h('th', {}, r.label), h('td', {}, secs(r.all)), h('td', {}, secs(r.sat)), h('td', {}, secs(r.unsat)))),
  );
  const canvas = chartBox(
    el,
    `Bar chart: PAR-2 in seconds on all, SAT-only and UNSAT-only instances for ${count(rows.length, 'solver')}`,
    [table],
    Math.max(220, 64 + rows.length * (rows.length > 20 ? 26 : 40)),
  );
  charts.push(par2Bars(canvas, rows, p));
  const best = v.baselines.filter((b) => b.perf).sort((a, b) => a.perf!.par2 - b.perf!.par2)[0];
  if (best && v.champion?.perf && v.champion.id !== best.id)
    el.append(
      h(
        'p',
        { class: 'muted note' },
        `Champion ${v.champion.dir}: ${secsUnit(v.champion.perf.par2)} against the best baseline ${best.seed ?? best.dir} ${secsUnit(best.perf!.par2)} (${change(best.perf!.par2, v.champion.perf.par2)}).`,
      ),
    );
}

// ---- per-instance table ----------------------------------------------------------------------------

function instances(el: HTMLElement, ctx: TabContext): void {
  const { v, ui } = ctx;
  if (!v.data.instances.name.length) {
    el.append(empty('No per-instance results yet.', 'Candidates that reach the perf stage list every instance here.'));
    return;
  }
  const note =
    !ui.selected.length && !(ui.tableBaselines && v.baselines.length)
      ? 'Add candidates to compare above to see their status, time and answer on each instance.'
      : !ctx.columns
        ? 'Loading per-instance results…'
        : '';
  if (note) el.insertBefore(h('p', { class: 'muted note' }, note), ctx.table.el.parentElement === el ? ctx.table.el : null);
  if (ctx.table.el.parentElement !== el) el.append(ctx.table.el);
  ctx.table.update(v.data, tableColumns(ctx), ui);
}

/** The table's candidate columns: the compared candidates, then the baselines (unless hidden). */
export function tableColumns(ctx: Pick<TabContext, 'v' | 'ui' | 'p' | 'columns'>): TableColumn[] {
  const { v, ui, p } = ctx;
  const ids = [...ui.selected.filter((id) => !v.baselines.some((b) => b.id === id)), ...(ui.tableBaselines ? v.baselines.map((b) => b.id) : [])];
  return ids.flatMap((id) => {
    const col = ctx.columns?.get(id);
    const c = v.byId.get(id);
    const st = styleOf(v, ui.selected, p, id);
    return col && c ? [{ id, dir: c.seed ?? c.dir, candidate: c.dir, color: st.color, dashed: st.dash !== undefined, col }] : [];
  });
}

// ---- failures --------------------------------------------------------------------------------------

function failures(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  const { v, p } = ctx;
  const total = v.data.failures.reduce((s, f) => s + f.count, 0);
  const warned = v.data.candidates.filter((c) => c.warnings.length).reverse();
  if (!total) {
    el.append(
      empty('No failed evaluations.', 'A candidate that fails a gate (compliance, build, smoke, verify, perf) is counted here under the first gate it failed.'),
    );
    el.append(...warnedList(ctx, warned));
    return;
  }
  const summary = [
    h(
      'p',
      {},
      `${count(total, 'failed evaluation')}: ${v.data.failures
        .filter((f) => f.count)
        .map((f) => `${f.count} at ${f.gate}`)
        .join(', ')}.`,
    ),
  ];
  const evaluated = v.data.candidates.filter((c) => c.verdict !== null).length;
  el.append(toolbar(h('span', { class: 'muted' }, `${count(total, 'failed evaluation')} of ${evaluated.toLocaleString()}`)));
  const canvas = chartBox(el, 'Bar chart: failed evaluations per first failing gate', summary, 240);
  charts.push(failureBars(canvas, v.data.failures, p));
  const failed = v.data.candidates.filter((c) => c.failedGate && (c.verdict === 'fail' || (c.verdict === null && c.status === 'failed'))).reverse();
  el.append(
    h('h2', {}, 'Failed candidates'),
    h(
      'ul',
      { class: 'failures' },
      ...failed
        .slice(0, 200)
        .map((c) =>
          h(
            'li',
            {},
            h('span', { class: 'name' }, c.dir),
            h('span', { class: `gate g-${c.failedGate}` }, c.failedGate!),
            h('span', { class: 'detail', title: c.failure ?? '' }, c.failure ?? ''),
            h('span', { class: 'actions' }, ...candidateActions(ctx, c.dir, c.parent !== null)),
          ),
        ),
    ),
    ...warnedList(ctx, warned),
  );
}

/** Candidates whose latest evaluation passed a gate that checked nothing (vacuous_gates: warn), each warning a red line. */
function warnedList(ctx: Pick<TabContext, 'post'>, warned: readonly DashCandidate[]): HTMLElement[] {
  if (!warned.length) return [];
  return [
    h('h2', {}, 'Passed with a warning'),
    h(
      'ul',
      { class: 'failures warned' },
      ...warned
        .slice(0, 200)
        .map((c) =>
          h(
            'li',
            {},
            h('span', { class: 'name' }, c.dir),
            h('span', { class: 'gate' }, 'warning'),
            h('span', { class: 'detail warning', title: c.warnings.join('\n') }, c.warnings.join('; ')),
            h('span', { class: 'actions' }, ...candidateActions(ctx, c.dir, c.parent !== null)),
          ),
        ),
    ),
  ];
}

function candidateActions(ctx: Pick<TabContext, 'post'>, dir: string, hasParent: boolean): HTMLElement[] {
  return [
    linkButton('Results', () => ctx.post({ type: 'openResults', candidate: dir }), { aria: `Open RESULTS.md of ${dir}`, title: 'Open RESULTS.md' }),
    ...(hasParent
      ? [linkButton('Diff', () => ctx.post({ type: 'compare', candidate: dir }), { aria: `Compare ${dir} with its parent`, title: 'Compare with parent' })]
      : []),
  ];
}

// ---- tokens and cost -------------------------------------------------------------------------------

function cost(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  const { v, p } = ctx;
  const rows = v.data.cost;
  if (!rows.length) {
    el.append(empty('No LLM usage recorded.', 'Agents with a configured model record their tokens and cost here; the offline tuner spends none.'));
    return;
  }
  const sum = rows.reduce(
    (s, r) => ({
      usd: s.usd + r.usd,
      input: s.input + r.input,
      output: s.output + r.output,
      cache: s.cache + r.cacheRead + r.cacheWrite,
      calls: s.calls + r.calls,
    }),
    { usd: 0, input: 0, output: 0, cache: 0, calls: 0 },
  );
  const inCycles = rows.filter((r) => r.cycle !== null);
  el.append(
    h(
      'div',
      { class: 'stats' },
      stat('Total cost', usd(sum.usd)),
      stat('Per cycle', inCycles.length ? usd(inCycles.reduce((s, r) => s + r.usd, 0) / inCycles.length) : '–'),
      stat('Input tokens', tokens(sum.input)),
      stat('Output tokens', tokens(sum.output)),
      stat('Cache tokens', tokens(sum.cache)),
      stat('LLM calls', sum.calls.toLocaleString()),
    ),
  );
  const summary = [
    h('p', {}, `${usd(sum.usd)} in total over ${count(inCycles.length, 'cycle')}; ${tokens(sum.input)} input and ${tokens(sum.output)} output tokens.`),
  ];
  const canvas = chartBox(el, 'Bar chart: tokens per cycle by kind, with the cost in US dollars as a line', summary, chartHeight(300));
  charts.push(
    costChart(
      canvas,
      rows.map((r) => ({
        label: r.cycle === null ? 'other' : String(r.cycle),
        input: r.input,
        output: r.output,
        cacheRead: r.cacheRead,
        cacheWrite: r.cacheWrite,
        usd: r.usd,
      })),
      p,
    ),
  );
}

// ---- the search strategy (SIFT: is the judge worth it?) -------------------------------------------

const corr = (r: number | null) => (r === null ? 'n/a' : r.toFixed(2));

function strategy(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  strategyBody(el, ctx, charts);
  if (ctx.v.data.tiers) tiersView(el, ctx);
  if (ctx.v.data.consensus) consensusView(el, ctx);
}

/** The objective portfolio: each objective's consensus weight and agreement, and the candidates it ranks best. */
function consensusView(el: HTMLElement, ctx: TabContext): void {
  const d = ctx.v.data.consensus!;
  const dir = (id: number) => ctx.v.byId.get(id)?.dir ?? `SATLUTION_${id}`;
  el.append(
    h('h3', {}, 'Objective portfolio (consensus)'),
    h(
      'p',
      { class: 'muted' },
      'Objectives are weighted by how well they agree with the others (median Kendall \u03c4, floored at 0), decayed 10% per round of age and scaled by their multiplier; a candidate\u2019s consensus score is the weighted Borda count, 0 = first for every weighted objective. Correctness is a gate, not an objective.',
    ),
    h(
      'table',
      { class: 'plain' },
      h('thead', {}, h('tr', {}, ...['Objective', 'Weight', 'Mean \u03c4', 'By', 'Round', 'Multiplier', 'Why'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...d.objectives.map((o) =>
          h(
            'tr',
            {},
            h('td', {}, o.name),
            h('td', {}, o.error ? `error: ${o.error}` : o.weight.toFixed(2)),
            h('td', {}, o.tau === null ? '\u2013' : o.tau.toFixed(2)),
            h('td', {}, o.author),
            h('td', {}, String(o.createdRound)),
            h('td', {}, `\u00d7${o.multiplier}`),
            h('td', { class: 'muted' }, o.rationale),
          ),
        ),
      ),
    ),
    h(
      'table',
      { class: 'plain' },
      h('thead', {}, h('tr', {}, ...['Candidate', 'Consensus score'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...d.candidates.slice(0, 10).map((c) => h('tr', {}, h('td', {}, dir(c.candidate)), h('td', {}, c.score.toFixed(3))))),
    ),
  );
}

/** Multi-fidelity: each perf tier's size, timeout and promotion rule, and the latest results. */
function tiersView(el: HTMLElement, ctx: TabContext): void {
  const d = ctx.v.data.tiers!;
  const dir = (id: number) => ctx.v.byId.get(id)?.dir ?? `SATLUTION_${id}`;
  const last = d.tiers.length;
  el.append(
    h('h3', {}, 'Perf tiers (multi-fidelity)'),
    h(
      'table',
      { class: 'plain' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Tier', 'Share of perf', 'Timeout', 'Goes on if in the top', 'Candidates measured', 'Went on'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        {},
        ...d.tiers.map((t) =>
          h(
            'tr',
            {},
            h('td', {}, String(t.tier)),
            h('td', {}, `${Math.round(100 * t.fraction)}%`),
            h('td', {}, secsUnit(t.timeoutS)),
            h('td', {}, t.tier === last || t.promoteTop === null ? '\u2013' : `${Math.round(100 * t.promoteTop)}%`),
            h('td', {}, String(t.measured)),
            h('td', {}, t.tier === last ? '\u2013' : String(t.promoted)),
          ),
        ),
      ),
    ),
    h(
      'table',
      { class: 'plain' },
      h('thead', {}, h('tr', {}, ...['Candidate', 'Tier', 'PAR-2', 'Rank', 'Outcome'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...[...d.recent]
          .reverse()
          .slice(0, 15)
          .map((r) =>
            h(
              'tr',
              {},
              h('td', {}, dir(r.candidate)),
              h('td', {}, String(r.tier)),
              h('td', {}, r.par2 === null ? 'failed' : secsUnit(r.par2)),
              h('td', {}, r.rank === null ? '\u2013' : `${r.rank} of ${r.of}`),
              h('td', {}, r.promoted ? 'went on' : 'stopped'),
            ),
          ),
      ),
    ),
  );
}

function strategyBody(el: HTMLElement, ctx: TabContext, charts: Chart[]): void {
  const { v, p } = ctx;
  const j = v.data.judge;
  const name = v.data.strategy;
  if (v.data.smc && (name === 'smc' || (!j && !v.data.islands))) {
    smcView(el, ctx);
    return;
  }
  if (v.data.islands && (name === 'islands' || !j)) {
    islandsView(el, ctx);
    return;
  }
  if (!j) {
    el.append(
      name === 'sift'
        ? empty(
            'The judge has not scored a proposal yet.',
            'Each sift cycle makes several proposals; the judge scores each (1-10) and only the best are evaluated. Scores and measured gains appear here.',
          )
        : empty(
            `Strategy: ${name ?? 'champion-challenger'}. One proposal per cycle, evaluated, promoted when significantly faster.`,
            'With strategy: { name: sift } in satlution.yaml, a judge model screens several proposals per cycle; its scores against the measured gains appear here.',
          ),
    );
    return;
  }
  const measured = j.points.filter((x) => x.gainPct !== null);
  const verdict =
    j.spearman === null
      ? 'Too few evaluated proposals to tell whether the judge predicts gains.'
      : j.spearman >= 0.3
        ? 'The judge’s scores track the measured gains: screening with it saves evaluations.'
        : j.spearman <= -0.3
          ? 'The judge’s scores run against the measured gains: consider another judge model or rubric.'
          : 'The judge’s scores barely track the measured gains so far.';
  el.append(
    h(
      'div',
      { class: 'stats' },
      stat('Strategy', name ?? 'sift'),
      stat('Proposals scored', String(j.points.length)),
      stat('Evaluated', String(j.n)),
      stat('Pearson r', corr(j.pearson)),
      stat('Spearman ρ', corr(j.spearman)),
    ),
    h('p', { class: 'muted' }, verdict),
  );
  if (measured.length) {
    const dir = (id: number) => v.byId.get(id)?.dir ?? `SATLUTION_${id}`;
    const summary = [h('p', {}, measured.map((x) => `${dir(x.candidate)}: score ${x.score}, gain ${x.gainPct!.toFixed(1)}%`).join('; ') + '.')];
    const canvas = chartBox(
      el,
      `Scatter plot: the judge's score against the measured PAR-2 gain of ${count(measured.length, 'evaluated proposal')}`,
      summary,
      chartHeight(280),
    );
    charts.push(
      judgeScatter(
        canvas,
        measured.map((x) => ({ score: x.score, gainPct: x.gainPct!, dir: dir(x.candidate) })),
        p,
      ),
    );
  }
  const recent = [...j.points].reverse().slice(0, 30);
  el.append(
    h(
      'table',
      { class: 'plain' },
      h('thead', {}, h('tr', {}, ...['Cycle', 'Proposal', 'Score', 'Evaluated', 'Gain'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...recent.map((x) =>
          h(
            'tr',
            {},
            h('td', {}, String(x.cycle)),
            h('td', {}, v.byId.get(x.candidate)?.dir ?? String(x.candidate)),
            h('td', {}, `${x.score}/10`),
            h('td', {}, x.selected ? 'yes' : 'no'),
            h('td', {}, x.gainPct === null ? '–' : `${x.gainPct.toFixed(1)}%`),
          ),
        ),
      ),
    ),
  );
}

/** SMC: the run's temperature, its particles, the kernels' success estimates and the forecast. */
function smcView(el: HTMLElement, ctx: TabContext): void {
  const { v } = ctx;
  const d = v.data.smc!;
  const dir = (id: number) => v.byId.get(id)?.dir ?? `SATLUTION_${id}`;
  el.append(
    h(
      'div',
      { class: 'stats' },
      stat('Strategy', 'smc'),
      stat('Run \u00b7 iteration', `${d.run} \u00b7 ${d.iteration}`),
      stat('Temperature \u03bb', d.lambda.toFixed(3)),
      stat('\u03b2\u209c', d.betaT.toFixed(1)),
      stat('Accepted', `${d.accepted} / ${d.moves}`),
      stat('Forecast', `${count(d.forecast, 'evaluation')} left`),
    ),
    h(
      'p',
      { class: 'muted' },
      `The run ends at \u03bb = 1, after its last iteration, or when its best reward stalls; the next cycle then starts a new run from the champion. Rewards: 0.5 at the run's starting PAR-2, 1 at twice as fast.${d.ended.length ? ` Ended runs: ${d.ended.map((e) => `run ${e.run} (${e.reason})`).join('; ')}.` : ''}`,
    ),
    h('h3', {}, 'Particles'),
    h(
      'table',
      { class: 'plain' },
      h('thead', {}, h('tr', {}, ...['Particle', 'Candidate', 'Reward'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...d.particles.map((p, i) =>
          h('tr', {}, h('td', {}, String(i + 1)), h('td', {}, dir(p.candidate)), h('td', {}, p.reward === null ? 'not measured' : p.reward.toFixed(3))),
        ),
      ),
    ),
    h('h3', {}, 'Proposal kernels (Thompson sampling)'),
    h(
      'table',
      { class: 'plain' },
      h('thead', {}, h('tr', {}, ...['Kernel', 'Success estimate', 'Successes + 1', 'Failures + 1'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...d.kernels.map((k) =>
          h('tr', {}, h('td', {}, k.name), h('td', {}, `${(100 * k.mean).toFixed(0)}%`), h('td', {}, k.a.toFixed(1)), h('td', {}, k.b.toFixed(1))),
        ),
      ),
    ),
    h('h3', {}, 'Iterations'),
    h(
      'table',
      { class: 'plain' },
      h('thead', {}, h('tr', {}, ...['Run', 'Iteration', '\u03bb', 'ESS', 'Best reward'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...[...d.history]
          .reverse()
          .slice(0, 20)
          .map((x) =>
            h(
              'tr',
              {},
              h('td', {}, String(x.run)),
              h('td', {}, String(x.iteration)),
              h('td', {}, x.lambda.toFixed(3)),
              h('td', {}, x.ess.toFixed(2)),
              h('td', {}, x.best === null ? '\u2013' : x.best.toFixed(3)),
            ),
          ),
      ),
    ),
  );
}

/** The islands' MAP-Elites grids: SAT share of PAR-2 across, code size against the seed down. */
function islandsView(el: HTMLElement, ctx: TabContext): void {
  const { v } = ctx;
  const d = v.data.islands!;
  const dir = (id: number) => v.byId.get(id)?.dir ?? `SATLUTION_${id}`;
  const best = d.archive[0];
  el.append(
    h(
      'div',
      { class: 'stats' },
      stat('Strategy', 'islands'),
      stat('Islands', String(d.islands.length)),
      stat('Members', String(d.islands.reduce((n, i) => n + i.members, 0))),
      stat('Migrations', String(d.migrations)),
      stat('Best', best ? `${dir(best.candidate)} ${secsUnit(best.par2)}` : '\u2013'),
    ),
    h(
      'p',
      { class: 'muted' },
      `Each grid is one island: a cell keeps its fastest candidate. Across: the SAT share of PAR-2 (left: fast on SAT, right: fast on UNSAT relative to SAT). Down: code size against the seed (top: smaller). Rejected before evaluation or failed: ${
        d.penalties
          .filter((x) => x.count)
          .map((x) => `${x.kind} ${x.count}`)
          .join(', ') || 'none'
      }.`,
    ),
  );
  const grids = h('div', { class: 'islands' });
  for (const isl of d.islands) {
    const at = new Map(isl.cells.map((c) => [`${c.x},${c.y}`, c]));
    const rows = Array.from({ length: d.bins }, (_, y) =>
      h(
        'tr',
        {},
        ...Array.from({ length: d.bins }, (_, x) => {
          const c = at.get(`${x},${y}`);
          const isBest = c && isl.best?.candidate === c.candidate;
          return h(
            'td',
            { class: c ? `cell${isBest ? ' best' : ''}` : 'cell empty', title: c ? `${dir(c.candidate)}: PAR-2 ${secsUnit(c.par2)}` : 'empty' },
            c ? h('span', {}, dir(c.candidate).replace('SATLUTION_', '#')) : '',
          );
        }),
      ),
    );
    grids.append(
      h(
        'figure',
        { class: 'island' },
        h(
          'figcaption',
          {},
          `Island ${isl.index}`,
          h(
            'span',
            { class: 'muted' },
            ` \u00b7 ${count(isl.members, 'member')}${isl.best ? ` \u00b7 best ${dir(isl.best.candidate)} ${secsUnit(isl.best.par2)}` : ''}`,
          ),
        ),
        h('table', { class: 'grid', 'aria-label': `Island ${isl.index}: ${isl.cells.length} of ${d.bins * d.bins} cells occupied` }, h('tbody', {}, ...rows)),
      ),
    );
  }
  el.append(grids);
}
