// Screenshots of the SATLUTION sidebar (Overview, Steering, Cycles, Runners) at a 300 px wide sidebar
// in Light+, Dark+ and High Contrast, in a real VS Code (code-server with the packaged extension, as
// the e2e tests run it), plus the Dashboard; and the contrast of every piece of text in the webviews
// (Overview, Steering, Dashboard), measured from the computed styles in each webview frame against
// the colour it is drawn on. Prints the lowest ratios per view and theme; exits 1 when a text is
// below 4.5:1 (WCAG AA; 3:1 for a lone aria-hidden glyph). Usage (after `node esbuild.mjs && npx tsc -p tsconfig.test.json`):
//   node test/visual/sidebarShots.mjs WORKSPACE OUT_DIR [light,dark,hc]
// WORKSPACE: an evolved workspace (e.g. one made by prepareEvolvedWorkspace in test/e2e/cycle.e2e.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { vscodeTestEnv } from '../../scripts/vscode-test-env.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const require = createRequire(import.meta.url);
const [workspaceArg, outArg, themesArg] = process.argv.slice(2);
if (!workspaceArg || !outArg) {
  console.error('usage: node test/visual/sidebarShots.mjs WORKSPACE OUT_DIR [light,dark,hc]');
  process.exit(2);
}
const workspace = path.resolve(workspaceArg);
const out = path.resolve(outArg);
fs.mkdirSync(out, { recursive: true });
const THEMES = { light: 'Default Light+', dark: 'Default Dark+', hc: 'Default High Contrast' };
const chosen = (themesArg ?? 'light,dark,hc').split(',');
const SIDEBAR_WIDTH = 300;
const MIN_RATIO = 4.5;
/** A lone glyph hidden from screen readers (✓, ✗) is a graphic, not text: WCAG asks 3:1 of it. */
const MIN_ICON_RATIO = 3;

// The compiled harness (SATLUTION_OUT: another tsc output directory, when out/ is being rebuilt).
const compiled = process.env.SATLUTION_OUT ?? path.join(root, 'out');
const { launchBrowser, newWorkbenchPage, startCodeServer } = require(path.join(compiled, 'test', 'runner', 'codeServer.js'));
const { openSidebar, runCommand, settled, waitForWorkbench, webview } = require(path.join(compiled, 'test', 'e2e', 'workbench.js'));

/**
 * Runs inside a webview frame: every element with text of its own (shadow roots included), its text
 * colour blended over the colours under it down to the view's background (`base`, a CSS colour;
 * `_body` is the element Playwright evaluates on).
 */
function contrastInFrame(_body, base) {
  const probe = document.createElement('i');
  document.body.append(probe);
  const rgba = (css) => {
    probe.style.color = '';
    probe.style.color = css;
    const c = getComputedStyle(probe).color;
    // rgb()/rgba() for plain colours; color(srgb r g b / a), channels 0..1, for color-mix() results.
    const srgb = /^color\(srgb ([^)]+)\)/.exec(c);
    const m = srgb ?? /rgba?\(([^)]+)\)/.exec(c);
    const p = m
      ? m[1]
          .split(/[\s,/]+/)
          .filter(Boolean)
          .map(Number)
      : [0, 0, 0];
    const k = srgb ? 255 : 1;
    return [p[0] * k, p[1] * k, p[2] * k, p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((i) => top[i] * top[3] + bottom[i] * (1 - top[3])).concat(1);
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [l1, l2] = [lum(a), lum(b)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const parentOf = (el) => el.parentElement ?? (el.getRootNode() instanceof ShadowRoot ? el.getRootNode().host : null);
  const baseColor = rgba(base);
  const rows = new Map();
  const visit = (el) => {
    const own = [...el.childNodes]
      .filter((n) => n.nodeType === 3 && n.textContent.trim())
      .map((n) => n.textContent.trim())
      .join(' ');
    const r = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    // Disabled controls are exempt (WCAG 1.4.3); so is text that is not drawn.
    const disabled = el.closest('[disabled], [aria-disabled="true"]') !== null;
    if (own && !disabled && r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && !['SCRIPT', 'STYLE', 'TITLE'].includes(el.tagName)) {
      const chain = [];
      let opacity = 1;
      for (let a = el; a; a = parentOf(a)) {
        chain.push(getComputedStyle(a).backgroundColor);
        opacity *= Number(getComputedStyle(a).opacity);
      }
      let bg = baseColor;
      for (const c of chain.reverse()) {
        const col = rgba(c);
        if (col[3] > 0) bg = over(col, bg);
      }
      const fg = rgba(cs.color);
      fg[3] *= opacity;
      const text = over(fg, bg);
      const sel = `${el.tagName.toLowerCase()}${[...el.classList].map((c) => `.${c}`).join('')}`;
      const key = `${sel}|${text.join()}|${bg.join()}`;
      const icon = [...own].length === 1 && el.closest('[aria-hidden="true"]') !== null;
      if (!rows.has(key)) rows.set(key, { sel, text: own.slice(0, 40), fg: cs.color, icon, ratio: Math.round(ratio(text, bg) * 100) / 100 });
    }
    for (const c of el.children) visit(c);
    if (el.shadowRoot) for (const c of el.shadowRoot.children) visit(c);
  };
  visit(document.body);
  probe.remove();
  return [...rows.values()].sort((a, b) => a.ratio - b.ratio);
}

/** Drags the sidebar's edge so the sidebar is `width` px wide. */
async function sidebarWidth(page, width) {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box || Math.abs(box.width - width) < 2) return;
  const sash = page.locator('.monaco-sash.vertical').filter({ visible: true });
  const x = box.x + box.width;
  const y = box.y + box.height / 2;
  for (const s of await sash.all()) {
    const b = await s.boundingBox();
    if (b && Math.abs(b.x + b.width / 2 - x) < 6) {
      await page.mouse.move(b.x + b.width / 2, y);
      await page.mouse.down();
      await page.mouse.move(box.x + width, y, { steps: 8 });
      await page.mouse.up();
      return;
    }
  }
  throw new Error('the sidebar sash was not found');
}

/** Expands (or collapses) a view of the sidebar by its header. */
async function expandView(page, name, expanded = true) {
  const header = page
    .locator('.part.sidebar .pane-header')
    .filter({ hasText: new RegExp(`^${name}`) })
    .first();
  if (((await header.getAttribute('aria-expanded')) === 'true') !== expanded) await header.click();
}

const env = vscodeTestEnv(root);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-shots-'));
const vsix = path.join(tmp, 'satlution.vsix');
const pack = spawnSync(process.execPath, [path.join(root, 'scripts', 'package.mjs'), vsix], { cwd: root, encoding: 'utf8' });
if (pack.status !== 0) throw new Error(`packaging the .vsix failed:\n${pack.stdout}${pack.stderr}`);
const failures = [];
try {
  for (const theme of chosen) {
    const cs = await startCodeServer({
      codeServer: env.CODE_SERVER,
      nodeBin: env.NODE24_BIN,
      installVsix: vsix,
      settings: { 'workbench.colorTheme': THEMES[theme] },
    });
    const browser = await launchBrowser(cs.env);
    try {
      const page = await newWorkbenchPage(browser);
      await page.setViewportSize({ width: 1400, height: 1500 });
      await page.goto(cs.url(workspace), { waitUntil: 'domcontentloaded' });
      await waitForWorkbench(page);
      await openSidebar(page, 'SATLUTION');
      const overview = await webview(page, 'Overview', 90000);
      await overview.locator('h2', { hasText: 'Champion' }).waitFor({ timeout: 90000 });
      const steering = await webview(page, 'Steering', 60000);
      await steering.getByRole('toolbar', { name: 'Cycle controls' }).waitFor({ timeout: 60000 });
      for (const v of ['Runners', 'Rules']) await expandView(page, v).catch(() => undefined);
      await sidebarWidth(page, SIDEBAR_WIDTH);
      await settled(page, overview);
      await settled(page, steering);
      const box = await page.locator('.part.sidebar').boundingBox();
      const file = path.join(out, `sidebar-${theme}.png`);
      await page.screenshot({ path: file, clip: box });
      console.log(`${file}  (sidebar ${Math.round(box.width)} px)`);
      const base = (frame) =>
        frame.locator('body').evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--vscode-sideBar-background').trim());
      const overviewRows = await overview.locator('body').evaluate(contrastInFrame, (await base(overview)) || '#ffffff');
      const steeringRows = await steering.locator('body').evaluate(contrastInFrame, (await base(steering)) || '#ffffff');
      // The Overview on its own, with the room to show all of it (a collapsed webview view is discarded: measured above).
      for (const v of ['Steering', 'Cycles', 'Rules', 'Runners']) await expandView(page, v, false).catch(() => undefined);
      await settled(page, overview);
      const overviewFile = path.join(out, `overview-${theme}.png`);
      await page.screenshot({ path: overviewFile, clip: box });
      console.log(overviewFile);
      await runCommand(page, 'SATLUTION: Open Dashboard');
      const dash = await webview(page, 'SATLUTION Dashboard', 60000);
      await dash.locator('canvas').first().waitFor({ timeout: 60000 });
      await settled(page, dash);
      const dashFile = path.join(out, `dashboard-${theme}.png`);
      await page.screenshot({ path: dashFile });
      console.log(dashFile);
      const dashBg = await dash
        .locator('body')
        .evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--vscode-editor-background').trim());
      const reports = [
        ['Overview', overviewRows],
        ['Steering', steeringRows],
        ['Dashboard', await dash.locator('body').evaluate(contrastInFrame, dashBg || '#ffffff')],
      ];
      for (const [name, rows] of reports) {
        const low = rows.filter((r) => r.ratio < (r.icon ? MIN_ICON_RATIO : MIN_RATIO));
        console.log(
          `${theme} ${name}: ${rows.length} text styles, lowest ${rows[0]?.ratio ?? '-'}:1${low.length ? `, ${low.length} below ${MIN_RATIO}:1` : ''}`,
        );
        for (const r of rows.slice(0, Math.max(6, low.length))) console.log(`   ${r.ratio.toFixed(2).padStart(6)}  ${r.sel}  "${r.text}"  (${r.fg})`);
        for (const r of low) failures.push(`${theme} ${name}: ${r.sel} "${r.text}" ${r.ratio}:1${r.icon ? ' (icon)' : ''}`);
      }
    } finally {
      await browser.close();
      await cs.stop();
    }
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`${failures.length} text style(s) below ${MIN_RATIO}:1:\n${failures.join('\n')}`);
  process.exit(1);
}
