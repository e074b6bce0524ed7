/** Where the page's files come from and what a host adds (a test page adds its stand-in host). */
export interface PageOptions {
  /** The origin the page may load styles, fonts and images from (the webview's `cspSource`). */
  readonly cspSource: string;
  /** A fresh nonce for each page: only scripts that carry it run. */
  readonly nonce: string;
  /** The URL of a file of the extension, by its path (`out/webview.js`). */
  asset(path: string): string;
  /** Extra markup at the start of <head>, such as a nonce'd script. */
  readonly head?: string;
  readonly bodyClass?: string;
}

/** What differs between the pages: their script, title and what shows before the script runs. */
interface PageKind {
  readonly script: string;
  readonly title: string;
  readonly placeholder: string;
  /** A stylesheet of its own, after the panel's. */
  readonly style?: string;
}

/**
 * A page of the extension: a strict Content-Security-Policy (nothing by default; scripts only by
 * nonce, so only the bundle runs; styles, fonts and images only from the extension), the
 * codicons and the panel's stylesheet, and the bundled script.
 */
function pageHtml(o: PageOptions, kind: PageKind): string {
  const csp = [
    `default-src 'none'`,
    `style-src ${o.cspSource}`,
    `script-src 'nonce-${o.nonce}'`,
    `img-src ${o.cspSource}`,
    `font-src ${o.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${o.head ?? ''}
<link rel="stylesheet" href="${o.asset('out/codicons/codicon.css')}">
<link rel="stylesheet" href="${o.asset('media/panel.css')}">
${kind.style ? `<link rel="stylesheet" href="${o.asset(kind.style)}">\n` : ''}<title>${kind.title}</title>
</head>
<body${o.bodyClass ? ` class="${o.bodyClass}"` : ''}>
<main id="root"><p class="empty">${kind.placeholder}</p></main>
<script nonce="${o.nonce}" src="${o.asset(kind.script)}"></script>
</body>
</html>`;
}

/** The task panel's page. */
export function panelHtml(o: PageOptions): string {
  return pageHtml(o, {
    script: 'out/webview.js',
    title: 'vtask task',
    placeholder: 'Put the cursor in a task to see it here.',
  });
}

/** The dataset table view's page (a `.parquet` file opened in the editor). */
export function datasetHtml(o: PageOptions): string {
  return pageHtml(o, { script: 'out/datasetView.js', title: 'vtask dataset', placeholder: 'Reading the dataset…' });
}

/** The dataset dashboard's page (statistics over the workspace's task files). */
export function dashboardHtml(o: PageOptions): string {
  return pageHtml(o, {
    script: 'out/dashboard.js',
    title: 'vtask dataset dashboard',
    placeholder: 'Reading the task files…',
    style: 'media/dashboard.css',
  });
}

/** The Compare Runs page (two runs of the dataset compared, as `vtask diff`). */
export function diffHtml(o: PageOptions): string {
  return pageHtml(o, {
    script: 'out/diffView.js',
    title: 'vtask compare runs',
    placeholder: 'Comparing…',
    style: 'media/dashboard.css',
  });
}

/** The dataset workbench's page (one table of every task of a folder or dataset file). */
export function workbenchHtml(o: PageOptions): string {
  return pageHtml(o, {
    script: 'out/workbench.js',
    title: 'vtask workbench',
    placeholder: 'Reading the dataset…',
    style: 'media/workbench.css',
  });
}
