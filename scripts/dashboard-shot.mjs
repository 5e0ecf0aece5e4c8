// A screenshot of a workspace's dashboard in a real VS Code (code-server, installed by
// scripts/setup-vscode-test.sh like the e2e tests): the README's picture comes from a demo run.
//   usage: node scripts/dashboard-shot.mjs WORKSPACE OUT.png   (after npm test or npx tsc -p tsconfig.test.json)
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const [workspace, out] = process.argv.slice(2);
if (!workspace || !out) {
  console.error('usage: node scripts/dashboard-shot.mjs WORKSPACE OUT.png');
  process.exit(2);
}
const env = Object.fromEntries(
  execFileSync('bash', [path.join(root, 'scripts', 'setup-vscode-test.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    .trim()
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
const { shootDashboard } = createRequire(import.meta.url)(path.join(root, 'out', 'test', 'runner', 'dashboardShot.js'));
await shootDashboard({ codeServer: env.CODE_SERVER, nodeBin: env.NODE24_BIN, root, workspace: path.resolve(workspace), out: path.resolve(out) });
console.log(path.resolve(out));
