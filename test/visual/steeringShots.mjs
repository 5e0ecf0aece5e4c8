// Renders the Steering webview (dist/media/steering.js, built) in headless Chromium inside a harness
// that mimics a VS Code sidebar webview: the same strict CSP as src/extension/webviews/html.ts, a stub
// acquireVsCodeApi, theme variables for Light/Dark Modern, ~300 px wide. Posts a few states and
// writes screenshots to .test-artifacts/steering-<state>-<theme>.png. Fails on page errors or CSP
// violations. Usage: node esbuild.mjs && node test/visual/steeringShots.mjs
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const out = path.join(root, '.test-artifacts');
fs.mkdirSync(out, { recursive: true });
const ORIGIN = 'https://webview.test';

const THEMES = {
  dark: {
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    'sideBar-background': '#181818',
    'editor-background': '#1f1f1f',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#026ec1',
    'button-border': 'rgba(255, 255, 255, 0.07)',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'button-secondaryHoverBackground': '#3c3c3c',
    focusBorder: '#0078d4',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'widget-border': '#313131',
    'panel-border': '#2b2b2b',
    'input-background': '#313131',
    'input-foreground': '#cccccc',
    'input-border': '#3c3c3c',
    'input-placeholderForeground': '#989898',
    'dropdown-background': '#313131',
    'dropdown-border': '#3c3c3c',
    'dropdown-foreground': '#cccccc',
    'dropdown-listBackground': '#1f1f1f',
    'textLink-foreground': '#4daafc',
    'textLink-activeForeground': '#4daafc',
    'testing-iconPassed': '#73c991',
    'testing-iconFailed': '#f14c4c',
    errorForeground: '#f85149',
    'editorWarning-foreground': '#cca700',
    'inputValidation-warningBackground': '#352a05',
    'inputValidation-warningBorder': '#b89500',
    'progressBar-background': '#0078d4',
    'textCodeBlock-background': '#2b2b2b',
    'textPreformat-background': '#3c3c3c',
    'textPreformat-foreground': '#d0d0d0',
    'textBlockQuote-background': '#2b2b2b',
    'charts-blue': '#3794ff',
    'charts-purple': '#b180d7',
    'charts-green': '#89d185',
    'widget-shadow': 'rgba(0, 0, 0, 0.36)',
    'settings-textInputBackground': '#313131',
    'settings-textInputBorder': '#3c3c3c',
    'settings-textInputForeground': '#cccccc',
    'settings-dropdownBackground': '#313131',
    'settings-dropdownBorder': '#3c3c3c',
    'settings-dropdownForeground': '#cccccc',
    'settings-dropdownListBorder': '#454545',
    'list-focusOutline': '#0078d4',
    'list-activeSelectionBackground': '#04395e',
    'list-activeSelectionForeground': '#ffffff',
    'list-hoverBackground': '#2a2d2e',
    'scrollbarSlider-background': 'rgba(121, 121, 121, 0.4)',
  },
  light: {
    foreground: '#3b3b3b',
    descriptionForeground: '#717171',
    'sideBar-background': '#f8f8f8',
    'editor-background': '#ffffff',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-hoverBackground': '#0258a8',
    'button-border': 'rgba(0, 0, 0, 0.1)',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'button-secondaryHoverBackground': '#cccccc',
    focusBorder: '#005fb8',
    'badge-background': '#cccccc',
    'badge-foreground': '#3b3b3b',
    'widget-border': '#e5e5e5',
    'panel-border': '#e5e5e5',
    'input-background': '#ffffff',
    'input-foreground': '#3b3b3b',
    'input-border': '#cecece',
    'input-placeholderForeground': '#767676',
    'dropdown-background': '#ffffff',
    'dropdown-border': '#cecece',
    'dropdown-foreground': '#3b3b3b',
    'dropdown-listBackground': '#ffffff',
    'textLink-foreground': '#005fb8',
    'textLink-activeForeground': '#005fb8',
    'testing-iconPassed': '#388a34',
    'testing-iconFailed': '#f14c4c',
    errorForeground: '#f85149',
    'editorWarning-foreground': '#bf8803',
    'inputValidation-warningBackground': '#f6f5d2',
    'inputValidation-warningBorder': '#b89500',
    'progressBar-background': '#005fb8',
    'textCodeBlock-background': '#f3f3f3',
    'textPreformat-background': 'rgba(0, 0, 0, 0.12)',
    'textPreformat-foreground': '#3b3b3b',
    'textBlockQuote-background': '#f3f3f3',
    'charts-blue': '#1a85ff',
    'charts-purple': '#652d90',
    'charts-green': '#388a34',
    'widget-shadow': 'rgba(0, 0, 0, 0.16)',
    'settings-textInputBackground': '#ffffff',
    'settings-textInputBorder': '#cecece',
    'settings-textInputForeground': '#3b3b3b',
    'settings-dropdownBackground': '#ffffff',
    'settings-dropdownBorder': '#cecece',
    'settings-dropdownForeground': '#3b3b3b',
    'settings-dropdownListBorder': '#c8c8c8',
    'list-focusOutline': '#005fb8',
    'list-activeSelectionBackground': '#e8e8e8',
    'list-activeSelectionForeground': '#000000',
    'list-hoverBackground': '#f2f2f2',
    'scrollbarSlider-background': 'rgba(100, 100, 100, 0.4)',
  },
};
const FONTS = {
  'font-family': 'system-ui, "Segoe UI", Ubuntu, "Droid Sans", sans-serif',
  'font-size': '13px',
  'font-weight': 'normal',
  'editor-font-family': '"DejaVu Sans Mono", Menlo, monospace',
};

const HYPOTHESIS = `# SATLUTION_3: Lazy reimplication in chronological backtracking

## Change
In \`src/backtrack.c\`, keep out-of-order literals on the trail after a chronological backtrack and re-propagate them lazily from \`propagate()\`.

## Rationale
Most conflicts on the perf set backtrack one level; re-assigning the whole level costs ~9% of propagation time.

## Expected effect
- SAT: faster on large industrial instances
- UNSAT: about the same
- PAR-2: 3-5% lower

## Risks
A missed reimplication would leave an unsatisfied clause: the model and DRAT checks catch it.

## Tasks
1. Add a \`reimply\` queue in \`struct solver\`.
2. Push out-of-order literals instead of unassigning them.
3. Build, run smoke, finish.
`;

const base = { pausing: false, agent: 'llm', approval: 'semi', strategy: 'sift', screens: true, outcome: null, pending: null, transcripts: true };
const planStream = [
  { kind: 'step', cycle: 3, step: 'plan', candidate: 'SATLUTION_3' },
  { kind: 'text', role: 'planner', text: 'The metrics show PAR-2 dominated by large SAT instances. Let me look at how backtracking re-assigns literals.' },
  { kind: 'tool', role: 'planner', name: 'search', ok: true, summary: 'src/backtrack.c:41: void backtrack (kissat *solver, unsigned new_level)' },
  { kind: 'tool', role: 'planner', name: 'read_file', ok: true, summary: '    1  /* backtrack.c: chronological and non-chronological backtracking */' },
  { kind: 'tool', role: 'planner', name: 'read_file', ok: false, summary: 'src/trail.h does not exist; list_files shows the files' },
  { kind: 'text', role: 'planner', text: 'Out-of-order literals are unassigned and re-propagated eagerly. A lazy queue avoids most of that work.' },
  { kind: 'tool', role: 'planner', name: 'submit_plan', ok: true, summary: 'plan accepted: Lazy reimplication in chronological backtracking' },
  { kind: 'step', cycle: 3, step: 'approve', candidate: 'SATLUTION_3' },
];
const codeItems = [
  { kind: 'step', cycle: 3, step: 'code', candidate: 'SATLUTION_3' },
  { kind: 'text', role: 'coder', text: 'I will add the queue to the solver struct first, then change backtrack().' },
  { kind: 'tool', role: 'coder', name: 'read_file', ok: true, summary: '   38  struct kissat {' },
  { kind: 'tool', role: 'coder', name: 'edit_file', ok: true, summary: 'edited src/internal.h (1 replacement)' },
  { kind: 'tool', role: 'coder', name: 'edit_file', ok: true, summary: 'edited src/backtrack.c (1 replacement)' },
  {
    kind: 'tool',
    role: 'coder',
    name: 'build',
    ok: false,
    summary: "build failed: src/backtrack.c:77: error: 'reimply' undeclared (first use in this function)",
  },
  { kind: 'text', role: 'coder', text: 'The queue needs a declaration in internal.h; adding it.' },
  { kind: 'tool', role: 'coder', name: 'edit_file', ok: true, summary: 'edited src/internal.h (1 replacement)' },
  { kind: 'tool', role: 'coder', name: 'build', ok: true, summary: 'build ok' },
  { kind: 'tool', role: 'coder', name: 'smoke', ok: true, summary: 'smoke: 12/12 answers correct' },
  { kind: 'text', role: 'coder', text: 'Build and smoke pass. Writing the changelog' },
];

const STATES = {
  approval: {
    snapshot: {
      type: 'snapshot',
      seq: 1,
      notes: 'Prefer changes to propagation and backtracking.\nDo not touch the proof output.\n',
      stream: planStream,
      state: {
        ...base,
        phase: 'awaiting-approval',
        cycle: 3,
        step: 'approve',
        candidate: 'SATLUTION_3',
        title: 'Lazy reimplication in chronological backtracking',
        pending: { cycle: 3, candidate: 'SATLUTION_3', title: 'Lazy reimplication in chronological backtracking', hypothesis: HYPOTHESIS, where: 'view' },
      },
    },
    then: [],
  },
  running: {
    snapshot: {
      type: 'snapshot',
      seq: 1,
      notes: 'Prefer changes to propagation and backtracking.\n',
      stream: planStream,
      state: { ...base, phase: 'running', cycle: 3, step: 'code', candidate: 'SATLUTION_3', title: 'Lazy reimplication in chronological backtracking' },
    },
    // Streamed in after the snapshot, as batches, the last text in pieces.
    then: [
      { type: 'stream', seq: 2, items: codeItems },
      { type: 'stream', seq: 3, items: [{ kind: 'text', role: 'coder', text: ' entry and finishing.' }] },
    ],
  },
  paused: {
    snapshot: {
      type: 'snapshot',
      seq: 0,
      notes: '',
      stream: [],
      state: {
        ...base,
        agent: null,
        phase: 'paused',
        cycle: 4,
        step: 'evaluate',
        candidate: 'SATLUTION_4',
        title: 'tune restartint 50 -> 200',
        approval: 'auto',
        transcripts: false,
      },
    },
    then: [{ type: 'notice', level: 'info', text: 'approval: auto written to satlution.yaml.' }],
  },
};

const themeVars = (theme) => Object.fromEntries(Object.entries({ ...THEMES[theme], ...FONTS }).map(([k, v]) => [`--vscode-${k}`, v]));

const html = (theme) => `<!DOCTYPE html>
<html lang="en" style="${''}">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${ORIGIN}; img-src ${ORIGIN}; font-src ${ORIGIN}; script-src 'nonce-abc123'">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${ORIGIN}/media/steering.css">
  <title>Steering</title>
</head>
<body class="vscode-${theme}">
  <main id="root" aria-live="polite"></main>
  <script nonce="abc123" src="${ORIGIN}/dist/media/steering.js"></script>
</body>
</html>`;

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium' });
const problems = [];
try {
  for (const theme of ['light', 'dark']) {
    for (const [name, s] of Object.entries(STATES)) {
      const page = await browser.newPage({ viewport: { width: 300, height: 1000 }, deviceScaleFactor: 1 });
      page.on('pageerror', (e) => problems.push(`${name}/${theme}: page error: ${e.message}`));
      page.on('console', (m) => (m.type() === 'error' || /Content Security Policy/.test(m.text())) && problems.push(`${name}/${theme}: console: ${m.text()}`));
      await page.route(`${ORIGIN}/**`, (route) => {
        const rel = new URL(route.request().url()).pathname.slice(1);
        if (rel === 'index.html') return route.fulfill({ contentType: 'text/html', body: html(theme) });
        const file = path.join(root, rel);
        if (!file.startsWith(root) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: '' });
        return route.fulfill({ contentType: rel.endsWith('.css') ? 'text/css' : 'text/javascript', body: fs.readFileSync(file) });
      });
      const vars = themeVars(theme);
      // As VS Code does: theme variables on <html>, and the API stub (outside the page's CSP).
      await page.addInitScript((vars) => {
        window.__posted = [];
        window.__state = undefined;
        window.acquireVsCodeApi = () => ({
          postMessage: (m) => window.__posted.push(m),
          getState: () => window.__state,
          setState: (s) => (window.__state = s),
        });
        document.addEventListener('DOMContentLoaded', () => {
          for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
          document.documentElement.style.background = vars['--vscode-sideBar-background'];
        });
      }, vars);
      await page.goto(`${ORIGIN}/index.html`);
      await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
      for (const m of [s.snapshot, ...s.then]) await page.evaluate((m) => window.postMessage(m, '*'), m);
      await page.waitForTimeout(400);
      // Checks that fail the run: the elements rendered (styled shadow DOM), nothing from the data as markup.
      const check = await page.evaluate(() => {
        const b = document.querySelector('vscode-button');
        const base = b?.shadowRoot?.querySelector('[part="base"], .wrapper, button, div');
        return {
          button: !!b?.shadowRoot && getComputedStyle(b).display !== 'inline',
          buttonBg: base ? getComputedStyle(base).backgroundColor : '',
          textarea: !!document.querySelector('vscode-textarea')?.shadowRoot?.querySelector('textarea'),
          select: !!document.querySelector('vscode-single-select')?.shadowRoot,
          scripts: document.querySelectorAll('script').length,
          posted: window.__posted.map((m) => m.type),
        };
      });
      if (!check.button || !check.textarea || !check.select) problems.push(`${name}/${theme}: vscode-elements did not render: ${JSON.stringify(check)}`);
      if (check.scripts !== 1) problems.push(`${name}/${theme}: unexpected scripts in the page`);
      const file = path.join(out, `steering-${name}-${theme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`${file}  ${JSON.stringify(check)}`);
      await page.close();
    }
  }
  // Behaviour in the page: sticky log (follows unless scrolled up), answers posted, replayed batches ignored.
  const page = await browser.newPage({ viewport: { width: 300, height: 900 } });
  await page.route(`${ORIGIN}/**`, (route) => {
    const rel = new URL(route.request().url()).pathname.slice(1);
    if (rel === 'index.html') return route.fulfill({ contentType: 'text/html', body: html('dark') });
    return route.fulfill({ contentType: rel.endsWith('.css') ? 'text/css' : 'text/javascript', body: fs.readFileSync(path.join(root, rel)) });
  });
  await page.addInitScript((vars) => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => {} });
    document.addEventListener('DOMContentLoaded', () => {
      for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
      document.documentElement.style.background = vars['--vscode-sideBar-background'];
    });
  }, themeVars('dark'));
  page.on('pageerror', (e) => problems.push(`behaviour: page error: ${e.message}`));
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  await page.evaluate((m) => window.postMessage(m, '*'), STATES.approval.snapshot);
  await page.waitForTimeout(100);
  const approve = page.locator('vscode-button', { hasText: 'Approve' });
  await approve.focus();
  await page.keyboard.press('Enter');
  await page.locator('vscode-button', { hasText: 'Reject…' }).click();
  await page.keyboard.type('Too risky for the proof output');
  await page.locator('.plan').screenshot({ path: path.join(out, 'steering-reject-dark.png') });
  await page.locator('vscode-button', { hasText: 'Reject Plan' }).click();
  const many = Array.from({ length: 60 }, (_, i) => ({ kind: 'tool', role: 'coder', name: 'read_file', ok: true, summary: `line ${i}` }));
  await page.evaluate((items) => window.postMessage({ type: 'stream', seq: 2, items }, '*'), many);
  await page.waitForTimeout(50);
  const atEnd = await page.evaluate(() => {
    const l = document.querySelector('.log');
    return l.scrollHeight - l.scrollTop - l.clientHeight < 24;
  });
  await page.evaluate(() => (document.querySelector('.log').scrollTop = 0));
  await page.evaluate((items) => window.postMessage({ type: 'stream', seq: 3, items }, '*'), many.slice(0, 5));
  await page.waitForTimeout(50);
  const stayed = await page.evaluate(() => ({ top: document.querySelector('.log').scrollTop, jump: !document.querySelector('.jump').hidden }));
  await page.evaluate(() => window.postMessage({ type: 'stream', seq: 2, items: [{ kind: 'log', role: null, text: 'replayed' }] }, '*'));
  await page.evaluate(() => window.postMessage({ type: 'state', state: { nope: 1 } }, '*'));
  await page.waitForTimeout(50);
  const rows = await page.evaluate(() => document.querySelectorAll('.log > .entry').length);
  const posted = await page.evaluate(() => window.__posted);
  if (!atEnd) problems.push('behaviour: the log did not follow new rows while at the bottom');
  if (stayed.top !== 0 || !stayed.jump) problems.push(`behaviour: the log moved although scrolled up: ${JSON.stringify(stayed)}`);
  if (rows !== planStream.length + 65) problems.push(`behaviour: ${rows} rows (a replayed batch was applied?)`);
  if (!posted.some((m) => m.type === 'approve' && m.candidate === 'SATLUTION_3')) problems.push(`behaviour: Enter on Approve posted ${JSON.stringify(posted)}`);
  if (!posted.some((m) => m.type === 'reject' && m.reason === 'Too risky for the proof output'))
    problems.push(`behaviour: the reason did not reach the reject message: ${JSON.stringify(posted)}`);
  await page.evaluate((m) => window.postMessage(m, '*'), { type: 'stream', seq: 9, items: [{ kind: 'log', role: null, text: 'gap' }] });
  await page.waitForTimeout(50);
  if ((await page.evaluate(() => window.__posted.filter((m) => m.type === 'ready').length)) !== 2)
    problems.push('behaviour: a gap in the batches did not ask for a snapshot');
  // A reload: the saved state shows at once, inert until the host answers; an unsaved notes draft survives.
  const saved = { state: STATES.running.snapshot.state, stream: planStream, notes: 'draft typed before the reload', notesSaved: 'old notes\n' };
  const again = await browser.newPage({ viewport: { width: 300, height: 900 } });
  await again.route(`${ORIGIN}/**`, (route) => {
    const rel = new URL(route.request().url()).pathname.slice(1);
    if (rel === 'index.html') return route.fulfill({ contentType: 'text/html', body: html('dark') });
    return route.fulfill({ contentType: rel.endsWith('.css') ? 'text/css' : 'text/javascript', body: fs.readFileSync(path.join(root, rel)) });
  });
  await again.addInitScript((saved) => {
    window.__posted = [];
    window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => saved, setState: () => {} });
  }, saved);
  again.on('pageerror', (e) => problems.push(`reload: page error: ${e.message}`));
  await again.goto(`${ORIGIN}/index.html`);
  await again.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  const before = await again.evaluate(() => ({
    pause: document.querySelectorAll('.controls vscode-button')[1].disabled,
    rows: document.querySelectorAll('.log > .entry').length,
    notes: document.querySelector('vscode-textarea').value,
  }));
  await again.evaluate((m) => window.postMessage(m, '*'), { ...STATES.running.snapshot, seq: 0, stream: [], notes: 'old notes\n' });
  await again.waitForTimeout(100);
  const afterReload = await again.evaluate(() => ({
    pause: document.querySelectorAll('.controls vscode-button')[1].disabled,
    rows: document.querySelectorAll('.log > .entry').length,
    notes: document.querySelector('vscode-textarea').value,
    status: document.querySelector('#s-notes [role=status]').textContent,
  }));
  if (!before.pause || before.rows !== planStream.length || before.notes !== saved.notes) problems.push(`reload: restored state ${JSON.stringify(before)}`);
  if (afterReload.pause || afterReload.rows !== planStream.length + 1 || afterReload.notes !== saved.notes || afterReload.status !== 'Unsaved changes')
    problems.push(`reload: after the snapshot ${JSON.stringify(afterReload)}`);
  console.log(`reload: before=${JSON.stringify(before)} after=${JSON.stringify(afterReload)}`);
  console.log(`behaviour: followed=${atEnd} stayedWhenScrolledUp=${stayed.top === 0} rows=${rows} posted=${posted.map((m) => m.type).join(',')}`);
} finally {
  await browser.close();
}
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
