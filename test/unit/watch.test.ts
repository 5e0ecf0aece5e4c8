import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { watchWorkspace } from '../../src/core/workspace/watch';
import { CLI, FIXTURES, tempDir, write } from './helpers';

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no ${what} within ${ms} ms`)), ms))]);

describe('workspace: watching for changes', () => {
  it('reports new candidates and documents, not edits deep in solver sources', async () => {
    const dir = tempDir();
    write(path.join(dir, 'satlution.yaml'), 'seeds: []\n');
    write(path.join(dir, 'SATLUTION_0', 'src', 'a.c'), 'int x;\n');
    let n = 0;
    let ping: () => void = () => {};
    const w = watchWorkspace(dir, () => {
      n++;
      ping();
    }, 50);
    try {
      await new Promise((r) => setTimeout(r, 300)); // watcher ready
      const next = () => new Promise<void>((r) => (ping = r));
      let p = next();
      fs.mkdirSync(path.join(dir, 'SATLUTION_1'));
      await within(p, 5000, 'event for a new candidate directory');
      p = next();
      write(path.join(dir, 'SATLUTION_1', 'RESULTS.md'), '# r\n');
      await within(p, 5000, 'event for a new RESULTS.md');
      const before = n;
      write(path.join(dir, 'SATLUTION_0', 'src', 'a.c'), 'int y;\n');
      write(path.join(dir, 'seeds', 'k', 'x.c'), 'int z;\n');
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(n, before, 'edits inside solver sources are not status changes');
    } finally {
      await w.close();
    }
  });

  it('satlution status --watch prints again when a candidate appears', async function () {
    this.timeout(20000);
    const dir = tempDir();
    const init = spawn(process.execPath, [CLI, 'init', '--yes', '--dir', dir, '--seed', path.join(FIXTURES, 'seeds', 'tinysat')], { stdio: 'ignore' });
    await new Promise((r) => init.once('exit', r));
    const child = spawn(process.execPath, [CLI, 'status', '--watch', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    try {
      await within(new Promise<void>((r) => child.stdout.once('data', () => r())), 5000, 'first status');
      await new Promise((r) => setTimeout(r, 500));
      fs.mkdirSync(path.join(dir, 'SATLUTION_1'));
      await within(
        (async () => {
          while (!/SATLUTION_1 +unknown/.test(out)) await new Promise((r) => setTimeout(r, 100));
        })(),
        8000,
        'a second status showing SATLUTION_1',
      );
      assert.equal(out.match(/^Workspace /gm)?.length, 2);
    } finally {
      child.kill('SIGINT');
      const code = await new Promise((r) => child.once('exit', r));
      assert.equal(code, 0);
    }
  });
});
