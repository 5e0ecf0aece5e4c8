// A screenshot of the dashboard of an existing workspace (the README's, from a real demo run): the
// packaged extension in code-server, the workspace opened, the dashboard opened as a person does.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { launchBrowser, newWorkbenchPage, startCodeServer } from './codeServer';
import { DASHBOARD_TITLE, openDashboard } from '../e2e/cycle.e2e';
import { settled, waitForWorkbench, webview } from '../e2e/workbench';

export async function shootDashboard(o: { codeServer: string; nodeBin: string; root: string; workspace: string; out: string }): Promise<void> {
  const vsix = path.join(os.tmpdir(), `satlution-shot-${process.pid}.vsix`);
  const pack = spawnSync(process.execPath, [path.join(o.root, 'scripts', 'package.mjs'), vsix], { cwd: o.root, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`packaging the .vsix failed:\n${pack.stdout}${pack.stderr}`);
  const cs = await startCodeServer({
    codeServer: o.codeServer,
    nodeBin: o.nodeBin,
    installVsix: vsix,
    settings: { 'workbench.colorTheme': 'Default Dark Modern' },
  });
  const browser = await launchBrowser(cs.env);
  try {
    const page = await newWorkbenchPage(browser);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(cs.url(o.workspace), { waitUntil: 'domcontentloaded' });
    await waitForWorkbench(page);
    await openDashboard(page);
    const dash = await webview(page, DASHBOARD_TITLE);
    await dash.locator('canvas').first().waitFor({ timeout: 30000 });
    await settled(page, dash);
    await page.screenshot({ path: o.out });
  } finally {
    await browser.close();
    await cs.stop();
    fs.rmSync(vsix, { force: true });
  }
}
