// The per-instance table: instance, family, expected answer, then status / time / answer of each compared
// candidate. Sortable by any column, filtered by family, status and name, and virtualized: an ARIA grid
// of absolutely placed rows, only those in view in the DOM and kept while they stay in view, so
// scrolling thousands of instances never lays out a whole table again. A row opens the run log: click
// it, or move with the arrow keys and press Enter (Left/Right pick the candidate).
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeCheckbox } from '@vscode-elements/elements/dist/vscode-checkbox/vscode-checkbox.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import { ANSWERS, EXPECTED, PROOF_STATES, RUN_STATUSES, type CandidateColumns, type DashboardData } from '../../../src/core/dashboard/dashboardSchema';
import { h, uid } from '../shared/dom';
import { count, secs } from './format';
import type { UiState } from './state';

const ROW_H = 24;
/** Column widths (px); the instance column takes what is left. */
const W = { instance: 320, family: 130, expected: 92, status: 96, time: 80, answer: 84 };

/** An UNSAT answer's proof, as its cell shows it: a mark after the answer, and a tooltip that says what it means. */
const PROOF_SHOWN: Record<Exclude<(typeof PROOF_STATES)[number], null>, { mark: string; title: string }> = {
  proved: { mark: ' \u2713', title: 'proved: drat-trim verified the proof its run wrote' },
  unchecked: { mark: '', title: 'not checked: its run kept a proof that no audit needed' },
  unproved: { mark: ' ?', title: "not proved: its proof was not verified within the checker's bounds, so it counts as unsolved" },
  rejected: { mark: ' \u2717', title: 'a lie: drat-trim rejected the proof its run wrote' },
};

/** An answer's cell (its class, text and attributes), with what its proof showed when it is UNSAT. */
function answerCell(col: CandidateColumns, i: number, k: number): [string, string, Record<string, string>] {
  const state = PROOF_STATES[col.proof[i] ?? 0] ?? null;
  const proof = state ? PROOF_SHOWN[state] : undefined;
  return [
    `td c-answer${state ? ` pf-${state}` : ''}`,
    `${ANSWERS[col.answer[i]!] ?? ''}${proof?.mark ?? ''}`,
    { 'data-k': String(k), ...(proof ? { title: proof.title } : {}) },
  ];
}

const OVERSCAN = 10;
const SOLVED = RUN_STATUSES.indexOf('solved');
const FATAL = new Set(
  ['crash', 'wrong', 'invalid_model', 'invalid_proof', 'missing_proof'].map((s) => RUN_STATUSES.indexOf(s as (typeof RUN_STATUSES)[number])),
);
const STATUS_LABEL: Record<string, string> = {
  solved: 'solved',
  timeout: 'timeout',
  memout: 'memout',
  crash: 'crash',
  unknown: 'unknown',
  wrong: 'wrong',
  invalid_model: 'bad model',
  invalid_proof: 'bad proof',
  missing_proof: 'no proof',
};

export interface TableColumn {
  id: number;
  /** The column's heading: the candidate directory, or a baseline's seed name. */
  dir: string;
  /** The candidate directory (for its logs). */
  candidate: string;
  color: string;
  /** Drawn dashed in the charts (a baseline). */
  dashed: boolean;
  col: CandidateColumns;
}

type Ui = Pick<UiState, 'family' | 'status' | 'query' | 'sort' | 'tableBaselines'>;

export interface TableHost {
  setUi(patch: Partial<Ui>): void;
  openLog(dir: string, instance: string): void;
}

const STATUS_FILTERS: [string, string][] = [
  ['all', 'All statuses'],
  ['solved-all', 'Solved by every compared candidate'],
  ['unsolved-any', 'Unsolved by some'],
  ['differs', 'Solved by some, not all'],
  ['fatal-any', 'Wrong, invalid or crashed (any)'],
  ...RUN_STATUSES.map((s): [string, string] => [`s:${s}`, `Any ${STATUS_LABEL[s] ?? s}`]),
];

export class InstanceTable {
  readonly el: HTMLElement;
  private readonly familySel: VscodeSingleSelect;
  private readonly statusSel: VscodeSingleSelect;
  private readonly search: VscodeTextfield;
  private readonly baselines: VscodeCheckbox;
  private readonly shown: HTMLElement;
  private readonly wrap: HTMLDivElement;
  private readonly head: HTMLDivElement;
  private readonly body: HTMLDivElement;
  private readonly rowId = uid('row');
  private data: DashboardData | undefined;
  private cols: TableColumn[] = [];
  private ui: Ui = { family: '', status: 'all', query: '', sort: { key: 'instance', dir: 'asc' }, tableBaselines: true };
  /** Instance indices in display order (after filter and sort). */
  private order: Int32Array = new Int32Array(0);
  /** Rendered rows by display position. */
  private readonly rows = new Map<number, HTMLElement>();
  private active = 0;
  private activeCol = 0;
  private frame = 0;
  private headH = 0;
  private queryTimer: number | undefined;
  private familiesKey = '';

  constructor(private readonly host: TableHost) {
    this.familySel = h('vscode-single-select', { class: 'family' });
    this.familySel.label = 'Filter by family';
    this.familySel.addEventListener('change', () => this.host.setUi({ family: this.familySel.value }));
    this.statusSel = h('vscode-single-select', { class: 'status-filter' });
    this.statusSel.label = 'Filter by status';
    for (const [v, label] of STATUS_FILTERS) this.statusSel.append(h('vscode-option', { value: v }, label));
    this.statusSel.addEventListener('change', () => this.host.setUi({ status: this.statusSel.value }));
    this.search = h('vscode-textfield', { placeholder: 'Filter by name', 'aria-label': 'Filter instances by name', class: 'search' });
    this.search.addEventListener('input', () => {
      clearTimeout(this.queryTimer);
      this.queryTimer = window.setTimeout(() => this.host.setUi({ query: this.search.value }), 120);
    });
    this.baselines = h('vscode-checkbox', {});
    this.baselines.label = 'Baselines';
    this.baselines.addEventListener('change', () => this.host.setUi({ tableBaselines: this.baselines.checked }));
    this.shown = h('span', { class: 'muted shown', role: 'status' });
    this.head = h('div', { class: 'thead', role: 'rowgroup' });
    this.body = h('div', { class: 'tbody', role: 'rowgroup' });
    this.wrap = h(
      'div',
      { class: 'table-scroll', role: 'grid', tabindex: '0', 'aria-label': 'Per-instance results. Arrow keys move, Enter opens the run log.' },
      this.head,
      this.body,
    );
    this.wrap.addEventListener('scroll', () => this.schedule());
    this.wrap.addEventListener('keydown', (e) => this.onKey(e));
    this.body.addEventListener('click', (e) => this.onClick(e));
    this.el = h(
      'div',
      { class: 'instances' },
      h(
        'div',
        { class: 'toolbar', role: 'toolbar', 'aria-label': 'Table filters' },
        h('label', { class: 'tool' }, h('span', { class: 'muted' }, 'Family'), this.familySel),
        h('label', { class: 'tool' }, h('span', { class: 'muted' }, 'Status'), this.statusSel),
        this.search,
        this.baselines,
        this.shown,
      ),
      this.wrap,
    );
    window.addEventListener('resize', () => this.layout());
  }

  update(data: DashboardData, cols: TableColumn[], ui: Ui): void {
    // A new order starts at the top; a refresh of the same view keeps the place.
    const s = this.ui.sort;
    if (ui.family !== this.ui.family || ui.status !== this.ui.status || ui.query !== this.ui.query || ui.sort.key !== s.key || ui.sort.dir !== s.dir) {
      this.wrap.scrollTop = 0;
      this.active = 0;
    }
    const sameShape =
      this.data === data &&
      this.cols.length === cols.length &&
      this.cols.every((c, i) => c.id === cols[i]!.id && c.col === cols[i]!.col && c.color === cols[i]!.color && c.dashed === cols[i]!.dashed);
    this.data = data;
    this.cols = cols;
    this.ui = ui;
    this.syncControls();
    if (!sameShape) this.renderHead();
    else this.updateSortMarks();
    this.computeOrder();
    this.active = Math.min(this.active, Math.max(0, this.order.length - 1));
    this.activeCol = Math.min(this.activeCol, Math.max(0, cols.length - 1));
    this.layout();
  }

  /** Sizes the scroll area to the window (the page itself should not scroll past the table). */
  layout(): void {
    if (!this.wrap.isConnected) return;
    const top = this.wrap.getBoundingClientRect().top + window.scrollY;
    this.headH = this.head.getBoundingClientRect().height;
    // As tall as the window allows, no taller than the rows need (plus room for a horizontal scrollbar).
    const need = this.headH + (this.order.length ? this.order.length * ROW_H : 72) + 16;
    this.wrap.style.height = `${Math.min(Math.max(240, Math.floor(window.innerHeight - top - 16)), need)}px`;
    this.renderRows(true);
  }

  private syncControls(): void {
    const d = this.data!;
    const key = d.families.join('\u0000');
    if (key !== this.familiesKey) {
      this.familiesKey = key;
      const hasNone = d.instances.family.some((f) => f === -1);
      this.familySel.replaceChildren(
        h('vscode-option', { value: '' }, 'All families'),
        ...d.families.map((f) => h('vscode-option', { value: `=${f}` }, f)),
        ...(hasNone && d.families.length ? [h('vscode-option', { value: '!' }, '(no family)')] : []),
      );
      this.familySel.combobox = d.families.length > 12;
    }
    if (this.familySel.value !== this.ui.family) this.familySel.value = this.ui.family;
    if (this.statusSel.value !== this.ui.status) this.statusSel.value = this.ui.status;
    if (this.baselines.checked !== this.ui.tableBaselines) this.baselines.checked = this.ui.tableBaselines;
    if (this.search.value !== this.ui.query && document.activeElement !== this.search) this.search.value = this.ui.query;
  }

  private header(label: string, key: string, aria: string, cls: string): HTMLElement {
    const cell = h('div', { role: 'columnheader', class: `th ${cls}`, 'data-key': key, 'aria-label': aria });
    const b = h(
      'button',
      { type: 'button', class: 'sort', title: `Sort by ${aria}` },
      h('span', { class: 'label' }, label),
      h('span', { class: 'arrow', 'aria-hidden': 'true' }),
    );
    b.addEventListener('click', () => {
      const s = this.ui.sort;
      this.host.setUi({ sort: { key, dir: s.key === key && s.dir === 'asc' ? 'desc' : 'asc' } });
    });
    cell.append(b);
    return cell;
  }

  private renderHead(): void {
    // The candidates' names over their three columns; the column headers below carry them for screen readers.
    const groups = h('div', { class: 'hrow groups', 'aria-hidden': 'true' }, h('div', { class: 'th span3' }));
    const cols = h(
      'div',
      { class: 'hrow', role: 'row', 'aria-rowindex': '1' },
      this.header('Instance', 'instance', 'instance', 'c-instance'),
      this.header('Family', 'family', 'family', 'c-family'),
      this.header('Expected', 'expected', 'expected answer', 'c-expected'),
    );
    for (const c of this.cols) {
      const swatch = h('span', { class: c.dashed ? 'swatch dashed' : 'swatch', 'aria-hidden': 'true' });
      if (c.dashed) swatch.style.borderColor = c.color;
      else swatch.style.background = c.color;
      groups.append(h('div', { class: 'th cand span3', title: c.candidate }, swatch, c.dir));
      cols.append(
        this.header('Status', `c${c.id}:status`, `${c.dir} status`, 'c-status first'),
        this.header('Time (s)', `c${c.id}:time`, `${c.dir} time`, 'c-time num'),
        this.header('Answer', `c${c.id}:answer`, `${c.dir} answer`, 'c-answer'),
      );
    }
    this.head.replaceChildren(groups, cols);
    const template = `minmax(${W.instance}px, 1fr) ${W.family}px ${W.expected}px${` ${W.status}px ${W.time}px ${W.answer}px`.repeat(this.cols.length)}`;
    this.wrap.style.setProperty('--cols', template);
    this.wrap.style.setProperty('--min-width', `${W.instance + W.family + W.expected + (W.status + W.time + W.answer) * this.cols.length}px`);
    this.wrap.setAttribute('aria-colcount', String(3 + 3 * this.cols.length));
    this.updateSortMarks();
  }

  private updateSortMarks(): void {
    for (const th of this.head.querySelectorAll<HTMLElement>('[data-key]')) {
      const on = th.dataset.key === this.ui.sort.key;
      th.setAttribute('aria-sort', on ? (this.ui.sort.dir === 'asc' ? 'ascending' : 'descending') : 'none');
      const arrow = th.querySelector('.arrow');
      if (arrow) arrow.textContent = on ? (this.ui.sort.dir === 'asc' ? '▲' : '▼') : '';
    }
  }

  private computeOrder(): void {
    const d = this.data!;
    const n = d.instances.name.length;
    const q = this.ui.query.trim().toLowerCase();
    const fam = this.ui.family.startsWith('=') ? d.families.indexOf(this.ui.family.slice(1)) : this.ui.family === '!' ? -1 : undefined;
    const st = this.ui.status;
    const cols = this.cols.map((c) => c.col.status);
    const code = st.startsWith('s:') ? RUN_STATUSES.indexOf(st.slice(2) as (typeof RUN_STATUSES)[number]) : -2;
    const statusOk = (i: number): boolean => {
      if (st === 'all') return true;
      if (!cols.length) return false;
      let solved = 0;
      let ran = 0;
      let fatal = false;
      let has = false;
      for (const s of cols) {
        const v = s[i]!;
        if (v < 0) continue;
        ran++;
        if (v === SOLVED) solved++;
        if (FATAL.has(v)) fatal = true;
        if (v === code) has = true;
      }
      if (st === 'solved-all') return solved === cols.length;
      if (st === 'unsolved-any') return ran > solved;
      if (st === 'differs') return solved > 0 && ran > solved;
      if (st === 'fatal-any') return fatal;
      return code >= 0 ? has : true;
    };
    const rows: number[] = [];
    for (let i = 0; i < n; i++) {
      if (fam !== undefined && d.instances.family[i] !== fam) continue;
      if (q && !d.instances.name[i]!.toLowerCase().includes(q)) continue;
      if (!statusOk(i)) continue;
      rows.push(i);
    }
    const cmp = this.comparator();
    rows.sort((a, b) => cmp(a, b) || a - b);
    this.order = Int32Array.from(rows);
    this.shown.textContent = rows.length === n ? count(n, 'instance') : `${rows.length.toLocaleString()} of ${count(n, 'instance')}`;
    this.wrap.setAttribute('aria-rowcount', String(rows.length + 1));
    this.body.style.height = `${Math.max(1, rows.length) * ROW_H}px`;
  }

  private comparator(): (a: number, b: number) => number {
    const d = this.data!;
    const { key, dir } = this.ui.sort;
    const sign = dir === 'asc' ? 1 : -1;
    const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
    const names = d.instances.name;
    if (key === 'family') {
      const fam = (i: number) => (d.instances.family[i]! < 0 ? '\uffff' : d.families[d.instances.family[i]!]!);
      return (a, b) => sign * (collator.compare(fam(a), fam(b)) || collator.compare(names[a]!, names[b]!));
    }
    if (key === 'expected') return (a, b) => sign * ((d.instances.expected[a] || 9) - (d.instances.expected[b] || 9));
    const m = /^c(\d+):(status|time|answer)$/.exec(key);
    const col = m ? this.cols.find((c) => c.id === Number(m[1]))?.col : undefined;
    if (m && col) {
      // Runs that did not happen sort last either way.
      const last = (v: number, missing: boolean) => (missing ? Infinity : v);
      if (m[2] === 'time') return (a, b) => cmpMissing(last(col.time[a]!, col.status[a]! < 0), last(col.time[b]!, col.status[b]! < 0), sign);
      if (m[2] === 'status')
        return (a, b) => cmpMissing(last(col.status[a]!, col.status[a]! < 0), last(col.status[b]!, col.status[b]! < 0), sign) || col.time[a]! - col.time[b]!;
      return (a, b) => cmpMissing(last(col.answer[a]!, col.answer[a] === 0), last(col.answer[b]!, col.answer[b] === 0), sign);
    }
    return (a, b) => sign * collator.compare(names[a]!, names[b]!);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.renderRows(false);
    });
  }

  /** Brings the rendered rows in line with the view; `all` re-renders every row (new order or columns). */
  private renderRows(all: boolean): void {
    const d = this.data;
    if (!d || !this.wrap.isConnected) return;
    if (all) {
      this.rows.clear();
      this.body.replaceChildren();
    }
    const view = this.wrap.clientHeight - this.headH;
    const first = Math.max(0, Math.floor(this.wrap.scrollTop / ROW_H) - OVERSCAN);
    const last = Math.min(this.order.length, Math.ceil((this.wrap.scrollTop + view) / ROW_H) + OVERSCAN);
    for (const [r, el] of this.rows)
      if (r < first || r >= last) {
        el.remove();
        this.rows.delete(r);
      }
    const add = document.createDocumentFragment();
    for (let r = first; r < last; r++)
      if (!this.rows.has(r)) {
        const el = this.row(r, this.order[r]!);
        this.rows.set(r, el);
        add.append(el);
      }
    this.body.append(add);
    if (!this.order.length) {
      this.body.replaceChildren(
        h(
          'div',
          { class: 'empty muted' },
          this.cols.length || this.ui.status === 'all' ? 'No instance matches the filters.' : 'Compare candidates to filter by status.',
        ),
      );
      this.wrap.removeAttribute('aria-activedescendant');
    } else this.wrap.setAttribute('aria-activedescendant', this.cellId(this.active, this.activeCol));
  }

  private cellId(r: number, k: number): string {
    return `${this.rowId}-${r}-${this.cols.length ? k : 'i'}`;
  }

  private row(r: number, i: number): HTMLElement {
    const d = this.data!;
    const name = d.instances.name[i]!;
    const fam = d.instances.family[i]!;
    const exp = EXPECTED[d.instances.expected[i]!] ?? null;
    const on = r === this.active;
    const tr = h('div', { role: 'row', class: on ? 'trow active' : 'trow', 'data-r': String(r), 'aria-rowindex': String(r + 2), 'aria-selected': String(on) });
    tr.style.transform = `translateY(${r * ROW_H}px)`;
    // The hot path of scrolling and sorting: cells are built directly rather than through h().
    const cell = (cls: string, text: string, extra: Record<string, string> = {}) => {
      const c = document.createElement('div');
      c.className = cls;
      c.setAttribute('role', 'gridcell');
      for (const [k, v] of Object.entries(extra)) c.setAttribute(k, v);
      c.textContent = text;
      return c;
    };
    tr.append(
      cell('td c-instance', name, { title: name, id: `${this.rowId}-${r}-i` }),
      cell('td c-family muted', fam < 0 ? '' : d.families[fam]!),
      cell(`td c-expected${exp ? '' : ' muted'}`, exp ?? '–'),
    );
    this.cols.forEach((c, k) => {
      const s = c.col.status[i]!;
      const status = s < 0 ? null : RUN_STATUSES[s]!;
      const cur = on && k === this.activeCol ? ' cur' : '';
      tr.append(
        cell(`td first c-status st-${status ?? 'none'}${cur}`, status ? (STATUS_LABEL[status] ?? status) : 'not run', {
          'data-k': String(k),
          id: `${this.rowId}-${r}-${k}`,
          'aria-label': `${c.dir}: ${status ?? 'not run'}`,
        }),
        cell(`td num${status === 'solved' ? '' : ' muted'}`, status ? secs(c.col.time[i]!) : '', {
          'data-k': String(k),
          ...(status
            ? { title: `wall ${secs(c.col.time[i]!)}, CPU ${c.col.cpu[i] === null || c.col.cpu[i] === undefined ? 'not measured' : secs(c.col.cpu[i]!)}` }
            : {}),
        }),
        cell(...answerCell(c.col, i, k)),
      );
    });
    return tr;
  }

  /** Redraws the rows whose active state changed. */
  private moveActive(r: number, k: number): void {
    const before = this.active;
    this.active = r;
    this.activeCol = k;
    for (const x of new Set([before, r])) {
      const old = this.rows.get(x);
      if (!old) continue;
      const el = this.row(x, this.order[x]!);
      old.replaceWith(el);
      this.rows.set(x, el);
    }
    this.wrap.setAttribute('aria-activedescendant', this.cellId(r, k));
  }

  private onClick(e: MouseEvent): void {
    const tr = (e.target as Element).closest('[data-r]');
    if (!(tr instanceof HTMLElement)) return;
    const r = Number(tr.dataset.r);
    const td = (e.target as Element).closest('[data-k]');
    const k = td instanceof HTMLElement ? Number(td.dataset.k) : this.firstRun(this.order[r]!);
    this.wrap.focus({ preventScroll: true });
    this.moveActive(r, k >= 0 ? k : this.activeCol);
    this.open(r, k);
  }

  /** The first compared candidate that ran this instance (-1: none). */
  private firstRun(i: number): number {
    return this.cols.findIndex((c) => c.col.status[i]! >= 0);
  }

  private open(r: number, k: number): void {
    const i = this.order[r];
    const c = this.cols[k];
    if (i === undefined || !c || c.col.status[i]! < 0) return;
    this.host.openLog(c.candidate, this.data!.instances.name[i]!);
  }

  private onKey(e: KeyboardEvent): void {
    const n = this.order.length;
    if (!n) return;
    const page = Math.max(1, Math.floor((this.wrap.clientHeight - this.headH) / ROW_H) - 1);
    const lastCol = Math.max(0, this.cols.length - 1);
    const moves: Record<string, () => [number, number]> = {
      ArrowDown: () => [Math.min(n - 1, this.active + 1), this.activeCol],
      ArrowUp: () => [Math.max(0, this.active - 1), this.activeCol],
      PageDown: () => [Math.min(n - 1, this.active + page), this.activeCol],
      PageUp: () => [Math.max(0, this.active - page), this.activeCol],
      Home: () => [0, this.activeCol],
      End: () => [n - 1, this.activeCol],
      ArrowRight: () => [this.active, Math.min(lastCol, this.activeCol + 1)],
      ArrowLeft: () => [this.active, Math.max(0, this.activeCol - 1)],
    };
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      const i = this.order[this.active]!;
      this.open(this.active, (this.cols[this.activeCol]?.col.status[i] ?? -1) >= 0 ? this.activeCol : this.firstRun(i));
      return;
    }
    const f = moves[e.key];
    if (!f) return;
    e.preventDefault();
    const [r, k] = f();
    this.reveal(r, k);
    this.renderRows(false);
    this.moveActive(r, k);
  }

  /** Scrolls a cell into view (below the sticky header, right of the sticky instance column). */
  private reveal(r: number, k: number): void {
    const top = r * ROW_H;
    const view = this.wrap.clientHeight - this.headH;
    if (top < this.wrap.scrollTop) this.wrap.scrollTop = top;
    else if (top + ROW_H > this.wrap.scrollTop + view) this.wrap.scrollTop = top + ROW_H - view;
    if (!this.cols.length) return;
    const instW = this.head.querySelector<HTMLElement>('.c-instance')?.offsetWidth ?? W.instance;
    const left = instW + W.family + W.expected + k * (W.status + W.time + W.answer);
    const right = left + W.status + W.time + W.answer;
    if (left - instW < this.wrap.scrollLeft) this.wrap.scrollLeft = Math.max(0, left - instW);
    else if (right > this.wrap.scrollLeft + this.wrap.clientWidth) this.wrap.scrollLeft = right - this.wrap.clientWidth;
  }
}

function cmpMissing(a: number, b: number, sign: number): number {
  if (a === b) return 0;
  if (a === Infinity) return 1;
  if (b === Infinity) return -1;
  return sign * (a - b);
}
