// `npm run package`: a production build packed into satlution-<version>.vsix (no network needed).
// The bundles carry their dependencies, so node_modules stays out of the package.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = process.argv[2] ?? path.join(root, `${pkg.name}-${pkg.version}.vsix`);
if (!fs.existsSync(path.join(root, 'node_modules', '@vscode', 'vsce'))) {
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const vsce = require.resolve('@vscode/vsce/vsce');
const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', out], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
});
process.exit(r.status ?? 1);
