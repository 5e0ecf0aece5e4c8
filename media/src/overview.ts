// The Overview webview: renders what the extension sends (validated against the shared protocol)
// with plain DOM (no innerHTML of data), keeps the last state across hide/reload, and says `ready`.
import './shared/jitless'; // first: before zod parses anything
import { button, h, linkButton, type Child } from './shared/dom';
import { vscodeApi } from './shared/vscodeApi';
import { HostMessage, type Overview, type OverviewAction, type ViewMessage } from '../../src/shared/protocol';

const vscode = vscodeApi<ViewMessage>();
const root = document.getElementById('root')!;

const act = (action: OverviewAction) => () => vscode.postMessage({ type: 'action', action });

const STATUS_LABEL: Record<string, string> = {
  seed: 'seed',
  planning: 'planning',
  coding: 'coding',
  evaluating: 'evaluating',
  failed: 'failed',
  verified: 'verified',
  evaluated: 'evaluated',
  discarded: 'discarded',
  unknown: 'no record',
};

function ago(iso: string): string {
  const s = (Date.parse(iso) - Date.now()) / 1000;
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, secs] of [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ] as const)
    if (Math.abs(s) >= secs) return rtf.format(Math.round(s / secs), unit);
  return 'just now';
}

function section(title: string, ...body: Child[]): HTMLElement {
  const id = `h-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...body);
}

/** A candidate's gates that passed with nothing checked, each a red line beside its status. */
function warningLines(o: Extract<Overview, { state: 'workspace' }>, dir: string): HTMLElement[] {
  return (o.warnings[dir] ?? []).map((w) => h('p', { class: 'warning', role: 'note' }, `⚠ Warning: ${w}`));
}

/** The green check before a passing line: a graphic (the words say it), so hidden from screen readers. */
const okIcon = () => h('span', { class: 'icon', 'aria-hidden': 'true' }, '✓ ');

function render(o: Overview): void {
  root.replaceChildren();
  if (o.state === 'none') {
    root.append(h('p', { class: 'muted' }, 'No SATLUTION workspace in this window.'));
    return;
  }
  const champion = o.champion
    ? h(
        'div',
        { class: 'champion' },
        linkButton(`★ ${o.champion.dir}`, () => vscode.postMessage({ type: 'openCandidate', dir: o.champion!.dir }), {
          aria: `Champion ${o.champion.dir}: reveal its folder`,
        }),
        h('span', { class: 'muted' }, o.champion.seed ? `baseline from seed ${o.champion.seed}` : (STATUS_LABEL[o.champion.status] ?? '')),
        ...warningLines(o, o.champion.dir),
      )
    : h('p', { class: 'muted' }, 'No champion yet.');
  const chips = h(
    'p',
    { class: 'chips' },
    h('span', { class: 'chip total' }, `${o.total} candidate${o.total === 1 ? '' : 's'}`),
    ...Object.entries(o.counts).map(([st, n]) => h('span', { class: `chip s-${st}` }, `${n} ${STATUS_LABEL[st] ?? st}`)),
  );
  const latest = h(
    'ul',
    { class: 'latest' },
    ...o.latest.map((c) =>
      h(
        'li',
        {},
        linkButton(c.dir, () => vscode.postMessage({ type: 'openCandidate', dir: c.dir })),
        h('span', { class: `status s-${c.status}` }, c.missing ? 'directory missing' : (STATUS_LABEL[c.status] ?? c.status)),
        // Under the name: where it came from and when (one short line that fits a narrow sidebar).
        h('span', { class: 'muted sub' }, `${c.parent ? `from ${c.parent} · ` : ''}${ago(c.updated)}`),
        ...warningLines(o, c.dir),
      ),
    ),
  );
  const config = o.config.ok
    ? h('p', { class: 'ok' }, okIcon(), 'satlution.yaml is valid')
    : h(
        'div',
        {},
        h('p', { class: 'warn' }, `⚠ ${o.config.problems} problem${o.config.problems > 1 ? 's' : ''} in satlution.yaml`),
        o.config.first && h('p', { class: 'mono' }, o.config.first),
      );
  const off = o.unisolated;
  const isolation =
    off.workspace || off.runners.length
      ? h(
          'p',
          {
            class: 'warn',
            title:
              'Evolved builds and solvers run with your full authority: they can read the answers and write outside their directory. Results are marked "measured without isolation".',
          },
          `⚠ Measured without isolation (sandbox: off)${off.workspace ? '' : ` on ${off.runners.join(', ')}`}`,
        )
      : h('p', { class: 'ok' }, okIcon(), 'Evolved code runs sandboxed');
  // The promotion rule in force, short; the full sentence (where the band was measured) is its tooltip.
  const rule = o.rule && h('p', { class: 'rule', title: o.rule.full }, o.rule.short);
  const benches = h(
    'ul',
    { class: 'benches' },
    ...o.benchmarks.map((b) =>
      h(
        'li',
        {},
        h('span', { class: 'name' }, b.name),
        !b.exists
          ? h('span', { class: 'warn' }, `missing directory ${b.dir}`)
          : b.instances === 0
            ? h('span', { class: 'warn' }, 'empty')
            : h('span', {}, `${b.instances} instance${b.instances > 1 ? 's' : ''}`, !b.hasMeta && h('span', { class: 'muted' }, ' · no meta.csv')),
      ),
    ),
  );
  const seeds = h(
    'ul',
    { class: 'seeds' },
    ...o.seeds.map((s) => h('li', { title: s.source }, h('span', { class: 'name' }, s.name), h('span', { class: 'muted' }, `${s.files} files`))),
  );
  root.append(
    section('Champion', champion),
    section(
      'Candidates',
      chips,
      latest,
      o.total > 1 &&
        h(
          'p',
          { class: 'actions' },
          button('Open Dashboard', act('openDashboard'), {
            class: 'secondary',
            'aria-label': 'Open the dashboard: PAR-2 per cycle, cactus plots, per-instance results',
          }),
        ),
    ),
    section(
      'Configuration',
      config,
      isolation,
      rule,
      h(
        'p',
        { class: 'actions' },
        button('Open satlution.yaml', act('openConfig')),
        button('Rules', act('openRules'), { class: 'secondary', 'aria-label': 'Reveal the rulebase in the Explorer' }),
      ),
    ),
    section(
      'Benchmarks',
      benches,
      o.benchmarks.some((b) => b.exists && b.instances === 0) &&
        h(
          'p',
          { class: 'muted hint' },
          'Add .cnf, .cnf.gz or .cnf.xz files to the empty sets, with a meta.csv (instance,family,expected) for known answers, or start with samples whose answers are known by construction.',
        ),
      h(
        'p',
        { class: 'actions' },
        o.benchmarks.some((b) => b.instances === 0) &&
          button('Add Sample Benchmarks', act('addSamples'), { 'aria-label': 'Add small sample sets with known answers to the empty benchmark sets' }),
        button('Reveal benchmarks', act('revealBenchmarks'), { class: 'secondary' }),
      ),
    ),
    section('Seeds', seeds),
  );
}

window.addEventListener('message', (e: MessageEvent<unknown>) => {
  const m = HostMessage.safeParse(e.data);
  if (!m.success) return; // not ours, or malformed: never render it
  if (m.data.type === 'overview') {
    vscode.setState(m.data.overview);
    render(m.data.overview);
  }
});

// Show the last state at once after a reload or re-show, then ask for the current one.
const saved = HostMessage.options[0].shape.overview.safeParse(vscode.getState());
if (saved.success) render(saved.data);
vscode.postMessage({ type: 'ready' });
