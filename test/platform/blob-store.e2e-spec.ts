import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { BadRequestError, NotFoundError, TooLargeError } from '../../src/platform/errors/domain-error';
import type { BlobStore } from '../../src/platform/storage/blob-store';
import { LocalBlobStore } from '../../src/platform/storage/local-blob-store';
import { RangeNotSatisfiableError } from '../../src/platform/storage/range';
import { S3BlobStore } from '../../src/platform/storage/s3-blob-store';

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

async function bytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * A source that yields `data` in small chunks, then fails with `error` if given (a client hanging up).
 * With `pauseAt` it stops for a moment after that many bytes (a receiver gets every byte sent so far).
 */
function source(data: Buffer, error?: Error, pauseAt?: number): Readable {
  const stream = new PassThrough();
  void (async () => {
    for (let offset = 0; offset < data.length; offset += 64 * 1024) {
      if (offset === pauseAt) await new Promise((resolve) => setTimeout(resolve, 300));
      if (!stream.write(data.subarray(offset, offset + 64 * 1024)))
        await new Promise((resolve) => stream.once('drain', resolve));
    }
    if (error) stream.destroy(error);
    else stream.end();
  })();
  return stream;
}

interface Driver {
  name: string;
  setup(): Promise<BlobStore>;
  teardown(): Promise<void>;
  /**
   * Temporary files left behind by failed uploads, where the driver can show them. s3rver does not
   * implement AbortMultipartUpload, so for S3 only the invisibility of failed uploads is asserted.
   */
  leftovers?(): Promise<number>;
  /**
   * s3rver writes a PutObject's body straight into the object's file and keeps what arrived when the
   * client aborts the request: an aborted streamed PUT leaves a truncated object (replacing one already
   * under the key). S3 never adds a partial object. For s3rver the test asserts what the store controls:
   * the PUT was aborted before the server had the announced bytes (whatever it kept is shorter).
   */
  keepsAbortedPut?: boolean;
}

let localRoot = '';
let s3Dir = '';
let s3Server: S3rver | undefined;
let s3Store: S3BlobStore | undefined;

const drivers: Driver[] = [
  {
    name: 'local',
    async setup() {
      localRoot = await mkdtemp(path.join(os.tmpdir(), 'devplane-blobs-'));
      return new LocalBlobStore(localRoot);
    },
    async teardown() {
      await rm(localRoot, { recursive: true, force: true });
    },
    async leftovers() {
      return (await readdir(path.join(localRoot, 'tmp')).catch(() => [])).length;
    },
  },
  {
    name: 's3 (s3rver)',
    keepsAbortedPut: true,
    async setup() {
      s3Dir = await mkdtemp(path.join(os.tmpdir(), 'devplane-s3-'));
      s3Server = new S3rver({
        address: '127.0.0.1',
        port: 0,
        silent: true,
        directory: s3Dir,
        configureBuckets: [{ name: 'blobs', configs: [] }],
      });
      const address = (await s3Server.run()) as AddressInfo;
      s3Store = new S3BlobStore({
        endpoint: `http://127.0.0.1:${address.port}`,
        bucket: 'blobs',
        accessKey: 'S3RVER',
        secretKey: 'S3RVER',
        region: 'us-east-1',
        prefix: 'contract/',
      });
      return s3Store;
    },
    async teardown() {
      s3Store?.close();
      await s3Server?.close();
      await rm(s3Dir, { recursive: true, force: true });
    },
  },
];

describe.each(drivers)('BlobStore contract: $name', (driver) => {
  let store: BlobStore;

  beforeAll(async () => {
    store = await driver.setup();
  });
  afterAll(async () => {
    await driver.teardown();
  });

  it('stores a stream and reports its size and sha256; get and stat return it', async () => {
    const data = randomBytes(300_000);
    const result = await store.put('a/b/first.bin', source(data));
    expect(result).toEqual({
      key: 'a/b/first.bin',
      size: data.length,
      sha256: sha256(data),
      digests: { sha256: sha256(data) },
    });
    const stat = await store.stat('a/b/first.bin');
    expect(stat?.size).toBe(data.length);
    const read = await store.get('a/b/first.bin');
    expect(read.totalSize).toBe(data.length);
    expect(sha256(await bytes(read.stream))).toBe(sha256(data));
  });

  it('stores a blob larger than one S3 part (multipart) intact', async () => {
    const data = randomBytes(19 * 1024 * 1024);
    // The digests of a large upload are computed by worker threads (ParallelHash), batch by batch.
    const result = await store.put('large.bin', source(data), { digests: ['md5', 'sha1', 'sha512'] });
    expect(result.size).toBe(data.length);
    expect(result.sha256).toBe(sha256(data));
    expect(result.digests).toEqual(
      Object.fromEntries(
        (['md5', 'sha1', 'sha256', 'sha512'] as const).map((a) => [
          a,
          createHash(a).update(data).digest('hex'),
        ]),
      ),
    );
    expect(sha256(await bytes((await store.get('large.bin')).stream))).toBe(sha256(data));
    if (driver.leftovers) expect(await driver.leftovers()).toBe(0);
  }, 120_000);

  it('stores and serves an empty blob', async () => {
    const result = await store.put('empty', Readable.from([]));
    const empty = sha256(Buffer.alloc(0));
    expect(result).toEqual({ key: 'empty', size: 0, sha256: empty, digests: { sha256: empty } });
    expect((await bytes((await store.get('empty')).stream)).length).toBe(0);
  });

  it('serves byte ranges and refuses unsatisfiable ones', async () => {
    await store.put('range.txt', Readable.from([Buffer.from('0123456789')]));
    const middle = await store.get('range.txt', { start: 2, end: 5 });
    expect([middle.start, middle.end, middle.totalSize]).toEqual([2, 5, 10]);
    expect(await text(middle.stream)).toBe('2345');
    const tail = await store.get('range.txt', { start: 7 });
    expect(await text(tail.stream)).toBe('789');
    const clipped = await store.get('range.txt', { start: 8, end: 100 });
    expect(await text(clipped.stream)).toBe('89');
    await expect(store.get('range.txt', { start: 10 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
  });

  it('refuses a blob over the limit while reading, leaves nothing, and keeps the previous blob under the key', async () => {
    await store.put('limited.bin', Readable.from([Buffer.from('old content')]));
    const data = randomBytes(12 * 1024 * 1024);
    await expect(
      store.put('limited.bin', source(data), { maxBytes: 9 * 1024 * 1024 }),
    ).rejects.toBeInstanceOf(TooLargeError);
    expect(await text((await store.get('limited.bin')).stream)).toBe('old content');
    await expect(store.put('never.bin', source(data), { maxBytes: 1024 })).rejects.toBeInstanceOf(
      TooLargeError,
    );
    expect(await store.stat('never.bin')).toBeNull();
    if (driver.leftovers) expect(await driver.leftovers()).toBe(0);
  }, 120_000);

  it('leaves nothing when the source fails mid-upload (a client that hangs up)', async () => {
    const data = randomBytes(10 * 1024 * 1024);
    await expect(store.put('aborted.bin', source(data, new Error('client went away')))).rejects.toThrow(
      'client went away',
    );
    expect(await store.stat('aborted.bin')).toBeNull();
    if (driver.leftovers) expect(await driver.leftovers()).toBe(0);
  }, 120_000);

  it('stores a body of announced size (expectedSize: one streamed PutObject on S3) byte for byte', async () => {
    const data = randomBytes(19 * 1024 * 1024 + 12_345);
    const result = await store.put('sized.bin', source(data), {
      expectedSize: data.length,
      maxBytes: data.length,
      digests: ['md5', 'sha1', 'sha512'],
    });
    expect(result.size).toBe(data.length);
    expect(result.digests).toEqual(
      Object.fromEntries(
        (['md5', 'sha1', 'sha256', 'sha512'] as const).map((a) => [
          a,
          createHash(a).update(data).digest('hex'),
        ]),
      ),
    );
    expect((await store.stat('sized.bin'))?.size).toBe(data.length);
    // Exactly the bytes sent: no transfer framing (aws-chunked) or checksum trailer stored with them.
    expect((await bytes((await store.get('sized.bin')).stream)).equals(data)).toBe(true);
    const small = Buffer.from('small and sized');
    await store.put('sized-small.txt', Readable.from([small]), { expectedSize: small.length });
    expect(await text((await store.get('sized-small.txt')).stream)).toBe('small and sized');
    await store.put('sized-empty', Readable.from([]), { expectedSize: 0 });
    expect((await store.stat('sized-empty'))?.size).toBe(0);
    if (driver.leftovers) expect(await driver.leftovers()).toBe(0);
  }, 120_000);

  it('refuses a body that ends short of its announced size or runs past it, and publishes nothing', async () => {
    const data = randomBytes(3 * 1024 * 1024);
    /** Nothing under the key, or (s3rver) only a truncated body of an aborted PUT. */
    const unpublished = async (key: string, announced: number) => {
      const stat = await store.stat(key);
      if (driver.keepsAbortedPut && stat) expect(stat.size).toBeLessThan(announced);
      else expect(stat).toBeNull();
    };
    await store.put('sized-kept.bin', Readable.from([Buffer.from('old content')]));
    await expect(
      store.put('sized-kept.bin', source(data), { expectedSize: data.length + 1000 }),
    ).rejects.toBeInstanceOf(BadRequestError);
    if (!driver.keepsAbortedPut)
      expect(await text((await store.get('sized-kept.bin')).stream)).toBe('old content');
    await expect(
      store.put('sized-short.bin', source(data), { expectedSize: data.length + 1 }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await unpublished('sized-short.bin', data.length + 1);
    // Long, with the announced size on a chunk boundary and a pause there: the chunk that completes it is
    // held back until the body has ended, so the receiver never has every announced byte of a body that
    // runs long (S3 would publish it once it had them).
    await expect(
      store.put('sized-long.bin', source(data, undefined, 16 * 64 * 1024), { expectedSize: 16 * 64 * 1024 }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await unpublished('sized-long.bin', 16 * 64 * 1024);
    await expect(
      store.put('sized-long2.bin', source(data), { expectedSize: data.length - 10 }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await unpublished('sized-long2.bin', data.length - 10);
    if (driver.leftovers) expect(await driver.leftovers()).toBe(0);
  }, 120_000);

  it('refuses an announced size over the limit at once, and publishes nothing', async () => {
    const data = randomBytes(2 * 1024 * 1024);
    await expect(
      store.put('sized-big.bin', source(data), { expectedSize: data.length, maxBytes: 1024 * 1024 }),
    ).rejects.toBeInstanceOf(TooLargeError);
    expect(await store.stat('sized-big.bin')).toBeNull();
    if (driver.leftovers) expect(await driver.leftovers()).toBe(0);
  });

  it('serves a small blob read before with its new content, its ranges, and not once deleted', async () => {
    await store.put('small.txt', Readable.from([Buffer.from('first version')]));
    expect(await text((await store.get('small.txt')).stream)).toBe('first version');
    expect(await text((await store.get('small.txt')).stream)).toBe('first version');
    await store.put('small.txt', Readable.from([Buffer.from('second version')]));
    expect(await text((await store.get('small.txt')).stream)).toBe('second version');
    const range = await store.get('small.txt', { start: 7, end: 13 });
    expect([range.start, range.end, range.totalSize]).toEqual([7, 13, 14]);
    expect(await text(range.stream)).toBe('version');
    await expect(store.get('small.txt', { start: 14 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    expect(await store.delete('small.txt')).toBe(true);
    await expect(store.get('small.txt')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('deletes, and answers for missing keys', async () => {
    await store.put('gone.txt', Readable.from([Buffer.from('x')]));
    expect(await store.delete('gone.txt')).toBe(true);
    expect(await store.delete('gone.txt')).toBe(false);
    expect(await store.stat('gone.txt')).toBeNull();
    await expect(store.get('gone.txt')).rejects.toBeInstanceOf(NotFoundError);
  });

  it.each(['../escape', 'a/../../b', '/absolute', 'a//b', '', 'sp ace', 'a/.hidden/../x'])(
    'refuses the key %p',
    async (key) => {
      await expect(store.put(key, Readable.from([Buffer.from('x')]))).rejects.toBeInstanceOf(BadRequestError);
      await expect(store.stat(key)).rejects.toBeInstanceOf(BadRequestError);
    },
  );
});
