import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, tempDir, write } from './helpers';

/** Imports and requires of 'vscode' (static, dynamic, type-only) in a TypeScript source. */
const VSCODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)['"]vscode(?:\/[^'"]*)?['"]/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name));
}

describe('layering: src/core never imports vscode', () => {
  it('the pattern catches every way of importing vscode', () => {
    for (const s of ["import * as vscode from 'vscode';", 'import type { Uri } from "vscode";', "const v = require('vscode');", "await import('vscode')", "import 'vscode';"])
      assert.match(s, VSCODE_IMPORT, s);
    assert.doesNotMatch("import { x } from './vscodeish';", VSCODE_IMPORT);
  });

  it('no file under src/core imports vscode or the adapter layers', () => {
    const bad: string[] = [];
    for (const f of sources(path.join(ROOT, 'src', 'core'))) {
      const text = fs.readFileSync(f, 'utf8');
      if (VSCODE_IMPORT.test(text)) bad.push(`${path.relative(ROOT, f)} imports vscode`);
      for (const m of text.matchAll(/from\s*['"](\.[^'"]+)['"]/g)) {
        const target = path.resolve(path.dirname(f), m[1]!);
        if (!target.startsWith(path.join(ROOT, 'src', 'core'))) bad.push(`${path.relative(ROOT, f)} imports ${m[1]} from outside src/core`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('the CLI and worker bundles contain no vscode dependency', () => {
    for (const b of ['cli.js', 'worker.js']) {
      const text = fs.readFileSync(path.join(ROOT, 'dist', b), 'utf8');
      assert.doesNotMatch(text, /require\(["']vscode["']\)/, `${b} requires vscode`);
    }
  });

  it('the worker is one self-contained file', () => {
    const text = fs.readFileSync(path.join(ROOT, 'dist', 'worker.js'), 'utf8');
    const requires = [...text.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]!);
    assert.deepEqual(requires.filter((r) => !r.startsWith('node:') && !['child_process', 'path', 'util', 'fs', 'os'].includes(r)), []);
  });
});

describe('layering: the build enforces it', () => {
  const build = async (files: Record<string, string>) => {
    const dir = tempDir();
    for (const [f, text] of Object.entries(files)) write(path.join(dir, f), text);
    const esbuild = await import('esbuild');
    const { layeringPlugin } = (await import(path.join(ROOT, 'scripts', 'layering-plugin.mjs'))) as { layeringPlugin: (core: string) => import('esbuild').Plugin };
    return esbuild.build({ entryPoints: [path.join(dir, 'core', 'a.ts')], bundle: true, write: false, platform: 'node', logLevel: 'silent', external: ['vscode'], plugins: [layeringPlugin(path.join(dir, 'core'))] });
  };

  it('fails a bundle whose core imports vscode', async () => {
    await assert.rejects(build({ 'core/a.ts': "import * as vscode from 'vscode';\nexport const x = vscode;\n" }), /imports 'vscode': the core must stay VS-Code-free/);
  });

  it('fails a bundle whose core imports the adapter', async () => {
    await assert.rejects(build({ 'core/a.ts': "import { y } from '../extension/b';\nexport const x = y;\n", 'extension/b.ts': 'export const y = 1;\n' }), /imports '\.\.\/extension\/b' from outside src\/core/);
  });

  it('passes a core that only imports itself and Node', async () => {
    const r = await build({ 'core/a.ts': "import * as fs from 'node:fs';\nimport { y } from './b';\nexport const x = [fs, y];\n", 'core/b.ts': 'export const y = 1;\n' });
    assert.equal(r.errors.length, 0);
  });
});
