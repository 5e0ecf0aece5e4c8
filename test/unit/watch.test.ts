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
    const w = watchWorkspace(
      dir,
      () => {
        n++;
        ping();
      },
      50,
    );
    try {
      const next = () => new Promise<void>((r) => (ping = r));
      await within(w.ready, 10000, 'ready watcher');
      let p = next();
      fs.mkdirSync(path.join(dir, 'SATLUTION_1'));
      await within(p, 5000, 'event for a new candidate directory');
      p = next();
      write(path.join(dir, 'SATLUTION_1', 'RESULTS.md'), '# r\n');
      await within(p, 5000, 'event for a new RESULTS.md');
      const before = n;
      write(path.join(dir, 'SATLUTION_0', 'src', 'a.c'), 'int y;\n');
      write(path.join(dir, 'seeds', 'k', 'x.c'), 'int z;\n');
      // A negative: nothing can be awaited, so give an event ample time (12 debounce periods) to come.
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
    const child = spawn(process.execPath, [CLI, 'status', '--watch', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const watching = new Promise<void>((resolve) => {
      let err = '';
      child.stderr.on('data', (d) => {
        err += d;
        if (/watching for changes/.test(err)) resolve();
      });
    });
    const shown = () => out.match(/^Workspace /gm)?.length ?? 0;
    /** Resolves when the output satisfies `ok` (checked on every chunk written). */
    const printed = (ok: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => ok() && (child.stdout.off('data', check), resolve());
        child.stdout.on('data', check);
        check();
      });
    try {
      await within(
        printed(() => shown() >= 1),
        5000,
        'first status',
      );
      await within(watching, 10000, 'the watcher ready');
      const before = shown();
      fs.mkdirSync(path.join(dir, 'SATLUTION_1'));
      await within(
        printed(() => /SATLUTION_1 +unknown/.test(out)),
        8000,
        'a status showing SATLUTION_1',
      );
      assert.equal(shown(), before + 1, 'one change, one status');
    } finally {
      child.kill('SIGINT');
      const code = await new Promise((r) => child.once('exit', r));
      assert.equal(code, 0);
    }
  });
});
