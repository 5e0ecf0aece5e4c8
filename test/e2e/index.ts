// End-to-end: the packaged extension installed into a real VS Code (code-server), driven like a
// person with Playwright. Screenshots land in .test-artifacts/ to be looked at.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { launchBrowser, newWorkbenchPage, startCodeServer } from '../runner/codeServer';
import { cycleFromTheSidebar, prepareEvolvedWorkspace } from './cycle.e2e';
import { initializeFromPalette } from './initialize.e2e';
import { notificationsAsShown, prepareNotificationsWorkspace } from './notifications.e2e';
import { firstRunFromEmptyFolder } from './firstRun.e2e';
import { gbdFetchAsShown } from './gbdFetch.e2e';

export interface E2eContext {
  page: Page;
  workspace: string;
  root: string;
  shot(name: string): Promise<string>;
}

interface Scenario {
  name: string;
  /** Builds the workspace before the window opens (the extension activates on satlution.yaml). */
  prepare?: (root: string, workspace: string) => void;
  run: (c: E2eContext) => Promise<void>;
  /** false: the workbench without the smoke-test driver, so toasts and progress notifications show. */
  smokeTestDriver?: boolean;
  /** Environment variables the workbench must not inherit (see StartOptions.unsetEnv). */
  unsetEnv?: readonly string[];
}

const SCENARIOS: Scenario[] = [
  { name: 'Initialize Workspace from the palette shows SATLUTION_0 in the Cycles tree', run: initializeFromPalette },
  { name: 'A cycle started, approved, reviewed and charted from the sidebar', prepare: prepareEvolvedWorkspace, run: cycleFromTheSidebar },
  {
    name: 'Evaluate and Fetch Benchmarks show their progress and outcome in notifications',
    prepare: prepareNotificationsWorkspace,
    run: async (c) => {
      await notificationsAsShown(c);
      await gbdFetchAsShown(c);
    },
    smokeTestDriver: false,
  },
  // As a new user: no drat-trim known to the extension host, nothing but the .vsix and an empty folder.
  {
    name: 'A first run from an empty folder: samples, drat-trim located, the seed evaluated, an LLM error fixed from Steering',
    run: firstRunFromEmptyFolder,
    smokeTestDriver: false,
    unsetEnv: ['SATLUTION_DRAT_TRIM', 'SATLUTION_DEV_CACHE', 'ANTHROPIC_API_KEY'],
  },
];

export async function runE2e(o: { codeServer: string; nodeBin: string; root: string; verbose?: boolean }): Promise<{ passed: number; failed: number }> {
  const artifacts = path.join(o.root, '.test-artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  const vsix = path.join(os.tmpdir(), `satlution-e2e-${process.pid}.vsix`);
  const pack = spawnSync(process.execPath, [path.join(o.root, 'scripts', 'package.mjs'), vsix], { cwd: o.root, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`packaging the .vsix failed:\n${pack.stdout}${pack.stderr}`);
  console.log(`e2e: packaged ${path.basename(vsix)} (${(fs.statSync(vsix).size / 1024).toFixed(0)} KiB)`);
  let passed = 0;
  let failed = 0;
  // SATLUTION_E2E=regex runs only the scenarios whose name matches (while working on one).
  const only = process.env.SATLUTION_E2E ? new RegExp(process.env.SATLUTION_E2E, 'i') : undefined;
  for (const { name, prepare, run: scenario, smokeTestDriver, unsetEnv } of SCENARIOS.filter((s) => !only || only.test(s.name))) {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-e2e-'));
    const cs = await startCodeServer({
      codeServer: o.codeServer,
      nodeBin: o.nodeBin,
      installVsix: vsix,
      verbose: o.verbose,
      smokeTestDriver,
      ...(unsetEnv ? { unsetEnv } : {}),
      settings: { 'workbench.colorTheme': 'Default Dark Modern' },
    });
    const browser = await launchBrowser(cs.env);
    const page = await newWorkbenchPage(browser);
    const slug = name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 60);
    const ctx: E2eContext = {
      page,
      workspace,
      root: o.root,
      shot: async (n) => {
        const file = path.join(artifacts, `${slug}-${n}.png`);
        await page.screenshot({ path: file });
        return file;
      },
    };
    try {
      prepare?.(o.root, workspace);
      await page.goto(cs.url(workspace), { waitUntil: 'domcontentloaded' });
      await scenario(ctx);
      passed++;
      console.log(`  ✔ ${name}`);
    } catch (e) {
      failed++;
      console.log(`  ✖ ${name}\n    ${(e as Error).stack ?? e}`);
      await ctx.shot('failure').then(
        (f) => console.log(`    screenshot: ${f}`),
        () => undefined,
      );
    } finally {
      await browser.close();
      await cs.stop();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }
  fs.rmSync(vsix, { force: true });
  return { passed, failed };
}
