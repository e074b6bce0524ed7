// What a person sees in the VS Code workbench (code-server in Chromium), read through
// playwright-core: the active editor, decorations, the Explorer. Shared by the end-to-end test
// and the test of `npm start`.

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The active text editor. */
export const editor = (page) => page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();

/** Polls fn until it returns something truthy; throws after timeout ms, saying what it waited for. */
export async function until(page, what, fn, timeout) {
  const t0 = Date.now();
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() - t0 > timeout)
      throw new Error(
        `timed out after ${timeout} ms waiting for ${what}${last ? ` (${last.message.split('\n')[0]})` : ''}`,
      );
    await page.waitForTimeout(200);
  }
}

/** The text that decorations draw after lines (CSS ::after content), which the DOM does not hold. */
export const decorationTexts = (page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('.monaco-editor .view-line span')]
      .map((el) => getComputedStyle(el, '::after').content)
      .filter((c) => c && c !== 'none' && c !== 'normal'),
  );

/**
 * Clicks a file in the Explorer and waits for its editor tab to be the active one (and, unless
 * `text` is false, for its text editor: a custom editor has none).
 */
export async function openFromExplorer({ page, timeout }, name, { text = true } = {}) {
  const row = page
    .locator('.explorer-folders-view .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRe(name)}$`) }) });
  await row.first().click({ timeout });
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout });
  if (text) await editor(page).locator('.view-lines').waitFor({ timeout });
}
