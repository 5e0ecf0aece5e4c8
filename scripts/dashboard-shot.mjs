// A screenshot of a workspace's dashboard in a real VS Code (code-server, installed by
// scripts/setup-vscode-test.sh like the e2e tests): the README's picture (docs/demo-dashboard.png) comes from a demo run.
//   usage: node scripts/dashboard-shot.mjs WORKSPACE OUT.png   (after npm test or npx tsc -p tsconfig.test.json)
import { createRequire } from 'node:module';
import path from 'node:path';
import { vscodeTestEnv } from './vscode-test-env.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const [workspace, out] = process.argv.slice(2);
if (!workspace || !out) {
  console.error('usage: node scripts/dashboard-shot.mjs WORKSPACE OUT.png');
  process.exit(2);
}
const env = vscodeTestEnv(root);
const { shootDashboard } = createRequire(import.meta.url)(path.join(root, 'out', 'test', 'runner', 'dashboardShot.js'));
await shootDashboard({ codeServer: env.CODE_SERVER, nodeBin: env.NODE24_BIN, root, workspace: path.resolve(workspace), out: path.resolve(out) });
console.log(path.resolve(out));
