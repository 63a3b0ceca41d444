import { readFileSync } from 'node:fs';
import path from 'node:path';

function readVersion(): string {
  for (const candidate of [
    path.join(__dirname, '..', '..', 'package.json'),
    path.join(process.cwd(), 'package.json'),
  ]) {
    try {
      return (JSON.parse(readFileSync(candidate, 'utf8')) as { version: string }).version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const DEVPLANE_VERSION = readVersion();
/** The Gitea version devplane's code-hosting dialect follows (SDKs gate features on it). */
export const GITEA_COMPAT_VERSION = '1.26.0';
