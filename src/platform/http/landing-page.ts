import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';

/** The running version (package.json at the repository or install root: the same from src/ and dist/). */
function version(): string {
  try {
    const file = path.join(__dirname, '..', '..', '..', 'package.json');
    return String((JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `GET /`: what the start-up banner tells people to open (issue 36.2). A small static page: version,
 * health links, the API documents and the URL forms a client needs. No data, no authentication.
 */
export function landingPage(publicUrl: string): (req: Request, res: Response) => void {
  const base = escape(publicUrl);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>devplane</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 46em; margin: 2em auto; line-height: 1.5">
<h1>devplane ${escape(version())}</h1>
<p>Health: <a href="${base}healthz">/healthz</a> (the process answers) and
<a href="${base}readyz">/readyz</a> (database and blob store ready).</p>
<h2>API documentation</h2>
<ul>
<li><a href="${base}docs">/docs</a>: every stable route (Swagger UI; the document at <a href="${base}docs-json">/docs-json</a>)</li>
<li><a href="${base}docs-experimental">/docs-experimental</a>: experimental routes that may still change</li>
</ul>
<h2>URL forms</h2>
<ul>
<li>Clone: <code>git clone ${base}{owner}/{repo}.git</code> (user name and an API token as the password)</li>
<li>npm registry of an owner: <code>${base}api/packages/{owner}/npm/</code></li>
<li>Generic packages: <code>${base}api/packages/{owner}/generic/{name}/{version}/{file}</code></li>
<li>Gitea-style API: <code>${base}api/v1/</code>; Coder-style API: <code>${base}api/v2/</code>;
Nextcloud OCS workflow rules: <code>${base}ocs/v2.php/apps/workflowengine/api/v1/workflows/user</code></li>
</ul>
<p>First token: sign in with <code>POST ${base}api/v2/users/login</code>
(<code>{"email":"…","password":"…"}</code>) and send the <code>session_token</code> it returns as
<code>Service-Session-Token</code> to <code>POST ${base}api/v2/users/me/keys/tokens</code>.</p>
</body></html>
`;
  return (_req, res) => {
    res.status(200).type('html').setHeader('Cache-Control', 'no-cache').send(html);
  };
}

/** Gitea error bodies carry `url: <PUBLIC_URL>api/swagger` (as Gitea does): it leads to the API docs. */
export function apiSwaggerRedirect(publicUrl: string): (req: Request, res: Response) => void {
  return (_req, res) => res.redirect(302, `${publicUrl}docs`);
}

/**
 * Gitea's must-change-password refusal names `<PUBLIC_URL>user/change_password`: this page says how
 * the password is changed here (the API route; there is no web form).
 */
export function changePasswordPage(publicUrl: string): (req: Request, res: Response) => void {
  const base = escape(publicUrl);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Change your password - devplane</title></head>
<body style="font-family: sans-serif; max-width: 46em; margin: 2em auto; line-height: 1.5">
<h1>Change your password</h1>
<p>Sign in, then set a new password with the API (the password rule applies; your other keys are revoked):</p>
<pre>TOKEN=$(curl -s -X POST -H 'Content-Type: application/json' \\
  -d '{"email":"you@example.com","password":"CURRENT"}' ${base}api/v2/users/login | jq -r .session_token)
curl -X PUT -H "Service-Session-Token: $TOKEN" -H 'Content-Type: application/json' \\
  -d '{"old_password":"CURRENT","password":"NEW"}' ${base}api/v2/users/me/password</pre>
<p>Details: <a href="${base}docs">API documentation</a>.</p>
</body></html>
`;
  return (_req, res) => {
    res.status(200).type('html').setHeader('Cache-Control', 'no-cache').send(html);
  };
}
