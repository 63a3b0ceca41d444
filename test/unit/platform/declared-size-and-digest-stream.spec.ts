import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Request } from 'express';
import { declaredBodySize } from '../../../src/api/body/request-body-stream';
import { digestStream, HASH_BATCH_BYTES } from '../../../src/platform/storage/parallel-hash';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as Request;

describe('declaredBodySize (the size a raw upload announces to the blob store)', () => {
  it('is the Content-Length of a body sent as is', () => {
    expect(declaredBodySize(request({ 'content-length': '209715200' }))).toBe(209715200);
    expect(declaredBodySize(request({ 'content-length': '0' }))).toBe(0);
    expect(declaredBodySize(request({ 'content-length': '12', 'content-encoding': 'identity' }))).toBe(12);
  });

  it('is unknown for an encoded or chunked body, or without a usable Content-Length', () => {
    expect(declaredBodySize(request({ 'content-length': '12', 'content-encoding': 'gzip' }))).toBeUndefined();
    expect(declaredBodySize(request({ 'transfer-encoding': 'chunked' }))).toBeUndefined();
    expect(declaredBodySize(request({}))).toBeUndefined();
    expect(declaredBodySize(request({ 'content-length': '-1' }))).toBeUndefined();
    expect(declaredBodySize(request({ 'content-length': '1e3' }))).toBeUndefined();
  });
});

describe('digestStream (a stored blob read back and hashed by the workers)', () => {
  it.each([
    ['small (hashed inline)', 1000],
    ['several batches', 3 * HASH_BATCH_BYTES + 17],
  ])('gives the digests of the whole stream: %s', async (_name, size) => {
    const data = randomBytes(size);
    const chunks = [];
    for (let offset = 0; offset < data.length; offset += 64 * 1024)
      chunks.push(data.subarray(offset, offset + 64 * 1024));
    expect(await digestStream(Readable.from(chunks), ['md5', 'sha1', 'sha512'])).toEqual({
      md5: createHash('md5').update(data).digest('hex'),
      sha1: createHash('sha1').update(data).digest('hex'),
      sha512: createHash('sha512').update(data).digest('hex'),
    });
  });

  it('fails with the stream', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('read failed'));
      },
    });
    await expect(digestStream(failing, ['md5'])).rejects.toThrow('read failed');
  });
});
