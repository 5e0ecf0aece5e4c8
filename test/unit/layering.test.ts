import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, tempDir, write } from './helpers';

/** Imports and requires of 'vscode' (static, dynamic, type-only) in a TypeScript source. */
const VSCODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)['"]vscode(?:\/[^'"]*)?['"]/;

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

describe('layering: src/core never imports vscode', () => {
  it('the pattern catches every way of importing vscode', () => {
    for (const s of [
      "import * as vscode from 'vscode';",
      'import type { Uri } from "vscode";',
      "const v = require('vscode');",
      "await import('vscode')",
      "import 'vscode';",
    ])
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
    assert.deepEqual(
      requires.filter((r) => !r.startsWith('node:') && !['child_process', 'path', 'util', 'fs', 'os'].includes(r)),
      [],
    );
  });
});

describe('layering: the build enforces it', () => {
  const build = async (files: Record<string, string>) => {
    const dir = tempDir();
    for (const [f, text] of Object.entries(files)) write(path.join(dir, f), text);
    const esbuild = await import('esbuild');
    const { layeringPlugin } = (await import(path.join(ROOT, 'scripts', 'layering-plugin.mjs'))) as {
      layeringPlugin: (core: string) => import('esbuild').Plugin;
    };
    return esbuild.build({
      entryPoints: [path.join(dir, 'core', 'a.ts')],
      bundle: true,
      write: false,
      platform: 'node',
      logLevel: 'silent',
      external: ['vscode'],
      plugins: [layeringPlugin(path.join(dir, 'core'))],
    });
  };

  it('fails a bundle whose core imports vscode', async () => {
    await assert.rejects(
      build({ 'core/a.ts': "import * as vscode from 'vscode';\nexport const x = vscode;\n" }),
      /imports 'vscode': the core must stay VS-Code-free/,
    );
  });

  it('fails a bundle whose core imports the adapter', async () => {
    await assert.rejects(
      build({ 'core/a.ts': "import { y } from '../extension/b';\nexport const x = y;\n", 'extension/b.ts': 'export const y = 1;\n' }),
      /imports '\.\.\/extension\/b' from outside src\/core/,
    );
  });

  it('passes a core that only imports itself and Node', async () => {
    const r = await build({
      'core/a.ts': "import * as fs from 'node:fs';\nimport { y } from './b';\nexport const x = [fs, y];\n",
      'core/b.ts': 'export const y = 1;\n',
    });
    assert.equal(r.errors.length, 0);
  });
});

/**
 * The folders of src/core from the bottom up: a folder imports only folders before it (and the files
 * at the core's root, which import no folder). ARCHITECTURE.md describes each level.
 */
const CORE_ORDER = [
  'stats',
  'store',
  'config',
  'instances',
  'workspace',
  'isolation',
  'run',
  'suite',
  'runners',
  'rules',
  'eval',
  'decide',
  'benchmarks',
  'llm',
  'objectives',
  'agents',
  'strategy',
  'cycle',
  'dashboard',
  'export',
];

/** Relative imports (static, dynamic, type-only, re-exports) of a TypeScript source, resolved to paths without extension. */
function relativeImports(file: string, text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
    path.resolve(path.dirname(file), m[1]!).replace(/\.(ts|js)$/, ''),
  );
}

/** The imports that break the folder order: "from -> to" with folders (or "." for the core's root). */
export function orderViolations(coreDir: string, files: { file: string; text: string }[], order: readonly string[]): string[] {
  const folderOf = (f: string) => {
    const rel = path.relative(coreDir, f).split(path.sep);
    return rel.length > 1 ? rel[0]! : '.';
  };
  const rank = (folder: string) => (folder === '.' ? -1 : order.indexOf(folder));
  const bad: string[] = [];
  for (const { file, text } of files) {
    const from = folderOf(file);
    if (from !== '.' && !order.includes(from)) bad.push(`${from}: a folder with no place in the order`);
    for (const target of relativeImports(file, text)) {
      if (!target.startsWith(coreDir + path.sep)) continue;
      const to = folderOf(target);
      if (to !== from && rank(to) >= rank(from)) bad.push(`${path.relative(coreDir, file)} imports ${path.relative(coreDir, target)} (${from} -> ${to})`);
    }
  }
  return [...new Set(bad)];
}

/** Import cycles between files (each as "a -> b -> a"), type-only imports included. */
export function importCycles(files: { file: string; text: string }[]): string[] {
  const known = new Set(files.map((f) => f.file.replace(/\.ts$/, '')));
  const edges = new Map(files.map((f) => [f.file.replace(/\.ts$/, ''), relativeImports(f.file, f.text).filter((t) => known.has(t))]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const m of edges.get(n) ?? []) {
      if (state.get(m) === 'open')
        cycles.push([...stack.slice(stack.indexOf(m)), m].map((x) => path.basename(path.dirname(x)) + '/' + path.basename(x)).join(' -> '));
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of edges.keys()) if (!state.has(n)) visit(n);
  return cycles;
}

describe('layering: the folders of src/core form levels, and src/ and media/src have no import cycle', () => {
  const read = (dir: string) => sources(dir).map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }));
  const core = path.join(ROOT, 'src', 'core');

  it('every folder of src/core has a level, and imports only the levels below it', () => {
    const folders = fs
      .readdirSync(core, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    assert.deepEqual(
      folders.filter((f) => !CORE_ORDER.includes(f)),
      [],
      'new folders need a place in CORE_ORDER (and in ARCHITECTURE.md)',
    );
    assert.deepEqual(orderViolations(core, read(core), CORE_ORDER), []);
  });

  it('no file of src/ or media/src (whose webviews import src/ types) is part of an import cycle', () => {
    assert.deepEqual(importCycles([...read(path.join(ROOT, 'src')), ...read(path.join(ROOT, 'media', 'src'))]), []);
  });

  it('one way to measure: only the evaluation service and the perf session (eval/) plan stages, resolve runners and run them', () => {
    // Who calls each seam (a use, not a mention in a comment): outside eval/, nothing but the editor's
    // Evaluate (which shows the plan before it evaluates) and proof release at a cycle's end.
    const users = (name: string) =>
      read(core)
        .concat(read(path.join(ROOT, 'src', 'extension')), read(path.join(ROOT, 'src', 'cli')))
        .filter(({ text }) => new RegExp(`^import[^;]*\\b${name}\\b[^;]*from`, 'm').test(text))
        .map(({ file }) => path.relative(ROOT, file).split(path.sep).join('/'))
        .sort();
    assert.deepEqual(users('plannedStages'), ['src/core/eval/perfSession.ts', 'src/extension/commands/evaluate.ts']);
    assert.deepEqual(users('runStage'), ['src/core/eval/perfSession.ts']);
    assert.deepEqual(users('proofContext'), ['src/core/eval/perfSession.ts']);
    assert.deepEqual(users('stageRunners'), ['src/core/cycle/engine.ts', 'src/core/eval/perfSession.ts', 'src/core/eval/service.ts']);
    assert.deepEqual(users('openPerfSession'), ['src/core/decide/heldOutCheck.ts', 'src/core/decide/measureTogether.ts', 'src/core/decide/promotionAudit.ts']);
  });

  it('the checks catch an upward import and a cycle', () => {
    const c = '/x/core';
    const files = [
      { file: `${c}/store/a.ts`, text: "import { b } from '../eval/b';\n" },
      { file: `${c}/eval/b.ts`, text: "import type { a } from '../store/a';\nexport { c } from './c';\n" },
      { file: `${c}/eval/c.ts`, text: "export const c = await import('./b');\n" },
      { file: `${c}/layout.ts`, text: "import { s } from './store/a';\n" },
    ];
    assert.deepEqual(orderViolations(c, files, ['store', 'eval']), ['store/a.ts imports eval/b (store -> eval)', 'layout.ts imports store/a (. -> store)']);
    assert.deepEqual(importCycles(files).sort(), ['eval/b -> eval/c -> eval/b', 'store/a -> eval/b -> store/a']);
    assert.deepEqual(orderViolations(c, [{ file: `${c}/misc/d.ts`, text: '' }], ['store']), ['misc: a folder with no place in the order']);
  });
});
