// The task panel on a static page in real Chromium, without VS Code: a tiny local HTTP server
// serves the panel's own page (src/webview/page.ts, the one the extension serves, with its
// Content-Security-Policy: default-src 'none', scripts by nonce only, styles, fonts and images
// from the page's own origin), out/webview.js, media/panel.css and the codicons,
// and a theme stylesheet of `--vscode-*` variables. A nonce'd inline script stands in for the
// host: `acquireVsCodeApi()` records what the panel posts in `window.__posted` and keeps its
// state as VS Code does (its JSON survives a reload, which is the panel hidden and shown again). Used by test/browser/panel.test.mjs and scripts/bench-panel.mjs.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { loadBundled } from '../../scripts/bundle.mjs';
import { CHROMIUM_ARGS } from '../harness/vscode.mjs';

export const REPO = path.resolve(import.meta.dirname, '../..');
/** Where the page tests save their screenshots. */
export const RESULTS = path.join(REPO, 'test-results');

/** Debian's Chromium (or VTASK_CHROMIUM), as the VS Code harness finds it; undefined when absent. */
export function chromiumPath() {
  const p = process.env.VTASK_CHROMIUM || '/usr/bin/chromium';
  return fs.existsSync(p) ? p : undefined;
}

/** The files the page may load, by URL path. VTASK_PANEL_SCRIPT serves another build of the panel. */
const ASSETS = {
  '/out/webview.js': [process.env.VTASK_PANEL_SCRIPT || 'out/webview.js', 'text/javascript'],
  '/out/datasetView.js': ['out/datasetView.js', 'text/javascript'],
  '/out/dashboard.js': ['out/dashboard.js', 'text/javascript'],
  '/media/dashboard.css': ['media/dashboard.css', 'text/css'],
  '/out/diffView.js': ['out/diffView.js', 'text/javascript'],
  '/out/workbench.js': ['out/workbench.js', 'text/javascript'],
  '/media/workbench.css': ['media/workbench.css', 'text/css'],
  '/out/codicons/codicon.css': ['out/codicons/codicon.css', 'text/css'],
  '/out/codicons/codicon.ttf': ['out/codicons/codicon.ttf', 'font/ttf'],
  '/media/panel.css': ['media/panel.css', 'text/css'],
};

/** Fails early, with the command to run, when the panel is not built. */
export function requirePanelBuilt() {
  const missing = Object.values(ASSETS)
    .map(([p]) => p)
    .filter((p) => !fs.existsSync(path.resolve(REPO, p)));
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: run \`npm run build\` first`);
}

const FONT = '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif';
const MONO = '"Droid Sans Mono", "monospace", monospace';

/** The colours of VS Code's Light+, Dark+ and Dark High Contrast themes that the panel uses. */
export const THEMES = {
  light: {
    kind: 'vscode-light',
    colors: {
      'editor-background': '#ffffff',
      foreground: '#616161',
      descriptionForeground: '#717171',
      focusBorder: '#0090f1',
      errorForeground: '#a1260d',
      'button-background': '#007acc',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#0062a3',
      'button-secondaryBackground': '#5f6a79',
      'button-secondaryForeground': '#ffffff',
      'checkbox-background': '#ffffff',
      'dropdown-background': '#ffffff',
      'dropdown-border': '#cecece',
      'dropdown-foreground': '#616161',
      'input-background': '#ffffff',
      'input-foreground': '#616161',
      'input-border': '#cecece',
      'inputValidation-errorBackground': '#f2dede',
      'inputValidation-warningBackground': '#f6f5d2',
      'diffEditor-insertedTextBackground': '#9ccc2c40',
      'diffEditor-removedTextBackground': '#ff000033',
      'editor-findMatchHighlightBackground': '#ea5c0055',
      'editorWarning-foreground': '#bf8803',
      'list-activeSelectionBackground': '#0060c0',
      'list-activeSelectionForeground': '#ffffff',
      'list-hoverBackground': '#e8e8e8',
      'panel-border': '#80808059',
      'testing-iconFailed': '#f14c4c',
      'testing-iconPassed': '#73c991',
      'charts-green': '#388a34',
      'textBlockQuote-background': '#7f7f7f1a',
      'textLink-foreground': '#006ab1',
      'toolbar-hoverBackground': '#b8b8b850',
    },
  },
  dark: {
    kind: 'vscode-dark',
    colors: {
      'editor-background': '#1e1e1e',
      foreground: '#cccccc',
      descriptionForeground: '#ccccccb3',
      focusBorder: '#007fd4',
      errorForeground: '#f48771',
      'button-background': '#0e639c',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#1177bb',
      'button-secondaryBackground': '#3a3d41',
      'button-secondaryForeground': '#ffffff',
      'checkbox-background': '#3c3c3c',
      'dropdown-background': '#3c3c3c',
      'dropdown-border': '#3c3c3c',
      'dropdown-foreground': '#f0f0f0',
      'input-background': '#3c3c3c',
      'input-foreground': '#cccccc',
      'inputValidation-errorBackground': '#5a1d1d',
      'inputValidation-warningBackground': '#352a05',
      'diffEditor-insertedTextBackground': '#9ccc2c33',
      'diffEditor-removedTextBackground': '#ff000033',
      'editor-findMatchHighlightBackground': '#ea5c0055',
      'editorWarning-foreground': '#cca700',
      'list-activeSelectionBackground': '#04395e',
      'list-activeSelectionForeground': '#ffffff',
      'list-hoverBackground': '#2a2d2e',
      'panel-border': '#80808059',
      'testing-iconFailed': '#f14c4c',
      'testing-iconPassed': '#73c991',
      'charts-green': '#89d185',
      'textBlockQuote-background': '#7f7f7f1a',
      'textLink-foreground': '#3794ff',
      'toolbar-hoverBackground': '#5a5d5e50',
    },
  },
  'high-contrast': {
    kind: 'vscode-high-contrast',
    colors: {
      'editor-background': '#000000',
      foreground: '#ffffff',
      descriptionForeground: '#ffffff',
      focusBorder: '#f38518',
      errorForeground: '#f48771',
      'button-background': '#000000',
      'button-foreground': '#ffffff',
      'button-border': '#6fc3df',
      'button-hoverBackground': '#000000',
      'button-secondaryBackground': '#000000',
      'button-secondaryForeground': '#ffffff',
      'checkbox-background': '#000000',
      'dropdown-background': '#000000',
      'dropdown-border': '#6fc3df',
      'dropdown-foreground': '#ffffff',
      'input-background': '#000000',
      'input-foreground': '#ffffff',
      'input-border': '#6fc3df',
      'inputValidation-errorBackground': '#000000',
      'inputValidation-warningBackground': '#000000',
      'diffEditor-insertedTextBackground': '#33ff2e33',
      'diffEditor-removedTextBackground': '#ff000033',
      'editor-findMatchHighlightBackground': '#00000000',
      'editor-findMatchBorder': '#f38518',
      'editorWarning-foreground': '#ffd370',
      'list-activeSelectionBackground': '#000000',
      'list-activeSelectionForeground': '#ffffff',
      'list-hoverBackground': '#000000',
      'panel-border': '#6fc3df',
      'testing-iconFailed': '#f14c4c',
      'testing-iconPassed': '#73c991',
      'charts-green': '#89d185',
      'textBlockQuote-background': '#000000',
      'textLink-foreground': '#21a6ff',
      'toolbar-hoverBackground': '#000000',
    },
  },
};

/** The theme as VS Code gives it to a webview: variables on the page, and its default body style. */
function themeCss(name) {
  const theme = THEMES[name];
  if (!theme) return undefined;
  const vars = {
    'font-family': FONT,
    'font-size': '13px',
    'font-weight': 'normal',
    'editor-font-family': MONO,
    'editor-font-size': '14px',
    ...theme.colors,
  };
  const decls = Object.entries(vars)
    .map(([k, v]) => `  --vscode-${k}: ${v};`)
    .join('\n');
  return `html {\n${decls}\n}\nbody { background-color: var(--vscode-editor-background); margin: 0; }\n`;
}

// The host's side of the page, run before the panel's script. It is the only inline script,
// allowed by the same nonce as the panel's.
const HOST_SCRIPT = `
window.__posted = [];
window.__cspViolations = [];
window.__errors = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
});
window.addEventListener('error', (e) => window.__errors.push(String(e.message)));
// As VS Code's webview host does it: the state is the object given (setState sends its JSON
// to the workbench, which hands it back when the page is made again). Here the JSON goes to
// sessionStorage when the page goes away, so a reload is the panel hidden and shown again.
let state = (() => { const s = sessionStorage.getItem('vscode-state'); return s === null ? undefined : JSON.parse(s); })();
let saved = sessionStorage.getItem('vscode-state');
window.__stateWrites = 0;
window.__stateBytes = 0;
// After the page's own pagehide handlers (which may still save): visibilitychange follows pagehide.
const persist = () => { if (saved !== null) sessionStorage.setItem('vscode-state', saved); };
window.addEventListener('pagehide', persist);
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') persist(); });
let acquired = false;
window.acquireVsCodeApi = () => {
  if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
  acquired = true;
  return Object.freeze({
    postMessage(m) { window.__posted.push(JSON.parse(JSON.stringify(m))); },
    getState() { return state; },
    setState(s) {
      state = s;
      saved = JSON.stringify(s);
      window.__stateWrites++;
      window.__stateBytes += saved.length;
      return s;
    },
  });
};
/** The state as VS Code would keep it now. */
window.__savedState = () => (saved === null ? undefined : JSON.parse(saved));
/** Waits for a frame to be drawn: the next animation frame, then the task after it. */
window.__frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
/** Posts a message as the extension does and waits until the panel handled it and a frame is drawn. */
window.__deliver = (m) => new Promise((resolve) => {
  const after = () => { window.removeEventListener('message', after); window.__frame().then(resolve); };
  window.addEventListener('message', after);
  window.__lastMessage = m;
  window.postMessage(m, '*');
});
`;

/** The panel's own page (src/webview/page.ts), or the dataset view's, with the stand-in host and a theme. */
function page(html, theme) {
  const nonce = randomBytes(18).toString('base64');
  const kind = THEMES[theme]?.kind ?? 'vscode-light';
  return html({
    cspSource: "'self'",
    nonce,
    asset: (p) => `/${p}`,
    head: `<link rel="stylesheet" href="/theme/${encodeURIComponent(theme)}.css">\n<script nonce="${nonce}">${HOST_SCRIPT}</script>`,
    bodyClass: kind,
  });
}

/** Starts the page's server on a free port of 127.0.0.1. */
export async function startPanelServer() {
  const { panelHtml, datasetHtml, dashboardHtml, workbenchHtml, diffHtml } = await loadBundled('src/webview/page.ts');
  const PAGES = {
    '/panel.html': panelHtml,
    '/dataset.html': datasetHtml,
    '/workbench.html': workbenchHtml,
    '/diff.html': diffHtml,
    '/dashboard.html': dashboardHtml,
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status, type, body) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (url.pathname === '/favicon.ico') return send(204, 'image/x-icon', '');
    const html = PAGES[url.pathname];
    if (html) return send(200, 'text/html; charset=utf-8', page(html, url.searchParams.get('theme') ?? 'light'));
    const theme = /^\/theme\/([\w-]+)\.css$/.exec(url.pathname);
    const css = theme && themeCss(theme[1]);
    if (css) return send(200, 'text/css', css);
    const asset = ASSETS[url.pathname];
    if (asset) {
      try {
        return send(200, asset[1], fs.readFileSync(path.resolve(REPO, asset[0])));
      } catch {
        return send(404, 'text/plain', 'not built');
      }
    }
    return send(404, 'text/plain', 'not found');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}

/** Launches Chromium headless, with `extraArgs` after the usual ones. */
export async function launchBrowser(extraArgs = []) {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('Chromium not found (set VTASK_CHROMIUM)');
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/**
 * Opens the panel in a fresh context (so a fresh state) and waits for its `ready`. Page errors
 * and console errors are collected in `page.problems`.
 */
export async function openPanel(
  browser,
  server,
  { theme = 'light', viewport = { width: 900, height: 1000 }, pageName = 'panel' } = {},
) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  // A missing element fails a test in seconds, not after Playwright's default 30 s.
  page.setDefaultTimeout(Number(process.env.VTASK_PANEL_TIMEOUT_MS || 5000));
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') page.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  await page.goto(`${server.url}/${pageName}.html?theme=${encodeURIComponent(theme)}`);
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  return page;
}

/** Sends a message to the panel and waits until it is handled and a frame is drawn. */
export function deliver(page, message) {
  return page.evaluate((m) => window.__deliver(m), message);
}

/**
 * A temporary repository whose `data` folder `write(dataDir)` fills, opened by the real workbench
 * worker (out/workbenchWorker.js) as the extension opens it: `{ dir, client, opened }`.
 */
export async function openWorkbenchData(core, prefix, write) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const data = path.join(dir, 'data');
  fs.mkdirSync(path.join(dir, '.git'));
  fs.mkdirSync(data);
  await write(data);
  const client = new core.WorkbenchClient(path.join(REPO, 'out/workbenchWorker.js'), {
    paths: [data],
    options: { root: dir },
  });
  return { dir, client, opened: await client.opened };
}

/** Tells the workbench page its dataset is read, as the host does once the worker has `opened` it. */
export function deliverOpened(page, opened) {
  return deliver(page, {
    type: 'opened',
    title: 'data',
    rows: opened.rows,
    models: [...opened.models],
    files: opened.files.length,
    notes: [],
  });
}

/**
 * Plays the workbench's host: answers what the page posted since `page.answered` with
 * `answer(page, message)` (undefined: no answer), each message and answer checked against the
 * protocol (`core.fromWorkbench`, `core.toWorkbench`), until the page asks for nothing more.
 */
export async function answerPage(page, core, answer) {
  for (;;) {
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    const all = await page.evaluate(() => window.__posted);
    const fresh = all.slice(page.answered);
    page.answered = all.length;
    if (!fresh.length) return;
    for (const m of fresh) {
      assert.ok(
        core.fromWorkbench.safeParse(m).success,
        `the page posted a message the host accepts: ${JSON.stringify(m)}`,
      );
      const a = await answer(page, m);
      if (!a) continue;
      assert.ok(
        core.toWorkbench.safeParse(a).success,
        `the host's answer is valid: ${JSON.stringify(a).slice(0, 300)}`,
      );
      await deliver(page, a);
    }
  }
}

/** The options of a page suite's `describe`: skipped, with the reason, where Chromium is absent. */
export const PAGE_SUITE = { skip: chromiumPath() ? false : 'Chromium not found (set VTASK_CHROMIUM)' };

/**
 * What every page test asserts at its end: no Content-Security-Policy violation, no script error,
 * no `text` (model, tool or dataset text the page showed) run as script, and no console error.
 */
export async function assertPageClean(page, text) {
  const seen = await page.evaluate(() => ({
    csp: window.__cspViolations,
    errors: window.__errors,
    xss: window.__xss,
  }));
  assert.deepEqual(seen.csp, [], 'no Content-Security-Policy violation');
  assert.deepEqual(seen.errors, [], 'no script error');
  assert.equal(seen.xss, undefined, `no ${text} ran as script`);
  assert.deepEqual(page.problems, [], 'no console error or warning');
}

/**
 * A page suite's shared set-up, called first inside its `describe`: the page server and Chromium
 * are started before the suite's own `before` hooks (which run in the order they are declared)
 * and closed after its tests. `pages.with(options, body)` opens a page in a fresh context, runs
 * the body, asserts the page stayed clean (and `check(page)` if given), and closes it.
 */
export function usePages({ text = 'model text', check } = {}) {
  const pages = { server: undefined, browser: undefined };
  before(async () => {
    requirePanelBuilt();
    pages.server = await startPanelServer();
    pages.browser = await launchBrowser();
    fs.mkdirSync(RESULTS, { recursive: true });
  });
  after(async () => {
    await pages.browser?.close();
    await pages.server?.close();
  });
  pages.open = (options) => openPanel(pages.browser, pages.server, options);
  pages.with = async (options, body) => {
    const page = await pages.open(options);
    try {
      await body(page);
      await assertPageClean(page, text);
      await check?.(page);
    } finally {
      await page.context().close();
    }
  };
  return pages;
}
