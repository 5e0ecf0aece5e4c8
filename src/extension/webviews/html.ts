// The HTML shell of a webview: a strict Content-Security-Policy where only our nonce'd script and
// our own stylesheets run; everything the page shows is rendered by that script.
import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';

export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  o: {
    title: string;
    script: string;
    style: string;
    /** Announce every re-render (a small status page); views that redraw often announce their own parts. */ live?: boolean;
    /** Shown at once, before the script has run and the data has come (the stylesheet hides it beside rendered content). */ loading?: string;
  },
): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'media', o.script));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', o.style));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${style}">
  <title>${o.title}</title>
</head>
<body>
  <main id="root"${o.live === false ? '' : ' aria-live="polite"'}>${o.loading ? `<p class="loading" role="status">${escapeHtml(o.loading)}</p>` : ''}</main>
  <script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'media'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/** The placeholder is the one text written into the HTML: escaped, though it is always our own. */
const escapeHtml = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
