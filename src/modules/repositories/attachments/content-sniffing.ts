import { filetypeinfo } from 'magic-bytes.js';
import mime from 'mime-types';

/** How many leading bytes the sniffers look at (Go's `http.DetectContentType` and Gitea read 1024). */
export const SNIFF_LENGTH = 1024;

type Signature = { mask?: number[]; pattern: number[]; skipWhitespace?: boolean; type: string };

const bytes = (text: string) => [...text].map((c) => c.charCodeAt(0));

// The WHATWG MIME sniffing table as Go's net/http implements it (sniff.go), in its order; Gitea's
// allowed-type check compares entries against this answer, so devplane must give the same one.
const SIGNATURES: Signature[] = [
  { pattern: bytes('%PDF-'), type: 'application/pdf' },
  { pattern: bytes('%!PS-Adobe-'), type: 'application/postscript' },
  { pattern: [0xfe, 0xff], type: 'text/plain; charset=utf-16be' },
  { pattern: [0xff, 0xfe], type: 'text/plain; charset=utf-16le' },
  { pattern: [0xef, 0xbb, 0xbf], type: 'text/plain; charset=utf-8' },
  { pattern: [0x00, 0x00, 0x01, 0x00], type: 'image/x-icon' },
  { pattern: [0x00, 0x00, 0x02, 0x00], type: 'image/x-icon' },
  { pattern: bytes('BM'), type: 'image/bmp' },
  { pattern: bytes('GIF87a'), type: 'image/gif' },
  { pattern: bytes('GIF89a'), type: 'image/gif' },
  {
    mask: [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
    pattern: [...bytes('RIFF'), 0, 0, 0, 0, ...bytes('WEBPVP')],
    type: 'image/webp',
  },
  { pattern: [0x89, ...bytes('PNG'), 0x0d, 0x0a, 0x1a, 0x0a], type: 'image/png' },
  { pattern: [0xff, 0xd8, 0xff], type: 'image/jpeg' },
  {
    mask: [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
    pattern: [...bytes('FORM'), 0, 0, 0, 0, ...bytes('AIFF')],
    type: 'audio/aiff',
  },
  { pattern: [0x49, 0x44, 0x33], type: 'audio/mpeg' },
  { pattern: [...bytes('OggS'), 0x00], type: 'application/ogg' },
  { pattern: [...bytes('MThd'), 0, 0, 0, 6], type: 'audio/midi' },
  {
    mask: [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
    pattern: [...bytes('RIFF'), 0, 0, 0, 0, ...bytes('AVI ')],
    type: 'video/avi',
  },
  {
    mask: [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
    pattern: [...bytes('RIFF'), 0, 0, 0, 0, ...bytes('WAVE')],
    type: 'audio/wave',
  },
  { pattern: [0x1a, 0x45, 0xdf, 0xa3], type: 'video/webm' },
  { pattern: bytes('wOFF'), type: 'font/woff' },
  { pattern: bytes('wOF2'), type: 'font/woff2' },
  { pattern: bytes('OTTO'), type: 'font/otf' },
  { pattern: [0x00, 0x01, 0x00, 0x00], type: 'font/ttf' },
  { pattern: bytes('ttcf'), type: 'font/collection' },
  { pattern: [0x1f, 0x8b, 0x08], type: 'application/x-gzip' },
  { pattern: [...bytes('PK'), 0x03, 0x04], type: 'application/zip' },
  { pattern: [...bytes('Rar!'), 0x1a, 0x07, 0x00], type: 'application/x-rar-compressed' },
  { pattern: [...bytes('Rar!'), 0x1a, 0x07, 0x01, 0x00], type: 'application/x-rar-compressed' },
  { pattern: [0x00, 0x61, 0x73, 0x6d], type: 'application/wasm' },
];

const HTML_TAGS = [
  '<!DOCTYPE HTML',
  '<HTML',
  '<HEAD',
  '<SCRIPT',
  '<IFRAME',
  '<H1',
  '<DIV',
  '<FONT',
  '<TABLE',
  '<A',
  '<STYLE',
  '<TITLE',
  '<B',
  '<BODY',
  '<BR',
  '<P',
  '<!--',
];

function isWhitespace(byte: number): boolean {
  return byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d || byte === 0x20;
}

function matches(data: Buffer, signature: Signature): boolean {
  if (data.length < signature.pattern.length) return false;
  return signature.pattern.every((byte, i) => (data[i] & (signature.mask?.[i] ?? 0xff)) === byte);
}

function isMp4(data: Buffer): boolean {
  if (data.length < 12) return false;
  const boxSize = data.readUInt32BE(0);
  if (data.length < boxSize || boxSize % 4 !== 0 || data.toString('latin1', 4, 8) !== 'ftyp') return false;
  for (let start = 8; start < boxSize; start += 4) {
    if (start === 12) continue; // the version number
    if (data.toString('latin1', start, start + 3) === 'mp4') return true;
  }
  return false;
}

function htmlOrXml(data: Buffer): string | null {
  let start = 0;
  while (start < data.length && isWhitespace(data[start])) start++;
  const rest = data.subarray(start);
  for (const tag of HTML_TAGS) {
    if (rest.length <= tag.length) continue;
    if (rest.toString('latin1', 0, tag.length).toUpperCase() !== tag) continue;
    const next = rest[tag.length];
    if (next === 0x20 || next === 0x3e) return 'text/html; charset=utf-8';
  }
  if (rest.toString('latin1', 0, 5) === '<?xml') return 'text/xml; charset=utf-8';
  return null;
}

/**
 * Go's `http.DetectContentType` (the WHATWG MIME sniffing algorithm) over the first 1024 bytes:
 * what Gitea's allowed-type check compares against. Text without binary bytes is
 * `text/plain; charset=utf-8`; anything else unknown is `application/octet-stream`.
 */
export function detectContentType(head: Buffer): string {
  const data = head.subarray(0, SNIFF_LENGTH);
  const markup = htmlOrXml(data);
  if (markup) return markup;
  for (const signature of SIGNATURES) if (matches(data, signature)) return signature.type;
  if (isMp4(data)) return 'video/mp4';
  const binary = data.some(
    (byte) =>
      byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f),
  );
  return binary ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}

/**
 * The MIME type recorded with a stored file (what workflow rules' FileMimeType check sees): the
 * format the bytes show (magic-bytes.js knows far more formats than the sniffing table), else what
 * the name says, else the sniffed type without parameters.
 */
export function storedMimeType(name: string, head: Buffer): string {
  const detected = filetypeinfo(new Uint8Array(head.subarray(0, SNIFF_LENGTH))).find(
    (info) => info.mime,
  )?.mime;
  if (detected) return detected;
  const byName = mime.lookup(name);
  if (byName) return byName;
  return detectContentType(head).split(';')[0];
}
