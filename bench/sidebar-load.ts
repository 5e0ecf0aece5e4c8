// Benchmark: how long the SATLUTION sidebar stays blank after a window loads. The packaged extension
// in a real VS Code (code-server, installed by scripts/setup-vscode-test.sh like the e2e tests) opens
// an evolved workspace (SATLUTION_0..2, evaluations, cycles; or BENCH_WORKSPACE); the SATLUTION
// sidebar is opened as soon as the workbench is up. Printed per run: workbench ready (from navigation),
// then from workbench ready: the Overview's first paint (its placeholder) and the Overview showing
// data (its Champion section). BENCH_RUNS (default 2).
// Run: npm run bench -- sidebar-load
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchBrowser, newWorkbenchPage, startCodeServer } from '../test/runner/codeServer';
import { prepareEvolvedWorkspace } from '../test/e2e/cycle.e2e';
import { openSidebar, waitForWorkbench, webview } from '../test/e2e/workbench';

/** The repository (SATLUTION_ROOT when this was compiled outside it). */
const ROOT = process.env.SATLUTION_ROOT ?? path.resolve(__dirname, '..', '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 2);

const kv = (out: string) =>
  Object.fromEntries(
    out
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

async function main(): Promise<void> {
  const env = kv(execFileSync('bash', [path.join(ROOT, 'scripts', 'setup-vscode-test.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-sidebar-load-'));
  const vsix = path.join(tmp, 'satlution.vsix');
  try {
    const pack = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'package.mjs'), vsix], { cwd: ROOT, encoding: 'utf8' });
    if (pack.status !== 0) throw new Error(`packaging the .vsix failed:\n${pack.stdout}${pack.stderr}`);
    let workspace = process.env.BENCH_WORKSPACE;
    if (!workspace) {
      workspace = path.join(tmp, 'ws');
      fs.mkdirSync(workspace);
      prepareEvolvedWorkspace(ROOT, workspace);
    }
    const rows: { workbench: number; placeholder: number; data: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const cs = await startCodeServer({
        codeServer: env.CODE_SERVER!,
        nodeBin: env.NODE24_BIN!,
        installVsix: vsix,
        settings: { 'workbench.colorTheme': 'Default Dark+' },
      });
      const browser = await launchBrowser(cs.env);
      try {
        const page = await newWorkbenchPage(browser);
        const t0 = Date.now();
        await page.goto(cs.url(workspace), { waitUntil: 'domcontentloaded' });
        await waitForWorkbench(page);
        const t1 = Date.now();
        await openSidebar(page, 'SATLUTION');
        const overview = await webview(page, 'Overview', 90000);
        await overview.locator('#root > *').first().waitFor({ timeout: 90000 });
        const t2 = Date.now();
        await overview.locator('h2', { hasText: 'Champion' }).waitFor({ timeout: 90000 });
        const t3 = Date.now();
        rows.push({ workbench: t1 - t0, placeholder: t2 - t1, data: t3 - t1 });
        console.log(
          `run ${i + 1}: workbench ready ${(t1 - t0) / 1000} s; then Overview first paint +${(t2 - t1) / 1000} s, Overview data +${(t3 - t1) / 1000} s`,
        );
      } finally {
        await browser.close();
        await cs.stop();
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
    console.log(
      `time from workbench ready to the Overview showing data (median of ${RUNS}): ${(median(rows.map((r) => r.data)) / 1000).toFixed(1)} s (first paint ${(median(rows.map((r) => r.placeholder)) / 1000).toFixed(1)} s)`,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(e.stack ?? e.message);
  process.exit(1);
});
