import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { E2eContext } from './index';
import { answerFileDialog, openSidebar, pickQuickItem, runCommand, settled, treeRow, waitForWorkbench, webview } from './workbench';

export async function initializeFromPalette({ page, workspace, root, shot }: E2eContext): Promise<void> {
  const seed = path.join(root, 'test', 'fixtures', 'seeds', 'tinysat');
  const cspViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  await waitForWorkbench(page);
  await openSidebar(page, 'SATLUTION');
  await page.getByRole('button', { name: 'Initialize Workspace' }).waitFor({ timeout: 30000 });
  await shot('1-welcome');

  await runCommand(page, 'SATLUTION: Initialize Workspace');
  await pickQuickItem(page, 'Seed from a folder');
  // VS Code's own folder dialog: type the path, then accept it.
  await answerFileDialog(page, seed + '/', 'Use as seed');
  const input = page.locator('.quick-input-widget input');
  // Seed name, prefilled from the folder name.
  await page.locator('.quick-input-widget .quick-input-title', { hasText: '(2/2)' }).waitFor();
  assert.equal(await input.inputValue(), 'tinysat');
  await page.keyboard.press('Enter');
  // The seed has no StarExec scripts: the modal asks before generating them.
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 30000 });
  assert.match(await dialog.innerText(), /has no starexec_build and bin\/starexec_run_default/);
  await shot('3-generate-dialog');
  await dialog.getByRole('button', { name: 'Generate Scripts' }).click();

  await treeRow(page, 'SATLUTION_0').waitFor({ timeout: 30000 });
  assert.ok(fs.existsSync(path.join(workspace, 'satlution.yaml')));
  assert.ok(fs.existsSync(path.join(workspace, 'SATLUTION_0', 'starexec_build')));
  const row = treeRow(page, 'SATLUTION_0');
  assert.match((await row.getAttribute('aria-label')) ?? '', /SATLUTION_0, champion, seed baseline, seed tinysat/);

  // The Overview webview appears once the folder is a workspace and shows its state.
  const overview = await webview(page, 'Overview');
  await overview.getByRole('heading', { name: 'Champion' }).waitFor({ timeout: 30000 });
  await overview.getByRole('button', { name: /Champion SATLUTION_0/ }).waitFor();
  assert.match(await overview.getByRole('region', { name: 'Benchmarks' }).innerText(), /smoke\s+empty[^]*Add .cnf, .cnf.gz or .cnf.xz files/);
  assert.match(await overview.getByRole('region', { name: 'Seeds' }).innerText(), /tinysat/);
  // Whether evolved code runs sandboxed is said where the configuration is (sandbox: on by default).
  const isolation = overview.getByText('✓ Evolved code runs sandboxed');
  await isolation.scrollIntoViewIfNeeded();
  assert.match(await overview.getByRole('region', { name: 'Configuration' }).innerText(), /satlution\.yaml is valid\s+✓ Evolved code runs sandboxed/);
  await settled(page);
  console.log(`    screenshot: ${await shot('3b-overview-sandbox')}`);
  await overview.getByRole('button', { name: 'Open satlution.yaml' }).click();
  await page.locator('.tab', { hasText: 'satlution.yaml' }).waitFor({ timeout: 15000 });

  // Hiding the sidebar destroys the webview; shown again, it renders the state again.
  await openSidebar(page, 'Explorer');
  await openSidebar(page, 'SATLUTION');
  const again = await webview(page, 'Overview');
  await again.getByRole('button', { name: /Champion SATLUTION_0/ }).waitFor({ timeout: 15000 });

  // A document from the tree opens rendered, for reading.
  await treeRow(page, 'HYPOTHESIS.md').click();
  await page.locator('.tab.active', { hasText: 'HYPOTHESIS.md' }).waitFor({ timeout: 15000 });
  await renderedHeading(page, 'SATLUTION_0 — baseline');
  await settled(page);
  console.log(`    screenshot: ${await shot('4-tree')}`);

  // Evaluate from the tree's inline action, as a person would.
  // Every stage runs: an empty set would fail its gate (evaluation.vacuous_gates: fail).
  for (const set of ['smoke', 'verify', 'perf'])
    fs.copyFileSync(path.join(root, 'test', 'fixtures', 'cnf', 'sat-small.cnf'), path.join(workspace, 'benchmarks', set, 'sat-small.cnf'));
  const c0 = treeRow(page, 'SATLUTION_0');
  await c0.hover();
  await c0.getByRole('button', { name: 'Evaluate Candidate' }).click();
  // Its result is announced in a notification; toasts may already have gone to the notification
  // centre: wait there, as a person would (the centre lists the toasts too, and new ones as they come).
  await runCommand(page, 'Notifications: Show Notifications');
  await page.locator('.notifications-center .notification-list-item', { hasText: 'SATLUTION_0 passed every gate' }).waitFor({ timeout: 60000 });
  assert.ok(fs.existsSync(path.join(workspace, '.satlution', 'evals', 'SATLUTION_0.json')), 'no evaluation recorded');
  await settled(page);
  console.log(`    screenshot: ${await shot('5-evaluated')}`);

  // The Runners view says how this machine measures a run's CPU time (or what to do to get it).
  await runCommand(page, 'SATLUTION: Check Runner Health');
  await runCommand(page, 'Focus on Runners View');
  const cpu = page.locator('.monaco-list-row[aria-label^="CPU time: "]');
  await cpu.waitFor({ timeout: 60000 });
  assert.match(
    (await cpu.getAttribute('aria-label')) ?? '',
    /^CPU time: (ok, user \+ system of each run's whole process tree, orphans included, from (cpuacct\.usage|cpu\.stat) of its own cgroup|warning, not measured: .* To get it: )/,
  );
  // The other sections folded, the Runners view has the room to show every finding; the notifications give way.
  await runCommand(page, 'Notifications: Clear All Notifications');
  for (const section of ['Overview', 'Steering', 'Cycles']) {
    const header = page.locator('.pane-header[aria-expanded="true"]', { hasText: section });
    if (await header.count()) await header.first().click();
  }
  await cpu.click();
  await settled(page);
  console.log(`    screenshot: ${await shot('5b-runners-cpu-time')}`);
  for (const section of ['Overview', 'Steering', 'Cycles']) {
    const header = page.locator('.pane-header[aria-expanded="false"]', { hasText: section });
    if (await header.count()) await header.first().click();
  }

  // Theme-aware: switching to a light theme restyles the webview live.
  await runCommand(page, 'Preferences: Color Theme');
  await pickQuickItem(page, 'Light Modern');
  const light = await webview(page, 'Overview');
  await light.locator('body.vscode-light').waitFor({ timeout: 15000 });
  await settled(page, light);
  console.log(`    screenshot: ${await shot('6-light')}`);
  assert.deepEqual(cspViolations, [], 'the webview broke its Content-Security-Policy');
}

/** Waits until a webview frame (the Markdown preview) shows a heading with this text: the document is rendered, not shown as text. */
async function renderedHeading(page: Page, text: string): Promise<void> {
  for (const end = Date.now() + 15000; ; await page.waitForTimeout(250)) {
    for (const f of page.frames())
      if (
        await f
          .locator('h1', { hasText: text })
          .count()
          .catch(() => 0)
      )
        return;
    if (Date.now() > end) throw new Error(`no rendered heading "${text}" in any webview`);
  }
}
