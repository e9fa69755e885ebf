import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredApp } from '../../config/stored-app.js';
import type { AppManifest } from './app-manifest.js';
import { answeredWith, gitHubFault } from './github-fault.js';

export interface ManifestFlowOptions {
  manifest: AppManifest;
  /** https://github.com, or a GitHub Enterprise Server's address. */
  githubUrl: string;
  /** The REST API the code is exchanged at: https://api.github.com, or `<githubUrl>/api/v3`. */
  apiUrl: string;
  /** Register the App under this organization instead of the signed-in user. */
  org?: string;
  /** Where the local page listens (127.0.0.1); 0: any free port. */
  port: number;
  /** Called once the local page listens, with its address. */
  onListening(pageUrl: string): void;
}

/**
 * GitHub's App manifest flow (docs.github.com, "Registering a GitHub App from a manifest"), as
 * probot's ManifestCreation runs it but from the command line: a page on 127.0.0.1 posts the
 * manifest to GitHub's "new App" form, GitHub sends the browser back to the page with a one-time
 * `code` (and the `state` the page gave), and the code is exchanged for the App's id, key and
 * secrets. Resolves with them; the page stays up until then.
 */
export async function runManifestFlow(o: ManifestFlowOptions): Promise<StoredApp> {
  const state = randomBytes(16).toString('hex');
  let server: Server | undefined;
  try {
    return await new Promise<StoredApp>((resolve, reject) => {
      server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const page = (status: number, body: string) => {
          res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
          res.end(`<!doctype html><meta charset="utf-8"><title>mergeq: set up the GitHub App</title><body style="font-family: sans-serif">${body}</body>`);
        };
        if (url.pathname === '/') return page(200, formPage(o, state, `http://${req.headers.host ?? '127.0.0.1'}/callback`));
        if (url.pathname !== '/callback') return page(404, '<p>Not found.</p>');
        const code = url.searchParams.get('code');
        if (!code || url.searchParams.get('state') !== state) return page(400, '<p>This answer is not from the GitHub form this page opened. Start again from the page <code>mergeq setup github</code> printed.</p>');
        exchangeCode(o.apiUrl, code).then(
          (app) => {
            page(200, `<p>GitHub App <b>${escapeHtml(app.slug)}</b> registered and stored. Next: <a href="${escapeHtml(app.htmlUrl)}/installations/new">install it</a> on your repositories, then start mergeq. You can close this page.</p>`);
            resolve(app);
          },
          (err: unknown) => {
            page(502, `<p>GitHub did not convert the code: ${escapeHtml(err instanceof Error ? err.message : String(err))}. Start again.</p>`);
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      });
      server.on('error', reject);
      server.listen(o.port, '127.0.0.1', () => o.onListening(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/`));
    });
  } finally {
    server?.closeAllConnections();
    server?.close();
  }
}

/** The page that posts the manifest to GitHub's form at once (a button when scripts are off). */
function formPage(o: ManifestFlowOptions, state: string, redirectUrl: string): string {
  const base = o.githubUrl.replace(/\/+$/, '');
  const action = `${base}${o.org ? `/organizations/${encodeURIComponent(o.org)}` : ''}/settings/apps/new?state=${state}`;
  const manifest = JSON.stringify({ ...o.manifest, redirect_url: redirectUrl });
  return `<form id="register" method="post" action="${escapeHtml(action)}">
<p>Registering the GitHub App from mergeq's app.yml on ${escapeHtml(base)}${o.org ? ` for ${escapeHtml(o.org)}` : ''}…</p>
<input type="hidden" name="manifest" value="${escapeHtml(manifest)}">
<button type="submit">Continue on GitHub</button>
</form>
<script>document.getElementById('register').submit()</script>`;
}

async function exchangeCode(apiUrl: string, code: string): Promise<StoredApp> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${apiUrl.replace(/\/+$/, '')}/app-manifests/${encodeURIComponent(code)}/conversions`, {
      method: 'POST',
      headers: { accept: 'application/vnd.github+json', 'user-agent': 'mergeq-setup' },
      signal: AbortSignal.timeout(30_000),
    });
    text = await res.text();
  } catch (err) {
    throw new Error(gitHubFault(err, apiUrl), { cause: err });
  }
  if (res.status !== 201) throw new Error(gitHubFault(answeredWith(res.status, res.headers, text), apiUrl));
  const data = JSON.parse(text) as { id: number; slug: string; html_url: string; pem: string; webhook_secret: string | null; client_id?: string; client_secret?: string };
  return {
    appId: data.id,
    slug: data.slug,
    htmlUrl: data.html_url,
    privateKey: data.pem,
    webhookSecret: data.webhook_secret ?? '',
    clientId: data.client_id ?? null,
    clientSecret: data.client_secret ?? null,
    apiUrl: apiUrl === 'https://api.github.com' ? null : apiUrl,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
