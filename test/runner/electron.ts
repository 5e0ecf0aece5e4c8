// The ecosystem's usual route, for machines that can download VS Code: the same integration suite
// in a desktop VS Code started by @vscode/test-electron. (`npm run test:electron`)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

export async function runElectron(root: string): Promise<{ passed: number; failed: number }> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-it-'));
  try {
    await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(root, 'out', 'test', 'integration', 'index.js'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
    });
    return { passed: 1, failed: 0 }; // per-test counts are printed by the suite itself
  } catch (e) {
    console.error(`electron: ${(e as Error).message}`);
    return { passed: 0, failed: 1 };
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}
