// The ecosystem's usual route, for machines that can download VS Code: the same integration suite
// in a desktop VS Code started by @vscode/test-electron. (`npm run test:electron`)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

export async function runElectron(root: string): Promise<{ passed: number; failed: number }> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-it-'));
  const results = path.join(workspace, '..', `${path.basename(workspace)}.results.json`);
  try {
    await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(root, 'out', 'test', 'integration', 'index.js'),
      extensionTestsEnv: { SATLUTION_TEST_RESULTS: results },
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
    });
  } catch (e) {
    console.error(`electron: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(fs.readFileSync(results, 'utf8')) as { passed: number; failed: number };
  } catch {
    return { passed: 0, failed: 1 }; // VS Code could not be downloaded or the suite never reported
  } finally {
    fs.rmSync(results, { force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}
