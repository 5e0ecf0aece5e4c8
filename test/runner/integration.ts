// Runs the mocha integration suite inside a real VS Code extension host (code-server) and exits with
// its result. Usage: node out/test/runner/integration.js  (paths come from scripts/test.mjs)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as util from 'node:util';
import { launchBrowser, newWorkbenchPage, OFFLINE_NOISE, startCodeServer } from './codeServer';

export interface SuiteResult {
  passed: number;
  failed: number;
  exitCode: number;
}

/**
 * The project's test Slurm for the remote-runner tests, when this machine can run one: its config
 * reaches the extension host through the environment. Absent (the tests say skipped) otherwise.
 */
function slurmUp(): { down(): void } | undefined {
  const script = path.resolve(__dirname, '..', '..', '..', 'scripts', 'slurm-test.sh');
  const up = spawnSync('bash', [script, 'up'], { encoding: 'utf8', env: { ...process.env, SLURM_TEST_DIR: '' } });
  const kv = Object.fromEntries(
    up.stdout
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  if (up.status !== 0 || !kv.SLURM_CONF || !kv.SLURM_TEST_DIR) {
    console.log(`integration: no test Slurm (${up.stderr.trim().split('\n').pop() ?? ''}); the remote-runner tests are skipped`);
    return undefined;
  }
  const before = process.env.SLURM_CONF;
  process.env.SLURM_CONF = process.env.SATLUTION_TEST_SLURM_CONF = kv.SLURM_CONF;
  return {
    down() {
      if (before === undefined) delete process.env.SLURM_CONF;
      else process.env.SLURM_CONF = before;
      delete process.env.SATLUTION_TEST_SLURM_CONF;
      spawnSync('bash', [script, 'down', kv.SLURM_TEST_DIR!], { stdio: 'inherit' });
    },
  };
}

export async function runIntegration(o: {
  codeServer: string;
  nodeBin: string;
  extensionDir: string;
  testsModule: string;
  timeoutMs?: number;
  verbose?: boolean;
}): Promise<SuiteResult> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-it-'));
  const results = `${workspace}.results.json`;
  process.env.SATLUTION_TEST_RESULTS = results; // inherited by code-server and its extension host
  const slurm = slurmUp();
  const cs = await startCodeServer({ codeServer: o.codeServer, nodeBin: o.nodeBin, verbose: o.verbose });
  const browser = await launchBrowser(cs.env);
  let passed = 0;
  let failed = 0;
  try {
    const page = await newWorkbenchPage(browser);
    let finish!: (code: number) => void;
    const done = new Promise<number>((r) => (finish = r));
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const line = util.format(...(args ?? []));
      const m = /^(\d+) passed, (\d+) failed/.exec(line);
      if (m) {
        passed = Number(m[1]);
        failed = Number(m[2]);
        console.log(`integration: ${line}`);
        return;
      }
      if (o.verbose || !OFFLINE_NOISE.test(line)) console.log(`[vscode ${type}] ${line}`);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
    page.on('pageerror', (e) => console.log('[workbench pageerror]', e.message.slice(0, 300)));
    await page.goto(
      cs.url(workspace, [
        ['extensionDevelopmentPath', cs.remote(o.extensionDir)],
        ['extensionTestsPath', cs.remote(o.testsModule)],
      ]),
      { waitUntil: 'domcontentloaded' },
    );
    const timeout = new Promise<number>((r) => setTimeout(() => r(124), o.timeoutMs ?? 300000));
    const exitCode = await Promise.race([done, timeout]);
    if (exitCode === 124) console.log('integration: TIMEOUT waiting for the extension tests');
    try {
      ({ passed, failed } = JSON.parse(fs.readFileSync(results, 'utf8')) as { passed: number; failed: number });
    } catch {
      /* the suite never reported: counted below */
    }
    if (exitCode !== 0 && failed === 0) failed = 1; // the suite died before reporting
    if (failed > 0) {
      // What the extension itself logged explains most failures (a cycle's error, a refused command).
      const log = (() => {
        try {
          return cs.extensionLog();
        } catch {
          return '';
        }
      })();
      if (log) console.log(`integration: the SATLUTION output channel said:\n${log.split('\n').slice(-80).join('\n')}`);
    }
    return { passed, failed, exitCode };
  } finally {
    await browser.close();
    await cs.stop();
    delete process.env.SATLUTION_TEST_RESULTS;
    slurm?.down();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(results, { force: true });
  }
}
