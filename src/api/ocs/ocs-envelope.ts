import type { Request } from 'express';

export interface OcsEnvelope {
  ocs: { meta: { status: 'ok' | 'failure'; statuscode: number; message: string }; data: unknown };
}

export function ocsEnvelope(
  status: 'ok' | 'failure',
  statuscode: number,
  message: string,
  data: unknown,
): OcsEnvelope {
  return { ocs: { meta: { status, statuscode, message }, data } };
}

/** OCS answers XML unless `?format=json` or an `Accept: application/json` header asks for JSON. */
export function ocsWantsJson(req: Request): boolean {
  const format = req.query.format;
  if (format === 'json') return true;
  if (format === 'xml') return false;
  return (req.headers.accept ?? '').includes('application/json');
}

function escapeXml(value: string): string {
  return value.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!,
  );
}

function xmlNode(name: string, value: unknown): string {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value)) {
    return value.length === 0
      ? `<${name}/>`
      : `<${name}>${value.map((item) => xmlNode('element', item)).join('')}</${name}>`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return `<${name}/>`;
    // Numeric keys (PHP arrays) become <element>, as Nextcloud's serializer does.
    return `<${name}>${entries.map(([key, item]) => xmlNode(/^\d/.test(key) ? 'element' : key, item)).join('')}</${name}>`;
  }
  if (typeof value === 'boolean') return `<${name}>${value ? 1 : ''}</${name}>`;
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

export function ocsToXml(envelope: OcsEnvelope): string {
  return `<?xml version="1.0"?>\n${xmlNode('ocs', envelope.ocs)}\n`;
}
