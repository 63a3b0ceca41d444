import express from 'express';
import { Readable } from 'node:stream';
import request from 'supertest';
import { SMALL_BLOB_BYTES, sendBlobDownload } from '../../src/api/download/blob-download';
import type { BlobReadResult, ByteRange } from '../../src/platform/storage/blob-store';
import { BlobStore } from '../../src/platform/storage/blob-store';

/** A store in memory that counts its reads. */
class CountingStore extends BlobStore {
  readonly driver = 'local' as const;
  reads = 0;
  constructor(readonly blobs: Map<string, Buffer>) {
    super();
  }
  put(): never {
    throw new Error('not used');
  }
  get(key: string, range?: ByteRange): Promise<BlobReadResult> {
    this.reads++;
    const bytes = this.blobs.get(key)!;
    const start = range?.start ?? 0;
    const end = range?.end ?? bytes.length - 1;
    return Promise.resolve({
      stream: Readable.from([bytes.subarray(start, end + 1)]),
      totalSize: bytes.length,
      start,
      end,
    });
  }
  stat(): never {
    throw new Error('not used');
  }
  delete(): never {
    throw new Error('not used');
  }
}

function appFor(store: BlobStore, file: { key: string; etag: string; size: number }): express.Express {
  const app = express();
  app.get('/file', (req, res, next) => {
    sendBlobDownload(store, req, res, {
      ...file,
      fileName: 'file.bin',
      contentType: 'application/octet-stream',
    }).catch(next);
  });
  return app;
}

describe('sendBlobDownload of small files', () => {
  it('reads a small blob once and serves it from memory afterwards', async () => {
    const bytes = Buffer.from('small tarball bytes');
    const store = new CountingStore(new Map([['packages/aa/bb/one', bytes]]));
    const app = appFor(store, { key: 'packages/aa/bb/one', etag: 'hash-one', size: bytes.length });
    for (let i = 0; i < 3; i++) {
      const res = await request(app).get('/file').buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-length']).toBe(String(bytes.length));
      expect(Buffer.from(res.body as Buffer).equals(bytes)).toBe(true);
    }
    expect(store.reads).toBe(1);
  });

  it('reads again when the row names other content under the same key', async () => {
    const store = new CountingStore(new Map([['packages/aa/bb/two', Buffer.from('first')]]));
    await request(appFor(store, { key: 'packages/aa/bb/two', etag: 'hash-a', size: 5 })).get('/file');
    store.blobs.set('packages/aa/bb/two', Buffer.from('second'));
    const res = await request(appFor(store, { key: 'packages/aa/bb/two', etag: 'hash-b', size: 6 }))
      .get('/file')
      .buffer(true);
    expect(Buffer.from(res.body as Buffer).toString()).toBe('second');
    expect(store.reads).toBe(2);
  });

  it('streams ranges and files above the limit from the store every time', async () => {
    const big = Buffer.alloc(SMALL_BLOB_BYTES + 1, 7);
    const store = new CountingStore(
      new Map([
        ['big', big],
        ['small', Buffer.from('0123456789')],
      ]),
    );
    const bigApp = appFor(store, { key: 'big', etag: 'hash-big', size: big.length });
    await request(bigApp).get('/file');
    await request(bigApp).get('/file');
    const smallApp = appFor(store, { key: 'small', etag: 'hash-small', size: 10 });
    const ranged = await request(smallApp).get('/file').set('Range', 'bytes=2-4').buffer(true);
    expect(ranged.status).toBe(206);
    expect(Buffer.from(ranged.body as Buffer).toString()).toBe('234');
    expect(store.reads).toBe(3);
  });
});
