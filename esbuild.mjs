// Bundles the four artifacts: the extension (CommonJS, `vscode` external), the `satlution` CLI, the
// one-file evaluation worker, and the webview scripts from media/src. Also enforces the layering rule
// (src/core never imports `vscode` or the adapter) at bundle time, and exports the config JSON Schema.
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { layeringPlugin } from './scripts/layering-plugin.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const root = path.dirname(new URL(import.meta.url).pathname);
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const layering = layeringPlugin(path.join(root, 'src', 'core'));

const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  define: { 'process.env.SATLUTION_VERSION': JSON.stringify(pkg.version) },
  plugins: [layering],
};

const webviewEntries = fs.existsSync(path.join(root, 'media', 'src'))
  ? fs
      .readdirSync(path.join(root, 'media', 'src'))
      .filter((f) => /^[a-z][\w-]*\.ts$/.test(f) && !f.endsWith('.d.ts'))
      .map((f) => path.join('media', 'src', f))
  : [];

const builds = [
  { ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js' },
  // The worker is copied to remote hosts and cluster nodes: one file, no dependencies at all.
  { ...node, entryPoints: ['src/worker/workerMain.ts'], outfile: 'dist/worker.js' },
  ...(webviewEntries.length
    ? [
        {
          bundle: true,
          platform: 'browser',
          target: 'es2022',
          format: 'iife',
          sourcemap: !production,
          minify: production,
          logLevel: 'warning',
          entryPoints: webviewEntries,
          outdir: 'dist/media',
        },
      ]
    : []),
];

function afterBuild() {
  fs.chmodSync(path.join(root, 'dist', 'cli.js'), 0o755);
  const schema = execFileSync(process.execPath, [path.join(root, 'dist', 'cli.js'), 'schema'], { encoding: 'utf8' });
  fs.writeFileSync(path.join(root, 'dist', 'satlution.schema.json'), schema);
}

if (watch) {
  const ctxs = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(ctxs.map((c) => c.watch()));
  console.log('[esbuild] watching');
} else {
  const t0 = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  afterBuild();
  console.log(`[esbuild] built ${builds.length} bundles in ${Date.now() - t0} ms${production ? ' (production)' : ''}`);
}
