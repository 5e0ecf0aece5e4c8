// The Dashboard webview: PAR-2 per cycle with baselines (paper Fig. 8), the verdicts, cactus plot (Fig. 2),
// SAT/UNSAT PAR-2 bars (Figs. 3-7), per-instance results, failures by gate, tokens and cost. Every inbound message
// is validated against the shared protocol; data is rendered with DOM APIs only (never innerHTML). The
// last data and the view state (selection, tab, filters, sort) survive hide/reload via setState: the
// page renders them at once, then says `ready`. Per-instance columns are asked for (`select`) only for
// the candidates shown, so a large workspace never crosses the channel at once.
import './shared/jitless';
import { vscodeApi } from './shared/vscodeApi';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import type { Chart } from 'chart.js';
import type { CandidateColumns, DuelPairs } from '../../src/core/dashboard/dashboardSchema';
import { DashboardHostMessage, type DashboardViewMessage } from '../../src/shared/dashboardProtocol';
import { applyTheme } from './dashboard/charts';
import { h } from './shared/dom';
import { compareBar, kpis, updated } from './dashboard/header';
import { defaultSelection, MAX_SELECTED, neededColumns, view, type View } from './dashboard/model';
import { restore, TABS, type Saved, type Tab, type UiState } from './dashboard/state';
import { InstanceTable } from './dashboard/table';
import { renderTab, tableColumns } from './dashboard/tabs';
import type { TabContext } from './dashboard/tabContext';
import { onThemeChange, readPalette, type Palette } from './dashboard/theme';
import { neededPairs } from './dashboard/verdictsTab';

const vscode = vscodeApi<DashboardViewMessage>();
const root = document.getElementById('root')!;

// Short, so the tab strip fits a dashboard opened beside an editor; each tab's heading says more.
const TAB_LABELS: Record<Tab, string> = {
  cycles: 'Cycles',
  verdicts: 'Verdicts',
  cactus: 'Cactus',
  satunsat: 'SAT / UNSAT',
  instances: 'Instances',
  failures: 'Failures',
  cost: 'Cost',
  strategy: 'Strategy',
};

const saved: Saved = restore(vscode.getState());
let ui: UiState = saved.ui;
let v: View | undefined = saved.data ? view(saved.data) : undefined;
let detail: Saved['detail'] = saved.detail;
/** Columns restored from before a reload belong to that session's data: dropped when new data comes. */
let detailRestored = detail !== undefined;
let none = false;
let palette: Palette = readPalette();
let requested = '';
/** Duels' pairs by session, as the host answered (null: it has none); a kept duel never changes, so they outlive a rebuild. */
const pairs = new Map<string, DuelPairs | null>();
const pairsAsked = new Set<string>();
let persistTimer: number | undefined;
const charts: Chart[] = [];

function persist(): void {
  clearTimeout(persistTimer);
  persistTimer = window.setTimeout(() => vscode.setState({ ui, data: v?.data, detail } satisfies Saved), 150);
}

/** Columns for the current data, by candidate id (undefined until they arrived for this version). */
function columns(): Map<number, CandidateColumns> | undefined {
  if (!v || !detail || detail.version !== v.data.version) return undefined;
  const need = neededColumns(v, ui.selected);
  const have = new Map(detail.columns.filter((c) => c.status.length === v!.data.instances.name.length).map((c) => [c.id, c]));
  return need.every((id) => have.has(id)) ? have : undefined;
}

function requestColumns(): void {
  if (!v || columns()) return;
  const ids = neededColumns(v, ui.selected);
  const key = `${v.data.version}:${ids.join(',')}`;
  if (!ids.length || key === requested) return;
  requested = key;
  vscode.postMessage({ type: 'select', ids });
}

/** A duel's pairs, asked for the first time they are needed. */
function pairsOf(session: string): DuelPairs | null | undefined {
  if (pairs.has(session)) return pairs.get(session);
  if (!pairsAsked.has(session)) {
    pairsAsked.add(session);
    vscode.postMessage({ type: 'pairs', session });
  }
  return undefined;
}

// ---- layout ----------------------------------------------------------------------------------------

const head = h('header', { class: 'top' });
const compare = h('div', { class: 'compare-wrap' });
const tabs = h('vscode-tabs', { 'aria-label': 'Dashboard views' });
const panels = new Map<Tab, HTMLElement>();
for (const t of TABS) {
  const body = h('div', { class: `tab-body t-${t}` });
  panels.set(t, body);
  // vscode-tabs assigns the ids and aria links of headers and panels itself.
  tabs.append(h('vscode-tab-header', { slot: 'header', 'data-tab': t }, TAB_LABELS[t]), h('vscode-tab-panel', {}, body));
}
tabs.selectedIndex = TABS.indexOf(ui.tab);
tabs.addEventListener('vsc-tabs-select', (e) => {
  const tab = TABS[e.detail.selectedIndex];
  if (!tab || tab === ui.tab) return;
  setUi({ tab });
});
const notes = h('footer', { class: 'notes' });
const message = h('div', { class: 'message' });

const table = new InstanceTable({
  setUi: (patch) => setUi(patch),
  openLog: (candidate, instance) => vscode.postMessage({ type: 'openLog', candidate, instance }),
});

function setUi(patch: Partial<UiState>): void {
  const before = ui;
  ui = { ...ui, ...patch };
  persist();
  if (patch.selected) {
    renderCompare();
    requestColumns();
  }
  // The table re-renders in place (it keeps focus and scroll); everything else redraws its tab.
  const tableOnly = ui.tab === 'instances' && !patch.selected && !patch.tab && before.tab === 'instances';
  if (tableOnly && v) {
    table.update(v.data, tableColumns(context()), ui);
    rendered();
  } else renderActive();
}

function context(cols = columns()): TabContext {
  return { v: v!, ui, p: palette, columns: cols, table, pairs: pairsOf, post: (m) => vscode.postMessage(m), setUi };
}

// ---- rendering -------------------------------------------------------------------------------------

/** Draws everything but the active tab; resolves when the tabs can be measured (charts need a size). */
function renderShell(): Promise<unknown> | undefined {
  if (none || !v) {
    root.replaceChildren(message);
    message.replaceChildren(
      h('h1', {}, 'SATLUTION Dashboard'),
      h('p', { class: 'muted' }, none ? 'No SATLUTION workspace is open in this window.' : 'Reading the workspace…'),
    );
    return undefined;
  }
  let attached: Promise<unknown> | undefined;
  if (!root.contains(tabs)) {
    root.replaceChildren(head, compare, tabs, notes);
    // Until the tab elements first render, their panels are not laid out (no slot yet).
    attached = Promise.all([tabs, ...tabs.querySelectorAll('vscode-tab-panel')].map((el) => (el as Lit).updateComplete));
  }
  const refresh = h('vscode-button', { secondary: '', title: 'Re-read the workspace', 'aria-label': 'Refresh the dashboard' }, 'Refresh');
  refresh.addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
  head.replaceChildren(
    h('div', { class: 'titlebar' }, h('h1', {}, 'SATLUTION Dashboard'), h('span', { class: 'muted updated' }, updated(v)), refresh),
    kpis(v),
  );
  renderCompare();
  notes.replaceChildren(
    ...(v.data.notes.length
      ? [
          h(
            'details',
            {},
            h('summary', { class: 'muted' }, `${v.data.notes.length} note${v.data.notes.length > 1 ? 's' : ''} from reading the workspace`),
            h('ul', {}, ...v.data.notes.map((n) => h('li', { class: 'muted' }, n))),
          ),
        ]
      : []),
  );
  return attached;
}

function renderCompare(): void {
  if (!v) return;
  compare.replaceChildren(
    compareBar(v, ui.selected, palette, {
      post: (m) => vscode.postMessage(m),
      setSelected: (ids) => setUi({ selected: ids.slice(0, MAX_SELECTED), chosen: true }),
    }),
  );
}

type Lit = HTMLElement & { updateComplete: Promise<boolean> };

function renderActive(): void {
  if (!v || none) return;
  if (tabs.selectedIndex !== TABS.indexOf(ui.tab)) tabs.selectedIndex = TABS.indexOf(ui.tab);
  // A tab panel shows itself on its next (async) update; a hidden one cannot be measured, so wait.
  const panel = panels.get(ui.tab)!.parentElement as Lit;
  if (panel.hasAttribute('hidden')) {
    const tab = ui.tab;
    void (tabs as unknown as Lit).updateComplete.then(() => panel.updateComplete).then(() => tab === ui.tab && !panel.hasAttribute('hidden') && renderActive());
    return;
  }
  for (const c of charts.splice(0)) c.destroy();
  // Inactive tabs hold no charts (a hidden canvas has no size); they are drawn when shown.
  for (const [t, el] of panels) if (t !== ui.tab) el.replaceChildren();
  renderTab(ui.tab, panels.get(ui.tab)!, context(), charts);
  rendered();
}

/** Tells tests and the benchmark harness that a render finished (no effect in VS Code). */
function rendered(): void {
  const session = v && ui.tab === 'verdicts' ? neededPairs(v, ui) : undefined;
  window.dispatchEvent(
    new CustomEvent('satlution:rendered', {
      detail: { tab: ui.tab, version: v?.data.version ?? 0, columns: columns() !== undefined, pairs: session === undefined || pairs.has(session) },
    }),
  );
}

function renderAll(): void {
  palette = readPalette();
  applyTheme(palette);
  const attached = renderShell();
  if (attached) void attached.then(() => renderActive());
  else renderActive();
}

// ---- messages --------------------------------------------------------------------------------------

window.addEventListener('message', (e: MessageEvent<unknown>) => {
  const m = DashboardHostMessage.safeParse(e.data);
  if (!m.success) return; // not ours, or malformed: never render it
  const msg = m.data;
  if (msg.type === 'none') {
    none = true;
    v = undefined;
    renderAll();
    return;
  }
  none = false;
  if (msg.type === 'pairs') {
    pairs.set(msg.session, msg.pairs);
    if (v && ui.tab === 'verdicts' && neededPairs(v, ui) === msg.session) renderActive();
    return;
  }
  if (msg.type === 'data') {
    // A duel the last build did not have may be in this one: ask again.
    for (const [k, x] of pairs) if (x === null) pairs.delete(k);
    pairsAsked.clear();
    for (const k of pairs.keys()) pairsAsked.add(k);
    v = view(msg.data);
    if (detailRestored) {
      detail = undefined;
      detailRestored = false;
    }
    const known = ui.selected.filter((id) => v!.byId.has(id));
    ui = { ...ui, selected: ui.chosen ? known : defaultSelection(v) };
    persist();
    requestColumns();
    renderAll();
    return;
  }
  if (!v || msg.version !== v.data.version) return; // for older (or newer) data: the next `data` asks again
  detail = { version: msg.version, columns: msg.columns };
  persist();
  if (ui.tab === 'cactus' || ui.tab === 'instances') renderActive();
  else rendered();
});

onThemeChange(() => {
  palette = readPalette();
  applyTheme(palette);
  renderCompare();
  renderActive();
});

// Render what was shown before a reload at once; then ask for the current state.
renderAll();
vscode.postMessage({ type: 'ready' });
