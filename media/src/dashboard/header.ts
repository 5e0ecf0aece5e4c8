// The top of the dashboard: the workspace at a glance (champion, solved, cycles, spend) and the
// candidates being compared, with a picker to add more.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { DashboardViewMessage } from '../../../src/shared/dashboardProtocol';
import { h, linkButton } from '../shared/dom';
import { ago, change, count, secsUnit, usd } from './format';
import { MAX_SELECTED, styleOf, type View } from './model';
import type { Palette } from './theme';

export function kpis(v: View): HTMLElement {
  const c = v.champion;
  const best = v.baselines.filter((b) => b.perf).sort((a, b) => a.perf!.par2 - b.perf!.par2)[0];
  const cycles = v.data.cycles;
  const spend = v.data.cost.reduce((s, r) => s + r.usd, 0);
  const failed = v.data.failures.reduce((s, f) => s + f.count, 0);
  const card = (name: string, value: string, sub: string, cls = '') =>
    h(
      'div',
      { class: `kpi ${cls}` },
      h('div', { class: 'kpi-name' }, name),
      h('div', { class: 'kpi-value' }, value),
      h('div', { class: 'kpi-sub muted' }, sub),
    );
  return h(
    'div',
    { class: 'kpis', role: 'group', 'aria-label': 'Summary' },
    card(
      'Champion',
      c ? `${c.dir}` : 'none',
      c?.perf
        ? `PAR-2 ${secsUnit(c.perf.par2)}${best && best.id !== c.id ? ` · ${change(best.perf!.par2, c.perf.par2)} vs ${best.seed ?? best.dir}` : ''}`
        : 'no PAR-2 measured',
    ),
    card(
      'Solved',
      c?.perf ? `${c.perf.solved.toLocaleString()} / ${c.perf.n.toLocaleString()}` : '–',
      c?.perf ? `${c.perf.solvedSat.toLocaleString()} SAT · ${c.perf.solvedUnsat.toLocaleString()} UNSAT` : 'by the champion',
    ),
    card(
      'Cycles',
      cycles.length.toLocaleString(),
      `${count(cycles.filter((x) => x.championChanged).length, 'new champion')} · ${failed.toLocaleString()} failed`,
    ),
    card(
      'Spend',
      usd(spend),
      v.data.cost.length
        ? `${count(
            v.data.cost.reduce((s, r) => s + r.calls, 0),
            'LLM call',
          )}`
        : 'no LLM usage',
    ),
  );
}

export interface CompareHost {
  post(m: DashboardViewMessage): void;
  setSelected(ids: number[]): void;
}

/** The compared candidates as chips (colour = their line in the charts), and a picker to add one. */
export function compareBar(v: View, selected: readonly number[], p: Palette, host: CompareHost): HTMLElement {
  const chip = (id: number, removable: boolean) => {
    const c = v.byId.get(id);
    if (!c) return null;
    const st = styleOf(v, selected, p, id);
    const sw = h('span', { class: `swatch${st.dash ? ' dashed' : ''}`, 'aria-hidden': 'true' });
    if (st.dash) sw.style.borderColor = st.color;
    else sw.style.background = st.color;
    const name = c.seed !== null ? `${c.seed}` : c.dir;
    return h(
      'li',
      {
        class: `chip${c.seed !== null ? ' baseline' : ''}`,
        title: [
          c.seed !== null ? `${c.dir}: baseline (seed ${c.seed})` : c.failure ? `${c.dir}: failed ${c.failedGate}: ${c.failure}` : c.dir,
          ...c.warnings.map((w) => `Warning: ${w}`),
        ].join('\n'),
      },
      sw,
      h('span', { class: 'chip-name' }, name, c.champion ? h('span', { class: 'star', title: 'Champion', 'aria-label': '(champion)' }, ' ★') : null),
      h(
        'span',
        { class: 'muted' },
        c.partial && c.verdict === 'pass' ? c.partial : c.perf ? secsUnit(c.perf.par2) : c.failedGate ? `failed ${c.failedGate}` : 'not measured',
      ),
      // A gate that passed with nothing checked: said in red beside the verdict.
      c.warnings.length ? h('span', { class: 'warning', role: 'note', 'aria-label': `Warning: ${c.warnings.join('; ')}` }, '⚠ checked nothing') : null,
      linkButton('Results', () => host.post({ type: 'openResults', candidate: c.dir }), {
        aria: `Open RESULTS.md of ${c.dir}`,
        title: 'Open RESULTS.md',
        cls: 'chip-action',
      }),
      ...(c.parent !== null
        ? [
            linkButton('Diff', () => host.post({ type: 'compare', candidate: c.dir }), {
              aria: `Compare ${c.dir} with its parent`,
              title: 'Compare with parent',
              cls: 'chip-action',
            }),
          ]
        : []),
      removable
        ? linkButton('✕', () => host.setSelected(selected.filter((x) => x !== id)), {
            aria: `Remove ${c.dir} from the comparison`,
            title: 'Remove from the comparison',
            cls: 'chip-remove',
          })
        : null,
    );
  };
  const add = h('vscode-single-select', { class: 'add' });
  add.label = 'Add a candidate to compare';
  add.combobox = true;
  add.filter = 'contains';
  const choices = [...v.data.candidates].reverse().filter((c) => !selected.includes(c.id) && c.seed === null);
  add.append(
    h('vscode-option', { value: '', selected: '' }, selected.length >= MAX_SELECTED ? `At most ${MAX_SELECTED} candidates` : 'Add a candidate…'),
    ...choices.map((c) =>
      h(
        'vscode-option',
        {
          value: String(c.id),
          description:
            c.partial && c.verdict === 'pass'
              ? `${c.partial}${c.cycle ? ` · cycle ${c.cycle}` : ''}`
              : c.perf
                ? `PAR-2 ${secsUnit(c.perf.par2)}${c.cycle ? ` · cycle ${c.cycle}` : ''}`
                : c.failedGate
                  ? `failed at ${c.failedGate}`
                  : c.status,
        },
        `${c.dir}${c.champion ? ' ★' : ''}`,
      ),
    ),
  );
  add.disabled = selected.length >= MAX_SELECTED || !choices.length;
  add.addEventListener('change', () => {
    const id = Number(add.value);
    if (add.value !== '' && Number.isInteger(id)) host.setSelected([...selected, id]);
  });
  return h(
    'div',
    { class: 'compare', role: 'group', 'aria-label': 'Compared candidates' },
    ...(v.baselines.length
      ? [
          h('span', { class: 'compare-label muted', id: 'baselines-label' }, 'Baselines'),
          h('ul', { class: 'chips', 'aria-labelledby': 'baselines-label' }, ...v.baselines.map((b) => chip(b.id, false))),
        ]
      : []),
    h('span', { class: 'compare-label muted', id: 'compare-label' }, 'Compare'),
    h(
      'div',
      { class: 'chips-row' },
      h(
        'ul',
        { class: 'chips', 'aria-labelledby': 'compare-label' },
        ...selected.filter((id) => !v.baselines.some((b) => b.id === id)).map((id) => chip(id, true)),
      ),
      add as VscodeSingleSelect,
    ),
  );
}

export function updated(v: View): string {
  return `${v.data.workspace} · updated ${ago(v.data.builtAt)}`;
}
