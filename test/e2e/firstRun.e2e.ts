// A new user's first run, in a workbench that shows its notifications: an empty folder and the .vsix,
// no drat-trim known to the extension. Initialize with the example solver, add the sample benchmarks,
// try to evaluate, fix the missing proof checker from the error's own button (locating the binary in
// VS Code's file dialog), evaluate the seed to a pass; then a cycle whose model has no API key stops
// and Steering shows the error with the action that fixes it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findDratTrim } from '../../src/core/run/checkers';
import type { E2eContext } from './index';
import {
  answerFileDialog,
  openSidebar,
  pickQuickItem,
  readToast,
  runCommand,
  settled,
  toast,
  toastShown,
  treeRow,
  waitForWorkbench,
  webview,
} from './workbench';

export async function firstRunFromEmptyFolder({ page, workspace, root, shot }: E2eContext): Promise<void> {
  const dratTrim = findDratTrim();
  assert.ok(dratTrim, 'this test locates a real drat-trim: run it through scripts/test.mjs, which builds one');
  await waitForWorkbench(page);
  await openSidebar(page, 'SATLUTION');
  await page.getByRole('button', { name: 'Initialize Workspace' }).waitFor({ timeout: 30000 });

  // 1. The example solver as the seed; it has no StarExec scripts, so they are generated.
  await runCommand(page, 'SATLUTION: Initialize Workspace');
  await pickQuickItem(page, 'Seed from a folder');
  await answerFileDialog(page, path.join(root, 'examples', 'minicdcl') + '/', 'Use as seed');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: '(2/2)' }).waitFor();
  await page.keyboard.press('Enter');
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 30000 });
  await dialog.getByRole('button', { name: 'Generate Scripts' }).click();
  await treeRow(page, 'SATLUTION_0').waitFor({ timeout: 60000 });

  // 2. Sample benchmarks, from the Overview's empty sets: each gets its samples, and the toast offers the next step.
  const overview = await webview(page, 'Overview');
  await overview.getByRole('region', { name: 'Benchmarks' }).getByText('empty').first().waitFor({ timeout: 30000 });
  await overview.getByRole('button', { name: /Add small sample sets/ }).click();
  const added = toast(page, 'SATLUTION: sample benchmarks written');
  await added.waitFor({ timeout: 30000 });
  const a = await readToast(added);
  assert.match(a.message, /smoke 3, verify 5, perf 12 \(planted SAT and pigeonhole UNSAT, answers known by construction\)/);
  assert.deepEqual(a.buttons, ['Evaluate the Seed']);
  assert.equal(fs.readdirSync(path.join(workspace, 'benchmarks', 'perf')).filter((f) => f.endsWith('.cnf')).length, 12);
  await overview
    .getByRole('region', { name: 'Benchmarks' })
    .getByText(/^12 instances/)
    .waitFor({ timeout: 15000 });
  assert.equal(await overview.getByRole('button', { name: /Add small sample sets/ }).count(), 0, 'no empty set left to fill');
  await added.getByRole('button', { name: 'Evaluate the Seed' }).click();

  // 3. No drat-trim: the error says so and carries the fix.
  const missing = toast(page, /could not evaluate SATLUTION_0: proof checking needs drat-trim/);
  await missing.waitFor({ timeout: 60000 });
  const m = await readToast(missing);
  assert.equal(m.severity, 'error');
  assert.deepEqual(m.buttons, ['Set Up drat-trim…']);
  assert.doesNotMatch(m.message, /scripts\//, 'no advice that needs this repository');
  await toastShown(page, /proof checking needs drat-trim/)
    .waitFor({ timeout: 3000 })
    .catch(() => undefined);
  await settled(page);
  console.log(`    screenshot: ${await shot('1-drat-trim-missing')}`);
  await missing.getByRole('button', { name: 'Set Up drat-trim…' }).click();
  await pickQuickItem(page, 'Locate drat-trim…');
  await answerFileDialog(page, dratTrim, 'Use This drat-trim');
  const configured = toast(page, /evaluation\.drat_trim is .* \(it verified a proof and rejected a bogus one\)/);
  await configured.waitFor({ timeout: 30000 });
  assert.match(
    fs.readFileSync(path.join(workspace, 'satlution.yaml'), 'utf8'),
    new RegExp(`\\n\\s+drat_trim: ${dratTrim.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n`),
  );

  // 4. The seed's first evaluation, proofs checked, passes every gate.
  await runCommand(page, 'SATLUTION: Evaluate Candidate');
  await pickQuickItem(page, 'SATLUTION_0');
  const passed = toast(page, 'SATLUTION: SATLUTION_0 passed every gate');
  await passed.waitFor({ timeout: 240000 });
  const p = await readToast(passed);
  assert.match(p.message, /verify 5\/5 solved .*perf 12\/12 solved/);
  assert.equal(p.severity, 'info');
  assert.ok(fs.existsSync(path.join(workspace, '.satlution', 'evals', 'SATLUTION_0.json')));
  await settled(page);
  console.log(`    screenshot: ${await shot('2-evaluated')}`);

  // 5. Models configured, but no key: the cycle stops, and Steering shows why with the fix.
  await runCommand(page, 'SATLUTION: Configure Models');
  await pickQuickItem(page, 'anthropic');
  // The pick's widget is reused for the input box: wait for the box itself, and its suggested value, or Enter goes to the pick.
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'anthropic model id' }).waitFor({ timeout: 15000 });
  const modelId = page.locator('.quick-input-widget input');
  for (let i = 0; i < 50 && !(await modelId.inputValue()); i++) await page.waitForTimeout(100);
  await page.keyboard.press('Enter'); // the suggested model id
  const models = toast(page, /planner, coder now use anthropic/);
  await models.waitFor({ timeout: 30000 });
  assert.match((await readToast(models)).message, /No anthropic API key is stored yet/);
  await runCommand(page, 'SATLUTION: Start Evolution Cycle');
  const failed = toast(page, /no API key for anthropic/);
  await failed.waitFor({ timeout: 120000 });
  assert.deepEqual((await readToast(failed)).buttons, ['Show in Steering']);
  await failed.getByRole('button', { name: 'Show in Steering' }).click();
  const steering = await webview(page, 'Steering');
  const card = steering.getByRole('alert').filter({ hasText: 'no API key for anthropic' });
  await card.waitFor({ timeout: 30000 });
  assert.deepEqual(
    (await card.locator('vscode-button').allInnerTexts()).map((t) => t.trim()),
    ['Set API Key…', 'Configure Models…', 'Resume'],
  );
  await settled(page, steering);
  console.log(`    screenshot: ${await shot('3-steering-problem')}`);
  await card.locator('vscode-button', { hasText: 'Set API Key…' }).click();
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'SATLUTION: Set API Key' }).waitFor({ timeout: 15000 });
  await page.keyboard.press('Escape');
}
