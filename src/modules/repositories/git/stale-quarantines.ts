import { lstat, readdir, readlink, rm } from 'node:fs/promises';
import path from 'node:path';

/** git's quarantine of a push in progress (`objects/tmp_objdir-incoming-*`; git before 2.35: `objects/incoming-*`). */
const QUARANTINE = /^(tmp_objdir-incoming-|incoming-)/;
/** index-pack's temporary pack and index files (`objects/pack/tmp_pack_*`, `tmp_idx_*`, `tmp_rev_*`). */
const TEMPORARY_PACK = /^tmp_(pack|idx|rev)_/;

export interface StaleSweepOptions {
  /**
   * Leftovers untouched for longer than this are stale even if another instance could own them (the
   * repositories directory may be shared); on the embedded database (one instance by construction)
   * pass 0: whatever no live process of this host uses is stale.
   */
  graceMs: number;
  now?: number;
}

export interface StaleSweepResult {
  removed: string[];
  kept: string[];
}

/** The working directories of this host's processes (Linux `/proc`; empty elsewhere). */
async function liveWorkingDirectories(): Promise<string[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const dirs: string[] = [];
  for (const pid of entries) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => undefined);
    if (cwd) dirs.push(cwd);
  }
  return dirs;
}

/** The newest mtime of a file tree (a push writing into its quarantine keeps it fresh). */
async function newestChange(target: string): Promise<number> {
  const info = await lstat(target).catch(() => undefined);
  if (!info) return 0;
  let newest = info.mtimeMs;
  if (info.isDirectory()) {
    for (const entry of await readdir(target).catch(() => [] as string[]))
      newest = Math.max(newest, await newestChange(path.join(target, entry)));
  }
  return newest;
}

async function subdirectories(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(dir, entry.name));
}

/**
 * What a killed server (kill -9) leaves in the repositories directory (issue #46.5): git quarantines of
 * pushes that never finished (`<repo>.git/objects/tmp_objdir-incoming-*`), index-pack's temporary
 * packs, and repositories prepared under `.tmp/` that were never moved into place. Removed at start
 * unless a live process of this host works in that repository (git receive-pack and index-pack run
 * in it) or, when other instances may share the directory, unless it changed within `graceMs`.
 */
export async function removeStaleGitLeftovers(
  root: string,
  options: StaleSweepOptions,
): Promise<StaleSweepResult> {
  const now = options.now ?? Date.now();
  const live = await liveWorkingDirectories();
  const result: StaleSweepResult = { removed: [], kept: [] };
  const inUse = (repository: string): boolean =>
    live.some((cwd) => cwd === repository || cwd.startsWith(`${repository}${path.sep}`));
  const sweep = async (target: string, repository: string): Promise<void> => {
    const stale = !inUse(repository) && now - (await newestChange(target)) >= options.graceMs;
    if (!stale) {
      result.kept.push(target);
      return;
    }
    await rm(target, { recursive: true, force: true });
    result.removed.push(target);
  };

  for (const owner of await subdirectories(root)) {
    const name = path.basename(owner);
    if (name === '.trash') continue; // emptied by the code that moved things there
    if (name === '.tmp') {
      for (const entry of await readdir(owner).catch(() => [] as string[]))
        await sweep(path.join(owner, entry), path.join(owner, entry));
      continue;
    }
    for (const repository of await subdirectories(owner)) {
      if (!repository.endsWith('.git')) continue;
      const objects = path.join(repository, 'objects');
      for (const entry of await readdir(objects).catch(() => [] as string[])) {
        if (QUARANTINE.test(entry)) await sweep(path.join(objects, entry), repository);
      }
      const packs = path.join(objects, 'pack');
      for (const entry of await readdir(packs).catch(() => [] as string[])) {
        if (TEMPORARY_PACK.test(entry)) await sweep(path.join(packs, entry), repository);
      }
    }
  }
  return result;
}
