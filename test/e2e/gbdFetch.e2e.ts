// Fetch Benchmarks from GBD against misbehaving servers, as a person sees it in the workbench: a list
// that never ends is cut at its bound, with an error naming the server and the setting; a download that
// stalls shows its progress with Cancel, and cancelling ends the fetch with no set made.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { writeValues } from '../../src/core/config/edit';
import { planted3Sat } from '../../src/core/instances/generators';
import { endlessList, servedInstance, startGbdServer } from '../fixtures/gbdServer';
import type { E2eContext } from './index';
import { readToast, runCommand, settled, toast, toastShown } from './workbench';

export async function gbdFetchAsShown({ page, workspace, shot }: E2eContext): Promise<void> {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-e2e-gbd-'));
  let cut = 0;
  let stalled = 0;
  // A list of hashes that never ends.
  const endless = await startGbdServer([], {
    hostile: endlessList(
      (i) => `http://x/file/${i.toString(16).padStart(32, '0')}\n`,
      () => cut++,
    ),
  });
  // One instance whose download sends a byte and then nothing.
  const slow = servedInstance('slow.cnf.xz', planted3Sat(60, 4.2, 5), { track: 'slow', result: 'sat' });
  const stalling = await startGbdServer([slow], {
    hostile: (_req: http.IncomingMessage, res: http.ServerResponse, u: URL) => {
      if (!u.pathname.startsWith('/file/')) return false;
      res.writeHead(200, { 'content-type': 'application/x-xz', 'content-length': String(slow.xz.length) });
      res.write(slow.xz.subarray(0, 1));
      res.on('close', () => stalled++);
      return true;
    },
  });
  try {
    // a. The endless list: refused at gbd.max_instances, named in an error toast; no set.
    await writeValues(workspace, [
      { path: ['gbd', 'server'], value: endless.url },
      { path: ['gbd', 'cache'], value: cache },
      { path: ['gbd', 'max_instances'], value: 1000 },
    ]);
    await fetchFromPalette(page, 'track=t', 'endless');
    const refused = toast(page, /lists more than 1000 instances/);
    await refused.first().waitFor({ timeout: 60000 });
    const said = await readToast(refused);
    await toastShown(page, /lists more than 1000 instances/)
      .waitFor({ timeout: 3000 })
      .catch(() => undefined);
    await settled(page);
    console.log(`    screenshot: ${await shot('gbd-1-endless-list-refused')}`);
    assert.equal(said.message, `SATLUTION: ${endless.url} lists more than 1000 instances for the query "track=t" (gbd.max_instances): narrow the query`);
    assert.equal(said.severity, 'error');
    assert.deepEqual(said.buttons, ['Show Output']);
    assert.ok(!fs.existsSync(path.join(workspace, 'benchmarks', 'endless')), 'no set was made');
    for (const end = Date.now() + 5000; cut < 1 && Date.now() < end;) await page.waitForTimeout(100);
    assert.equal(cut, 1, 'the reply was cut off');

    // b. The stalled download: progress with Cancel; cancelled, the fetch ends and makes no set.
    await writeValues(workspace, [{ path: ['gbd', 'server'], value: stalling.url }]);
    await fetchFromPalette(page, 'track=slow', 'stalled');
    const progress = toast(page, 'SATLUTION: fetching stalled');
    await progress.first().waitFor({ timeout: 30000 });
    assert.deepEqual((await readToast(progress)).buttons, ['Cancel']);
    await settled(page);
    console.log(`    screenshot: ${await shot('gbd-2-stalled-download-progress')}`);
    await progress.getByRole('button', { name: 'Cancel' }).click();
    const cancelled = toast(page, /fetch cancelled after 0 of 1 instances/);
    await cancelled.first().waitFor({ timeout: 30000 });
    assert.match((await readToast(cancelled)).message, /the verified ones are kept in the cache .*: run it again to go on$/);
    assert.ok(!fs.existsSync(path.join(workspace, 'benchmarks', 'stalled')), 'no set was made');
    for (const end = Date.now() + 5000; stalled < 1 && Date.now() < end;) await page.waitForTimeout(100);
    assert.equal(stalled, 1, 'the download was given up');
    assert.equal(fs.readdirSync(cache).filter((d) => /^[0-9a-f]{2}$/.test(d)).length, 0, 'nothing entered the cache');
  } finally {
    await endless.stop();
    await stalling.stop();
    fs.rmSync(cache, { recursive: true, force: true });
  }
}

/** Fetch Benchmarks from GBD… from the palette: the query, then the set's name. */
async function fetchFromPalette(page: Page, query: string, set: string): Promise<void> {
  await runCommand(page, 'SATLUTION: Fetch Benchmarks from GBD…');
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('input');
  for (const text of [query, set]) {
    await input.waitFor();
    await input.fill(text);
    await page.keyboard.press('Enter');
    // The next box replaces this one (or the last closes): wait for that before typing again.
    for (const end = Date.now() + 10000; Date.now() < end; await page.waitForTimeout(100))
      if (!(await widget.isVisible()) || (await input.inputValue().catch(() => '')) !== text) break;
  }
}
