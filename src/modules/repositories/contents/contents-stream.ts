import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { spawnGit } from './contents-git';

/**
 * Streams a git command's stdout as the response body (archives, blobs): headers go out with the
 * first byte, so a git that fails before writing anything is still a 500; a client that leaves kills
 * git; nothing is buffered beyond the pipes.
 */
export async function streamGit(
  res: Response,
  gitDir: string,
  args: string[],
  headers: Record<string, string>,
): Promise<void> {
  const child = spawnGit(gitDir, args);
  child.stdin.end();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  res.on('close', () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const first = await new Promise<boolean>((resolve) => {
    child.stdout.once('readable', () => resolve(true));
    child.once('close', () => resolve(false));
  });
  if (!first && (await exited) !== 0) {
    res
      .status(500)
      .type('text/plain')
      .send(`git failed: ${stderr.trim().split('\n').pop() ?? ''}`);
    return;
  }
  res.status(200).set(headers);
  try {
    await pipeline(child.stdout, res);
  } catch {
    res.destroy();
    return;
  }
  if ((await exited) !== 0) res.destroy();
}
