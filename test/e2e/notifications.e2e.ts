// What a person sees while a candidate is evaluated: the progress notification (title, "<gate>: n/N",
// its bar), then the outcome's toast with its button; for a pass and for a lie the smoke gate catches.
// Runs in a workbench without the smoke-test driver, which would hide every toast.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { E2eContext } from './index';
import { pickQuickItem, readToast, runCommand, settled, toast, toastShown, waitForWorkbench } from './workbench';

/** Perf instances: one second each (the seed sleeps), so every "perf: n/N" stays on screen long enough to see. */
const PERF_RUNS = 6;

/**
 * tinysat made one second slower per run as SATLUTION_0, and SATLUTION_1 whose tinysat prints every
 * model negated: a wrong answer the smoke gate rejects (its scripts stay as the parent's, so the rules pass).
 */
export function prepareNotificationsWorkspace(root: string, ws: string): void {
  const cli = path.join(root, 'dist', 'cli.js');
  const run = (...args: string[]) => execFileSync(process.execPath, [cli, ...args], { cwd: ws, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const seed = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-slowsat-'));
  try {
    const tinysat = path.join(root, 'test', 'fixtures', 'seeds', 'tinysat');
    for (const f of ['tinysat.c', 'Makefile']) fs.copyFileSync(path.join(tinysat, f), path.join(seed, f));
    fs.mkdirSync(path.join(seed, 'bin'));
    fs.writeFileSync(path.join(seed, 'starexec_build'), '#!/usr/bin/env bash\nset -euo pipefail\ncd "$(dirname "$0")"\nmake\ncp -f tinysat bin/tinysat\n', {
      mode: 0o755,
    });
    fs.writeFileSync(path.join(seed, 'bin', 'starexec_run_default'), '#!/usr/bin/env bash\nsleep 1\nexec "$(dirname "$0")/tinysat" "$1"\n', { mode: 0o755 });
    run('init', '--yes', '--dir', ws, '--seed', `slowsat=${seed}`);
  } finally {
    fs.rmSync(seed, { recursive: true, force: true });
  }
  const bench = path.join(ws, 'benchmarks');
  fs.writeFileSync(path.join(bench, 'smoke', 'planted-30-1.cnf'), run('generate', 'planted', '30', '4.0', '1'));
  fs.copyFileSync(path.join(root, 'test', 'fixtures', 'cnf', 'sat-small.cnf'), path.join(bench, 'verify', 'sat-small.cnf'));
  for (let s = 2; s < 2 + PERF_RUNS; s++) fs.writeFileSync(path.join(bench, 'perf', `planted-30-${s}.cnf`), run('generate', 'planted', '30', '4.0', String(s)));
  run('new', '--title', 'Prints every model negated', '--dir', ws);
  const source = path.join(ws, 'SATLUTION_1', 'tinysat.c');
  const honest = fs.readFileSync(source, 'utf8');
  const liar = honest.replace('assign[v] >= 0 ? v : -v', 'assign[v] >= 0 ? -v : v');
  assert.notEqual(liar, honest, 'tinysat.c no longer prints its model as expected: update the lie');
  fs.writeFileSync(source, liar);
}

export async function notificationsAsShown({ page, shot }: E2eContext): Promise<void> {
  await waitForWorkbench(page);

  // a. A pass: the progress notification counts the runs of each gate, then the outcome replaces it.
  await runCommand(page, 'SATLUTION: Evaluate Candidate');
  await pickQuickItem(page, 'SATLUTION_0');
  let shotFile = '';
  const seen = await watchProgress(page, 'SATLUTION_0', /passed every gate/, async (message) => {
    // Mid-perf, with the bar part-way: the moment to show a person.
    const at = /: perf: (\d+)\/(\d+)( · |$)/.exec(message);
    if (!at || Number(at[1]) === 0 || at[1] === at[2]) return false;
    shotFile = await shot('1-evaluate-progress');
    console.log(`    screenshot: ${shotFile}`);
    return true;
  });
  console.log(`    progress seen: ${seen.messages.join(' | ')}`);
  assert.ok(seen.messages.includes('SATLUTION: evaluating SATLUTION_0: smoke: 0/1'), 'the smoke gate counted its one run');
  // "<gate>: n/N", then what else the count knows (time elapsed and left, the last run not solved) after " · ".
  const perf = seen.messages.map((m) => /^SATLUTION: evaluating SATLUTION_0: perf: (\d+)\/(\d+)(?: · .+)?$/.exec(m)).filter((m) => m !== null);
  assert.ok(perf.length >= 3, `the perf gate's count was seen as it went (${perf.length} steps)`);
  assert.ok(
    perf.every((m) => Number(m[2]) === PERF_RUNS),
    `perf counts to ${PERF_RUNS}`,
  );
  assert.deepEqual(
    perf.map((m) => Number(m[1])),
    [...new Set(perf.map((m) => Number(m[1])))].sort((x, y) => x - y),
    'the perf count only goes up',
  );
  // Each run moves the bar by 100 / N / gates (smoke, verify, perf): past 90% at perf 5/6.
  assert.ok(seen.bar !== undefined && seen.bar > 90 && Math.round(seen.bar) <= 100, `the progress bar filled as the runs finished (at most ${seen.bar}%)`);
  assert.deepEqual(seen.buttons, ['Cancel'], 'the evaluation can be cancelled from its notification');
  assert.ok(seen.shot, 'a screenshot was taken mid-perf');
  assert.ok(fs.statSync(shotFile).size > 10000, 'the screenshot has content');
  const passed = toast(page, 'SATLUTION: SATLUTION_0 passed every gate');
  const outcome = await readToast(passed);
  assert.match(
    outcome.message,
    new RegExp(
      `^SATLUTION: SATLUTION_0 passed every gate: rules 100%, built, smoke 1/1 solved \\(PAR-2 [\\d.]+ s\\), verify 1/1 solved \\(PAR-2 [\\d.]+ s\\), perf ${PERF_RUNS}/${PERF_RUNS} solved`,
    ),
  );
  assert.equal(outcome.severity, 'info');
  assert.deepEqual(outcome.buttons, ['Show Details']);
  assert.equal(await toast(page, 'SATLUTION: evaluating SATLUTION_0').count(), 0, 'the progress notification closed');
  await passed.getByRole('button', { name: 'Show Details' }).click();
  await outputShows(page, new RegExp(`\\[SATLUTION_0\\] PASS perf: ${PERF_RUNS}/${PERF_RUNS} solved`));
  await passed.waitFor({ state: 'detached', timeout: 5000 }); // a button press dismisses the toast

  // b. A wrong answer: the smoke gate fails the candidate, announced as an error with the same button.
  await runCommand(page, 'SATLUTION: Evaluate Candidate');
  await pickQuickItem(page, 'SATLUTION_1');
  const lied = await watchProgress(page, 'SATLUTION_1', /failed the/);
  console.log(`    progress seen: ${lied.messages.join(' | ')}`);
  assert.ok(lied.messages.includes('SATLUTION: evaluating SATLUTION_1: smoke: 0/1'), 'the smoke gate ran');
  assert.ok(!lied.messages.some((m) => /: (verify|perf): /.test(m)), 'no gate ran after the failed one');
  const failed = toast(page, 'SATLUTION: SATLUTION_1 failed the smoke gate');
  const error = await readToast(failed);
  // Without a fade-in (reduced motion) the class never comes: the screenshot is then taken as it is.
  await toastShown(page, 'SATLUTION: SATLUTION_1 failed the smoke gate')
    .waitFor({ timeout: 3000 })
    .catch(() => undefined);
  await settled(page);
  console.log(`    screenshot: ${await shot('2-evaluate-error')}`);
  assert.match(
    error.message,
    /^SATLUTION: SATLUTION_1 failed the smoke gate: .*SAT claimed on planted-30-1\.cnf, model rejected: clause \d+ .* is not satisfied/,
  );
  assert.equal(error.severity, 'error');
  assert.deepEqual(error.buttons, ['Show Details']);
  await failed.getByRole('button', { name: 'Show Details' }).click();
  await outputShows(page, /\[SATLUTION_1\] FAIL smoke:/);
}

/**
 * Polls the progress notification of `candidate` until the outcome toast (`done`) shows: every distinct
 * message, the fullest its bar was seen, its buttons; `onMessage` for each new message while the bar
 * shows, until it returns true.
 * Polled, not waited for: each message lasts only as long as its run (a second here).
 */
async function watchProgress(
  page: Page,
  candidate: string,
  done: RegExp,
  onMessage?: (message: string) => Promise<boolean>,
): Promise<{ messages: string[]; bar: number | undefined; buttons: string[]; shot: boolean }> {
  const progress = toast(page, `SATLUTION: evaluating ${candidate}`);
  const outcome = toast(page, new RegExp(`SATLUTION: ${candidate} ${done.source}`));
  const messages: string[] = [];
  let bar: number | undefined;
  const buttons: string[] = [];
  let shot = false;
  for (const end = Date.now() + 120000; !(await outcome.count()); await page.waitForTimeout(100)) {
    if (Date.now() > end) throw new Error(`no outcome for ${candidate} in 120 s; progress seen: ${messages.join(' | ')}`);
    if (!(await progress.count())) continue;
    const now = await readToast(progress);
    if (!now.message.startsWith(`SATLUTION: evaluating ${candidate}`)) continue; // the toast just closed
    if (now.progress !== undefined && now.progress > (bar ?? -1)) bar = now.progress;
    for (const b of now.buttons) if (!buttons.includes(b)) buttons.push(b);
    if (messages.at(-1) === now.message) continue;
    messages.push(now.message);
    if (onMessage && !shot && now.progress !== undefined) shot = await onMessage(now.message);
  }
  return { messages, bar, buttons, shot };
}

/** Waits until the Output panel shows the SATLUTION channel with a line matching `line`. */
async function outputShows(page: Page, line: RegExp): Promise<void> {
  const panel = page.locator('.part.panel');
  const lines = panel.locator('.monaco-editor .view-lines');
  for (const end = Date.now() + 15000; ; await page.waitForTimeout(250)) {
    const text = (
      (await lines
        .first()
        .innerText({ timeout: 1000 })
        .catch(() => '')) ?? ''
    ).replace(/\u00a0/g, ' ');
    // The channel picker in the panel's title bar names the channel shown.
    const channel = await panel
      .locator('select.monaco-select-box')
      .first()
      .inputValue({ timeout: 1000 })
      .catch(() => null);
    if (channel === 'SATLUTION' && line.test(text)) return;
    if (Date.now() > end)
      throw new Error(`the Output panel never showed ${line} in the SATLUTION channel; it shows channel "${channel}":\n${text.slice(-1500)}`);
  }
}
