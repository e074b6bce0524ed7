// Renders media/icon.svg to media/icon.png (128×128, transparent corners) in Chromium, so the
// marketplace icon is drawn from the one SVG source:  node scripts/icon.mjs
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const media = path.resolve(import.meta.dirname, '../media');
const svg = fs.readFileSync(path.join(media, 'icon.svg'), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.VTASK_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
  await page.setContent(`<body style="margin:0;background:transparent">${svg}</body>`);
  await page.screenshot({ path: path.join(media, 'icon.png'), omitBackground: true });
} finally {
  await browser.close();
}
