// `npm run bench [-- NAME ...]`: builds, then runs the benchmarks in bench/ and prints their figures.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const run = (args, opts = {}) => {
  const r = spawnSync(args[0], args.slice(1), { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
if (!fs.existsSync(path.join(root, 'node_modules', 'esbuild'))) run(['npm', 'ci', '--no-audit', '--no-fund']);
run([process.execPath, 'esbuild.mjs']);
run([process.execPath, require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.test.json']);
const all = fs
  .readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3));
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : all;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`no benchmark "${name}" (have: ${all.join(', ')})`);
    process.exit(2);
  }
  console.log(`\n== bench/${name}`);
  run([process.execPath, path.join('out', 'bench', `${name}.js`)]);
}
