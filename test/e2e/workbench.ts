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
    if (
      await row
        .first()
        .waitFor({ timeout: 3000 })
        .then(
          () => true,
          () => false,
        )
    ) {
      await row.first().click();
      return;
    }
    await page.keyboard.press('Escape');
    if (Date.now() > end) throw new Error(`command "${title}" never appeared in the palette`);
  }
}

/**
 * Answers VS Code's own file or folder dialog (the quick-input one code-server shows): types `file`
 * until it stays (the dialog writes its starting folder into the input after it opens, which on a busy
 * machine can land after our text), then presses the dialog's `button`.
 */
export async function answerFileDialog(page: Page, file: string, button: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  for (let i = 0; i < 20; i++) {
    await input.fill(file);
    await page.waitForTimeout(500);
    if ((await input.inputValue()) === file) break;
  }
  if ((await input.inputValue()) !== file) throw new Error(`the file dialog did not keep the typed path ${file}`);
  await page.locator('.quick-input-widget').getByRole('button', { name: button }).click();
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
      const found = await host
        .contentFrame()
        .locator(`iframe#active-frame[title="${title}"]`)
        .count()
        .catch(() => 0);
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

/**
 * The toasts on screen whose text contains `text`. Only a workbench started without the smoke-test
 * driver shows toasts; otherwise notifications go straight to the notification centre.
 */
export function toast(page: Page, text: string | RegExp) {
  return page.locator('.notifications-toasts .notification-toast').filter({ hasText: text });
}

/** A toast once it has faded in: for screenshots, where one still sliding in is half transparent. */
export function toastShown(page: Page, text: string | RegExp) {
  return page.locator('.notifications-toasts .notification-toast.notification-fade-in-done').filter({ hasText: text });
}

/**
 * What a toast says and offers, read the way a person would see it (also while it still changes);
 * `progress` is its bar's percentage while the bar shows (0 when it has no steps).
 */
export async function readToast(
  t: ReturnType<typeof toast>,
): Promise<{ message: string; buttons: string[]; severity: 'info' | 'warning' | 'error' | undefined; progress: number | undefined }> {
  const item = t.locator('.notification-list-item').first();
  const bar = t.locator('.monaco-progress-container.active').first(); // beside the item, not in it
  const icon =
    (await item
      .locator('.notification-list-item-icon')
      .getAttribute('class', { timeout: 2000 })
      .catch(() => null)) ?? '';
  return {
    message: (
      (await item
        .locator('.notification-list-item-message')
        .innerText({ timeout: 2000 })
        .catch(() => '')) ?? ''
    )
      .replace(/\s+/g, ' ')
      .trim(),
    buttons: (await item.locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts()).map((b) => b.trim()),
    severity: /codicon-error\b/.test(icon) ? 'error' : /codicon-warning\b/.test(icon) ? 'warning' : /codicon-info\b/.test(icon) ? 'info' : undefined,
    progress: (await bar.isVisible().catch(() => false))
      ? Number((await bar.getAttribute('aria-valuenow', { timeout: 2000 }).catch(() => null)) ?? 0)
      : undefined,
  };
}
