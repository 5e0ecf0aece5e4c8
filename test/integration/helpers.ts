import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SatlutionApi } from '../../src/extension/extension';

export const EXTENSION_ID = 'satlution.satlution';
/** out/test/integration -> test/fixtures */
export const FIXTURES = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures');

export async function api(): Promise<SatlutionApi> {
  const ext = vscode.extensions.getExtension<SatlutionApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in this extension host`);
  return ext.activate();
}

export function workspaceDir(): string {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'the test window has no workspace folder');
  return f.uri.fsPath;
}

/** Polls until `f` returns a truthy value (VS Code's watchers and views update asynchronously). */
export async function eventually<T>(f: () => T | Promise<T>, what: string, timeoutMs = 15000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
