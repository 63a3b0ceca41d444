/**
 * The pre-receive and post-receive hooks devplane runs for pushes over smart HTTP
 * (`git -c core.hooksPath=<DATA_DIR>/git-hooks receive-pack`). Each hook sends git's ref lines and
 * the quarantine environment to the server instance that started the push
 * (DEVPLANE_HOOK_URL, authenticated by the one-push DEVPLANE_HOOK_TOKEN), prints the server's
 * message (git shows it as `remote: ...`) and exits non-zero when the server refuses.
 * A push that did not come through devplane (no DEVPLANE_HOOK_URL) is refused.
 */
export function hookScript(hook: 'pre-receive' | 'post-receive', nodePath: string): string {
  return `#!${nodePath}
'use strict';
// devplane ${hook} hook: written by devplane at start; edits are overwritten.
const http = require('node:http');
const url = process.env.DEVPLANE_HOOK_URL;
const token = process.env.DEVPLANE_HOOK_TOKEN;
if (!url || !token) {
  process.stderr.write('devplane: pushes must go through devplane\\n');
  process.exit(1);
}
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const refs = Buffer.concat(chunks).toString('utf8').split('\\n').filter(Boolean).map((line) => {
    const [oldId, newId, ref] = line.split(' ');
    return { oldId, newId, ref };
  });
  const body = JSON.stringify({
    hook: '${hook}',
    refs,
    objectDirectory: process.env.GIT_OBJECT_DIRECTORY || null,
    alternateObjectDirectories: process.env.GIT_ALTERNATE_OBJECT_DIRECTORIES || null,
    quarantinePath: process.env.GIT_QUARANTINE_PATH || null,
  });
  const req = http.request(url + '/${hook}', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-devplane-hook-token': token },
  }, (res) => {
    const parts = [];
    res.on('data', (chunk) => parts.push(chunk));
    res.on('end', () => {
      let answer = {};
      try { answer = JSON.parse(Buffer.concat(parts).toString('utf8')); } catch {}
      if (answer.message) process.stderr.write(String(answer.message).trimEnd() + '\\n');
      process.exit(res.statusCode === 200 && answer.ok === true ? 0 : 1);
    });
  });
  req.on('error', (error) => {
    process.stderr.write('devplane: the server could not be reached from the ${hook} hook: ' + error.message + '\\n');
    process.exit(1);
  });
  req.end(body);
});
`;
}
