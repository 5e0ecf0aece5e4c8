// A person's first cycle from the sidebar, on a workspace with history: start it in the Steering
// view, approve the plan there, watch it finish, review the diff from the Cycles view, read the
// dashboard; in dark and light themes. Every screenshot lands in .test-artifacts/.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { E2eContext } from './index';
import { openSidebar, pickQuickItem, runCommand, treeRow, waitForWorkbench, webview } from './workbench';

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
  set('smoke', [['planted-40-1.cnf', 'planted-3sat', 'SAT', ['planted', '40', '4.0', '1']], ['php-4-3.cnf', 'pigeonhole', 'UNSAT', ['pigeonhole', '4', '3']]]);
  set('perf', [
    ...[1, 2, 3, 4].map((s): [string, string, 'SAT', string[]] => [`planted-250-${s}.cnf`, 'planted-3sat', 'SAT', ['planted', '250', '4.26', String(100 + s)]]),
    ...[[6, 5], [7, 6], [8, 7]].map(([p, h]): [string, string, 'UNSAT', string[]] => [`php-${p}-${h}.cnf`, 'pigeonhole', 'UNSAT', ['pigeonhole', String(p), String(h)]]),
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

  // Start: the tuner plans (no models are configured) and the plan waits in the Steering view.
  await steering.getByRole('button', { name: 'Start' }).click();
  const approve = steering.getByRole('button', { name: 'Approve' });
  await approve.waitFor({ timeout: 60000 });
  const plan = steering.getByRole('document', { name: /HYPOTHESIS\.md of SATLUTION_\d+/ });
  assert.match(await plan.innerText(), /New defaults in src\/options.h: \w+ from \d+ to \d+/);
  await page.waitForTimeout(500);
  console.log(`    screenshot: ${await shot('1-plan-awaiting-approval')}`);
  await approve.click();

  // It codes, evaluates and decides; the Steering view follows it.
  let done: { cycle: number; step: string; candidate: number; outcome: string } | undefined;
  for (let i = 0; i < 240; i++) {
    const s = JSON.parse(fs.readFileSync(cycleFile, 'utf8')) as typeof done & {};
    if (s.cycle === before.cycle + 1 && s.step === 'done') {
      done = s;
      break;
    }
    await page.waitForTimeout(500);
  }
  assert.ok(done, 'the cycle did not finish');
  const dir = `SATLUTION_${done.candidate}`;
  await steering.getByText(/Idle|Done|Finished/i).first().waitFor({ timeout: 30000 }).catch(() => undefined);
  await page.waitForTimeout(800);
  console.log(`    screenshot: ${await shot('2-cycle-done')}`);

  // Review: the candidate's inline "Compare with Parent" in the Cycles view.
  const row = treeRow(page, dir);
  await row.waitFor({ timeout: 30000 });
  await row.hover();
  await row.getByRole('button', { name: 'Compare with Parent' }).click();
  await page.locator('.tab', { hasText: `${dir} ↔ SATLUTION_` }).waitFor({ timeout: 30000 });
  await page.locator('.tab', { hasText: 'HYPOTHESIS.md' }).waitFor({ timeout: 15000 });
  await page.waitForTimeout(1500);
  console.log(`    screenshot: ${await shot('3-diff-with-parent')}`);

  // The dashboard, from the Cycles view's title bar, with the editor area to itself.
  await runCommand(page, 'View: Close All Editor Groups');
  await openDashboard(page);
  const dash = await webview(page, DASHBOARD_TITLE);
  await dash.locator('canvas').first().waitFor({ timeout: 30000 });
  await page.waitForTimeout(1500);
  console.log(`    screenshot: ${await shot('4-dashboard-dark')}`);

  // Light theme: the webviews restyle live.
  await runCommand(page, 'Preferences: Color Theme');
  await pickQuickItem(page, 'Light Modern');
  await page.locator('.monaco-workbench.vs').waitFor({ timeout: 15000 });
  await (await webview(page, DASHBOARD_TITLE)).locator('body.vscode-light').waitFor({ timeout: 15000 });
  await page.waitForTimeout(3000); // the charts recolour on the next frame; let the workbench settle
  console.log(`    screenshot: ${await shot('5-dashboard-light')}`);
  await openSidebar(page, 'SATLUTION');
  await (await webview(page, 'Steering')).locator('body.vscode-light').waitFor({ timeout: 15000 });
  await page.waitForTimeout(1500);
  console.log(`    screenshot: ${await shot('6-sidebar-light')}`);
  assert.deepEqual(cspViolations, [], 'a webview broke its Content-Security-Policy');
}

export const DASHBOARD_TITLE = 'SATLUTION Dashboard';

async function openDashboard(page: E2eContext['page']): Promise<void> {
  await openSidebar(page, 'SATLUTION');
  const button = page.locator('.pane-header', { hasText: 'Cycles' }).getByRole('button', { name: 'Open Dashboard' });
  if (await button.count()) await button.first().click();
  else await runCommand(page, 'SATLUTION: Open Dashboard');
}
