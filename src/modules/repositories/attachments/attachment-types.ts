import path from 'node:path';

export const FORBIDDEN_TYPE_MESSAGE =
  'This file cannot be uploaded or modified due to a forbidden file extension or type.';

/**
 * Gitea's allowed-type list (`upload.Verify`): `|` counts as `,`; entries are trimmed and
 * lower-cased, empty ones dropped; an empty list allows everything.
 */
export class AllowedTypes {
  private readonly entries: string[];

  constructor(setting: string) {
    this.entries = setting
      .replace(/\|/g, ',')
      .split(',')
      .map((entry) => entry.trim().toLowerCase())
      .filter(Boolean);
  }

  /**
   * Whether a file may be stored: `*\/*` allows all; `.ext` entries match the last extension of the
   * name; MIME entries (`type/sub` exact, `type/*` by prefix) match the sniffed type, but only when
   * there is more than one byte of content (renames and empty files are judged by name alone).
   */
  allows(name: string, sniffedMime: string | null, contentLength: number): boolean {
    if (this.entries.length === 0) return true;
    const extension = path.extname(name).toLowerCase();
    // Compared without parameters (`text/plain; charset=utf-8` is `text/plain`), as Go's ParseMediaType leaves it.
    const mime = sniffedMime?.split(';')[0].trim().toLowerCase() ?? '';
    for (const entry of this.entries) {
      if (entry === '*/*') return true;
      if (entry.startsWith('.')) {
        if (entry === extension) return true;
        continue;
      }
      if (contentLength <= 1 || !mime) continue;
      if (entry === mime) return true;
      if (entry.endsWith('/*') && mime.startsWith(entry.slice(0, -1))) return true;
    }
    return false;
  }
}
