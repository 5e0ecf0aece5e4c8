// A person's first cycle from the sidebar, on a workspace with history: start it in the Steering
// view, approve the plan there, watch it finish, review the diff from the Cycles view, read the
// dashboard; in dark and light themes. Every screenshot lands in .test-artifacts/.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { E2eContext } from './index';
import { outcomeLine } from '../../src/shared/outcomeLine';
import type { FrameLocator } from 'playwright-core';
import { openSidebar, pickQuickItem, runCommand, settled, treeRow, waitForWorkbench, webview } from './workbench';

/** minicdcl as the seed, small generated sets with known answers, the seed measured, two tuner cycles. */
export function prepareEvolvedWorkspace(root: string, ws: string): void {
  const cli = path.join(root, 'dist', 'cli.js');
  const run = (...args: string[]) => execFileSync(process.execPath, [cli, ...args], { cwd: ws, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  run('init', '--yes', '--dir', ws, '--seed', `minicdcl=${path.join(root, 'examples', 'minicdcl')}`);
  const set = (name: string, rows: [string, string, 'SAT' | 'UNSAT', string[]][]) => {
    const dir = path.join(ws, 'benchmarks', name);
    fs.writeFileSync(path.join(dir, 'meta.csv'), ['instance,family,expected', ...rows.map(([f, fam, e]) => `${f},${fam},${e}`)].join('\n') + '\n');
    for (const [f, , , gen] of rows) fs.writeFileSync(path.join(dir, f), run('generate', ...gen));
  };
  set('smoke', [
    ['planted-40-1.cnf', 'planted-3sat', 'SAT', ['planted', '40', '4.0', '1']],
    ['php-4-3.cnf', 'pigeonhole', 'UNSAT', ['pigeonhole', '4', '3']],
  ]);
  // An empty verify set fails the gates (evaluation.vacuous_gates: fail).
  set('verify', [
    ['planted-100-1.cnf', 'planted-3sat', 'SAT', ['planted', '100', '4.2', '1']],
    ['php-5-4.cnf', 'pigeonhole', 'UNSAT', ['pigeonhole', '5', '4']],
  ]);
  set('perf', [
    ...[1, 2, 3, 4].map((s): [string, string, 'SAT', string[]] => [`planted-250-${s}.cnf`, 'planted-3sat', 'SAT', ['planted', '250', '4.26', String(100 + s)]]),
    ...[
      [6, 5],
      [7, 6],
      [8, 7],
    ].map(([p, h]): [string, string, 'UNSAT', string[]] => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', ['pigeonhole', String(p), String(h)]]),
  ]);
  run('eval', path.join(ws, 'SATLUTION_0'), '--stage', 'all');
  run('cycle', '--agent', 'tuner', '--cycles', '2', '--yes', '--dir', ws);
}

export async function cycleFromTheSidebar({ page, workspace, shot }: E2eContext): Promise<void> {
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  const cycleFile = path.join(workspace, '.satlution', 'cycle.json');
  const before = JSON.parse(fs.readFileSync(cycleFile, 'utf8')) as { cycle: number };
  await waitForWorkbench(page);
  await openSidebar(page, 'SATLUTION');
  const steering = await webview(page, 'Steering');
  await steering.getByRole('toolbar', { name: 'Cycle controls' }).waitFor({ timeout: 30000 });
  const next = before.cycle + 1;

  // Start: the tuner plans (no models are configured) and the plan waits in the Steering view. The
  // buttons are inert until the host's first snapshot: wait until Start can be pressed.
  await enabled(steering, 'Start').click();
  const approve = enabled(steering, 'Approve');
  await approve.waitFor({ timeout: 60000 });
  const plan = steering.getByRole('document', { name: /HYPOTHESIS\.md of SATLUTION_\d+/ });
  assert.match(await plan.innerText(), /New defaults in src\/options.h: \w+ from \d+ to \d+/);
  assert.equal(await steering.locator('.phase').textContent(), 'Awaiting approval');
  await settled(page, steering);
  console.log(`    screenshot: ${await shot('1-plan-awaiting-approval')}`);
  await approve.click();

  // It codes, evaluates and decides; the Steering view follows it to the end: the new cycle's number,
  // then Idle (which, once the new cycle is shown, can only be its end) with the outcome beside it.
  await approve.waitFor({ state: 'detached', timeout: 15000 });
  await steering.locator('.cycle-line', { hasText: new RegExp(`^Cycle ${next}\\b`) }).waitFor({ timeout: 30000 });
  // While it evaluates, the status shows where the evaluation stands: gate, n of N, time, a bar.
  // (The rules check and the build come first, named without a count.)
  const progress = steering.getByRole('group', { name: 'Evaluation under way' });
  const counting = progress.locator('.progress-label', { hasText: / of \d+$/ });
  await counting.waitFor({ timeout: 60000 });
  assert.match((await counting.textContent()) ?? '', /^(smoke|verify|perf|side by side)( · SATLUTION_\d+)?: \d+ of \d+$/);
  await steering.locator('.phase').scrollIntoViewIfNeeded(); // Approve was scrolled to, further down
  await settled(page, steering);
  console.log(`    screenshot: ${await shot('1b-evaluating')}`);
  await steering.locator('.phase', { hasText: /^Idle$/ }).waitFor({ timeout: 120000 });
  const note = steering.locator('p.note', { hasText: /^Last cycle: / });
  await note.waitFor({ timeout: 15000 });
  // What the view shows is what the engine recorded.
  const done = JSON.parse(fs.readFileSync(cycleFile, 'utf8')) as { cycle: number; step: string; candidate: number; outcome: string };
  assert.equal(done.cycle, next, 'cycle.json is the new cycle');
  assert.equal(done.step, 'done', 'the cycle finished');
  const dir = `SATLUTION_${done.candidate}`;
  assert.equal(await steering.locator('.cycle-line').textContent(), `Cycle ${next} · ${dir}`);
  const outcome = ((await note.textContent()) ?? '').replace(/^Last cycle: /, '');
  // With a Why line below, the outcome's figures in parentheses move to the tooltip (they would say it twice).
  const why = steering.locator('p.why');
  const explained = (await why.isVisible()) ? ((await why.textContent()) ?? '') : '';
  const shown = outcomeLine(done.outcome, !!explained);
  assert.ok(outcome === shown || (outcome.endsWith('…') && shown.startsWith(outcome.slice(0, -1))), `the view shows the outcome "${shown}", not "${outcome}"`);
  assert.equal(await note.getAttribute('title'), done.outcome, 'the whole outcome is in the tooltip');
  const results = path.join(workspace, dir, 'RESULTS.md');
  const resultsWhy = fs.existsSync(results) ? /^\*\*Why:\*\* (.+)$/m.exec(fs.readFileSync(results, 'utf8'))?.[1] : undefined;
  assert.equal(explained, resultsWhy ? `Why: ${resultsWhy}` : '', 'Steering explains the verdict as RESULTS.md does');
  // Every step of the stepper is done, and the stream ends the cycle with its Done mark.
  const steps = steering.getByRole('list', { name: 'Cycle steps' }).locator('li.step:not([hidden])');
  assert.ok((await steps.count()) >= 6, 'the stepper shows the steps');
  assert.equal(await steering.getByRole('list', { name: 'Cycle steps' }).locator('li.step:not([hidden]):not(.done)').count(), 0, 'every step is done');
  assert.equal(await steering.locator('p.visually-hidden[aria-live="polite"]').textContent(), `Cycle ${next} finished.`);
  await steering
    .getByRole('log', { name: 'Agent activity' })
    .getByRole('separator')
    .filter({ hasText: `Done · ${dir}` })
    .waitFor({ timeout: 15000 });
  // Nothing runs: Start is back and pressable, Pause and Stop are not.
  await enabled(steering, 'Start').waitFor({ timeout: 15000 });
  assert.equal(await steering.locator('vscode-button[disabled]', { hasText: /^\s*(Pause|Stop)\s*$/ }).count(), 2, 'Pause and Stop are disabled');
  // Approve was scrolled into view to be clicked: bring the cycle's status back for the screenshot.
  await steering.locator('.phase').scrollIntoViewIfNeeded();
  await settled(page, steering);
  console.log(`    screenshot: ${await shot('2-cycle-done')}`);

  // Review: the candidate's inline "Compare with Parent" in the Cycles view.
  const row = treeRow(page, dir);
  await row.waitFor({ timeout: 30000 });
  await row.hover();
  await row.getByRole('button', { name: 'Compare with Parent' }).click();
  await page.locator('.tab', { hasText: `${dir} ↔ SATLUTION_` }).waitFor({ timeout: 30000 });
  // The documents open beside the diff, RESULTS.md last (when the cycle wrote one).
  const last = fs.existsSync(path.join(workspace, dir, 'RESULTS.md')) ? 'RESULTS.md' : 'HYPOTHESIS.md';
  await page.locator('.tab', { hasText: 'HYPOTHESIS.md' }).waitFor({ timeout: 15000 });
  await page.locator('.tab', { hasText: last }).waitFor({ timeout: 15000 });
  await page.locator('.multiDiffEditor .multiDiffEntry').first().waitFor({ timeout: 15000 });
  await page.locator('.editor-group-container .monaco-editor .view-lines').last().waitFor({ timeout: 15000 });
  await settled(page);
  console.log(`    screenshot: ${await shot('3-diff-with-parent')}`);

  // The dashboard, from the Cycles view's title bar, with the editor area to itself.
  await runCommand(page, 'View: Close All Editor Groups');
  await openDashboard(page);
  const dash = await webview(page, DASHBOARD_TITLE);
  await dash.locator('canvas').first().waitFor({ timeout: 30000 });
  await settled(page, dash);
  console.log(`    screenshot: ${await shot('4-dashboard-dark')}`);

  // Light theme: the webviews restyle live.
  await runCommand(page, 'Preferences: Color Theme');
  await pickQuickItem(page, 'Light Modern');
  await page.locator('.monaco-workbench.vs').waitFor({ timeout: 15000 });
  const lightDash = await webview(page, DASHBOARD_TITLE);
  await lightDash.locator('body.vscode-light').waitFor({ timeout: 15000 });
  await lightDash.locator('canvas').first().waitFor({ timeout: 15000 });
  await settled(page, lightDash); // the charts recolour when the body's theme class changes
  console.log(`    screenshot: ${await shot('5-dashboard-light')}`);
  await openSidebar(page, 'SATLUTION');
  const lightSteering = await webview(page, 'Steering');
  await lightSteering.locator('body.vscode-light').waitFor({ timeout: 15000 });
  // Re-shown, the view renders its state again: still the finished cycle.
  await lightSteering.locator('p.note', { hasText: /^Last cycle: / }).waitFor({ timeout: 15000 });
  await lightSteering.locator('.phase').scrollIntoViewIfNeeded();
  await settled(page, lightSteering);
  console.log(`    screenshot: ${await shot('6-sidebar-light')}`);
  assert.deepEqual(cspViolations, [], 'a webview broke its Content-Security-Policy');
}

/** A Steering toolbar or plan button with this label that can be pressed now. */
function enabled(view: FrameLocator, label: string) {
  // The text matched includes the whitespace of the button's shadow DOM: allow it around the label.
  return view.locator('vscode-button:not([disabled])', { hasText: new RegExp(`^\\s*${label}\\s*$`) });
}

export const DASHBOARD_TITLE = 'SATLUTION Dashboard';

/** Opens the dashboard the way a person does: the Cycles view's title-bar button, else the palette. */
export async function openDashboard(page: E2eContext['page']): Promise<void> {
  await openSidebar(page, 'SATLUTION');
  const button = page.locator('.pane-header', { hasText: 'Cycles' }).getByRole('button', { name: 'Open Dashboard' });
  if (await button.count()) await button.first().click();
  else await runCommand(page, 'SATLUTION: Open Dashboard');
}
