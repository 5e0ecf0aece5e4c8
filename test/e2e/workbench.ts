// Person-like actions in the VS Code workbench (Playwright over code-server).
import type { FrameLocator, Page } from 'playwright-core';

export async function waitForWorkbench(page: Page): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ timeout: 60000 });
  await page.locator('.activitybar').waitFor({ timeout: 60000 });
}

/** Runs a command from the palette by its exact title, as a person types it. */
export async function runCommand(page: Page, title: string, timeoutMs = 30000): Promise<void> {
  const end = Date.now() + timeoutMs;
  // A lazily activated extension's commands can appear in the palette late on first load: retry.
  for (;;) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: title }) });
    if (await row.first().waitFor({ timeout: 3000 }).then(() => true, () => false)) {
      await row.first().click();
      return;
    }
    await page.keyboard.press('Escape');
    if (Date.now() > end) throw new Error(`command "${title}" never appeared in the palette`);
  }
}

/** Picks a quick-pick row whose label contains the text. */
export async function pickQuickItem(page: Page, text: string): Promise<void> {
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: text });
  await row.first().waitFor({ timeout: 15000 });
  await row.first().click();
}

export async function openSidebar(page: Page, name: string): Promise<void> {
  const tab = page.locator('.activitybar').getByRole('tab', { name });
  await tab.waitFor({ timeout: 30000 });
  if ((await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
}

export function treeRow(page: Page, label: string) {
  return page.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${label}$`) }) });
}

/** The inner frame of a webview, found by its title (view name or panel title). */
export async function webview(page: Page, title: string, timeoutMs = 30000): Promise<FrameLocator> {
  const hosts = page.locator('iframe.webview.ready');
  for (const end = Date.now() + timeoutMs; Date.now() < end; await page.waitForTimeout(250))
    for (const host of await hosts.all()) {
      const found = await host.contentFrame().locator(`iframe#active-frame[title="${title}"]`).count().catch(() => 0);
      if (found) return page.frameLocator(`iframe.webview[name="${await host.getAttribute('name')}"]`).frameLocator('iframe#active-frame');
    }
  throw new Error(`webview "${title}" not found`);
}

/**
 * Waits until what changed last is on screen: two animation frames in the webview (when given), then
 * in the workbench. For screenshots, in place of fixed sleeps.
 */
export async function settled(page: Page, view?: FrameLocator): Promise<void> {
  const twoFrames = () =>
    new Promise<void>((resolve) => {
      const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): number };
      w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve()));
    });
  if (view) await view.locator('body').evaluate(twoFrames);
  await page.evaluate(twoFrames);
}
