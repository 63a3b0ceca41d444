import express from 'express';
import { Readable } from 'node:stream';
import request from 'supertest';
import { sendBlobDownload } from '../../../src/api/download/blob-download';
import type { BlobReadResult, ByteRange } from '../../../src/platform/storage/blob-store';
import { BlobStore } from '../../../src/platform/storage/blob-store';

/**
 * A store that holds its blobs in memory and says so (`bytes`), as LocalBlobStore does for small blobs;
 * its streams fail when read, so a response that used them would fail.
 */
class InMemoryStore extends BlobStore {
  readonly driver = 'local' as const;
  constructor(readonly blobs: Map<string, Buffer>) {
    super();
  }
  put(): never {
    throw new Error('not used');
  }
  get(key: string, range?: ByteRange): Promise<BlobReadResult> {
    const data = this.blobs.get(key)!;
    const start = range?.start ?? 0;
    const end = range?.end ?? data.length - 1;
    const stream = new Readable({
      read() {
        this.destroy(new Error('the stream of an in-memory blob was read'));
      },
    });
    return Promise.resolve({
      stream,
      totalSize: data.length,
      start,
      end,
      bytes: data.subarray(start, end + 1),
    });
  }
  stat(): never {
    throw new Error('not used');
  }
  delete(): never {
    throw new Error('not used');
  }
}

function appFor(store: BlobStore, size: number, beforeBody?: () => Promise<void>): express.Express {
  const app = express();
  app.get('/file', (req, res, next) => {
    sendBlobDownload(store, req, res, {
      key: 'packages/aa/bb/one',
      etag: 'hash-one',
      size,
      fileName: 'file.bin',
      contentType: 'application/octet-stream',
      beforeBody,
    }).catch(next);
  });
  return app;
}

describe('sendBlobDownload of blobs the store holds in memory', () => {
  const bytes = Buffer.from('0123456789 small tarball bytes');
  const store = new InMemoryStore(new Map([['packages/aa/bb/one', bytes]]));

  it('writes the bytes at once, without reading the stream', async () => {
    const res = await request(appFor(store, bytes.length)).get('/file').buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(bytes.length));
    expect(res.headers.etag).toBe('"hash-one"');
    expect(Buffer.from(res.body as Buffer).equals(bytes)).toBe(true);
  });

  it('serves a range of them with 206', async () => {
    const res = await request(appFor(store, bytes.length))
      .get('/file')
      .set('Range', 'bytes=2-4')
      .buffer(true);
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 2-4/${bytes.length}`);
    expect(Buffer.from(res.body as Buffer).toString()).toBe('234');
  });

  it('answers HEAD and If-None-Match without a body', async () => {
    const head = await request(appFor(store, bytes.length)).head('/file');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(bytes.length));
    const cached = await request(appFor(store, bytes.length)).get('/file').set('If-None-Match', '"hash-one"');
    expect(cached.status).toBe(304);
  });

  it('awaits beforeBody before a 200 or 206 to a GET only, and sends nothing when it fails', async () => {
    const calls: string[] = [];
    const counting = (label: string) => () => {
      calls.push(label);
      return Promise.resolve();
    };
    await request(appFor(store, bytes.length, counting('200'))).get('/file');
    await request(appFor(store, bytes.length, counting('206')))
      .get('/file')
      .set('Range', 'bytes=0-1');
    await request(appFor(store, bytes.length, counting('head'))).head('/file');
    await request(appFor(store, bytes.length, counting('304')))
      .get('/file')
      .set('If-None-Match', '"hash-one"');
    expect(calls).toEqual(['200', '206']);
    const failed = await request(
      appFor(store, bytes.length, () => Promise.reject(new Error('no count'))),
    ).get('/file');
    expect(failed.status).toBe(500);
    expect(failed.text).not.toContain('small tarball bytes');
  });
});
