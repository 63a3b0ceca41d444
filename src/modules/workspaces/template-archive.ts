import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import * as tar from 'tar-stream';
import * as yauzl from 'yauzl';
import { InvalidError } from '../../platform/errors/domain-error';
import type { TemplateDefinition } from './template-definition';

/**
 * Template archives (issue 48 item 6): how a devplane template definition travels as Coder's uploaded
 * file. The archive holds `devplane.json` (the definition; its `files` may be left out) at the root and
 * every file the workspace gets at its path; a file in the archive overrides the same path in
 * `devplane.json`'s `files`. `README.md` at the root is the version's readme.
 */
export const DEFINITION_FILE = 'devplane.json';
export const MAX_ARCHIVE_ENTRIES = 200;

export interface ArchiveEntry {
  name: string;
  data: Buffer;
}

function invalidArchive(detail: string): InvalidError {
  return new InvalidError('Invalid template archive.', {
    code: 'INVALID_ARCHIVE',
    fields: [{ field: 'file', detail }],
  });
}

/** A clean relative path, or undefined for entries to skip (`./`, directories). */
function cleanName(raw: string): string | undefined {
  const name = raw.replace(/^\.\//, '').replace(/\/+$/, '');
  if (name === '' || name === '.') return undefined;
  return name;
}

/** The regular files of a tar archive. */
export async function readTar(bytes: Buffer): Promise<ArchiveEntry[]> {
  const extract = tar.extract();
  const out: ArchiveEntry[] = [];
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const name = cleanName(entry.header.name);
      if (name && (entry.header.type === 'file' || entry.header.type === 'contiguous-file')) {
        if (out.length >= MAX_ARCHIVE_ENTRIES) throw invalidArchive(`more than ${MAX_ARCHIVE_ENTRIES} files`);
        out.push({ name, data: Buffer.concat(chunks) });
      }
    }
  })();
  Readable.from([bytes]).pipe(extract);
  try {
    await done;
  } catch (error) {
    if (error instanceof InvalidError) throw error;
    throw invalidArchive(`not a tar archive: ${(error as Error).message}`);
  }
  return out;
}

/** The regular files of a zip archive. */
export async function readZip(bytes: Buffer): Promise<ArchiveEntry[]> {
  let zip: yauzl.ZipFile;
  try {
    zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, file) =>
        error ? reject(error) : resolve(file),
      ),
    );
  } catch (error) {
    throw invalidArchive(`not a zip archive: ${(error as Error).message}`);
  }
  const out: ArchiveEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('error', (error: Error) => reject(invalidArchive(`not a zip archive: ${error.message}`)));
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = cleanName(entry.fileName);
      if (!name || entry.fileName.endsWith('/')) return zip.readEntry();
      if (out.length >= MAX_ARCHIVE_ENTRIES)
        return reject(invalidArchive(`more than ${MAX_ARCHIVE_ENTRIES} files`));
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(invalidArchive(error.message));
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', (streamError: Error) => reject(invalidArchive(streamError.message)));
        stream.on('end', () => {
          out.push({ name, data: Buffer.concat(chunks) });
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return out;
}

/** A ustar archive of the entries (fixed modes and times, so the same entries give the same bytes). */
export async function writeTar(entries: ArchiveEntry[], mtime = new Date(0)): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const entry of entries)
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: entry.name, mode: 0o644, mtime, size: entry.data.length }, entry.data, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

/** A zip archive of the entries, stored (no compression): Coder's `GET /files/{id}?format=zip`. */
export function writeZip(entries: ArchiveEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(0, 10); // time, date
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by unix, 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(0, 30); // extra, comment lengths
    central.writeUInt32LE(0, 34); // disk, internal attributes
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** The raw definition an archive holds (checked later by parseTemplateDefinition). */
export function definitionFromEntries(entries: ArchiveEntry[]): Record<string, unknown> {
  const document = entries.find((entry) => entry.name === DEFINITION_FILE);
  if (!document)
    throw invalidArchive(
      `the archive has no ${DEFINITION_FILE} (the devplane template definition) at its root`,
    );
  let definition: unknown;
  try {
    definition = JSON.parse(document.data.toString('utf8'));
  } catch (error) {
    throw invalidArchive(`${DEFINITION_FILE} is not JSON: ${(error as Error).message}`);
  }
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition))
    throw invalidArchive(`${DEFINITION_FILE} must hold a JSON object`);
  const raw = definition as Record<string, unknown>;
  const files: Record<string, unknown> =
    typeof raw.files === 'object' && raw.files !== null && !Array.isArray(raw.files)
      ? { ...(raw.files as Record<string, unknown>) }
      : {};
  for (const entry of entries)
    if (entry.name !== DEFINITION_FILE) files[entry.name] = entry.data.toString('utf8');
  return { ...raw, files };
}

/** The archive of a definition: `devplane.json` without its files, then each file at its path, sorted. */
export function entriesFromDefinition(definition: TemplateDefinition): ArchiveEntry[] {
  const { files, ...rest } = definition as TemplateDefinition & { files?: Record<string, string> };
  return [
    { name: DEFINITION_FILE, data: Buffer.from(`${JSON.stringify(rest, null, 2)}\n`) },
    ...Object.keys(files ?? {})
      .sort()
      .map((name) => ({ name, data: Buffer.from(files![name]!, 'utf8') })),
  ];
}

/** The version readme: `README.md` at the root of the files, else in the definition's directory. */
export function readmeOf(definition: TemplateDefinition): string {
  const files = (definition as { files?: Record<string, string> }).files ?? {};
  const directory = (definition as { directory?: string }).directory;
  return files['README.md'] ?? (directory ? files[`${directory}/README.md`] : undefined) ?? '';
}
