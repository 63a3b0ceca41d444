import { createHash, randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TooLargeError } from '../../../src/platform/errors/domain-error';
import { MeasuringStream } from '../../../src/platform/storage/measuring-stream';
import { HASH_BATCH_BYTES, ParallelHash } from '../../../src/platform/storage/parallel-hash';

const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const;

function expected(data: Buffer): Record<string, string> {
  return Object.fromEntries(ALGORITHMS.map((a) => [a, createHash(a).update(data).digest('hex')]));
}

/** Feeds `data` in chunks of `size` bytes, waiting whenever update asks to. */
async function feed(hash: ParallelHash, data: Buffer, size: number): Promise<void> {
  for (let offset = 0; offset < data.length; offset += size)
    await hash.update(data.subarray(offset, offset + size));
}

describe('ParallelHash (digests computed by worker threads)', () => {
  it.each([
    ['empty', 0, 1000],
    ['within the first batch (hashed inline)', 1000, 333],
    ['exactly one batch', HASH_BATCH_BYTES, 64 * 1024],
    [
      'many batches in 64 KiB chunks, more than the batches in flight',
      9 * HASH_BATCH_BYTES + 12345,
      64 * 1024,
    ],
    ['chunks larger than all the batches together', 11 * HASH_BATCH_BYTES + 7, 5 * HASH_BATCH_BYTES + 3],
    ['odd chunk sizes across batch borders', 3 * HASH_BATCH_BYTES + 1, 65_537],
  ])('%s: the four digests equal node:crypto run on the whole', async (_name, length, chunk) => {
    const data = randomBytes(length);
    const hash = new ParallelHash([...ALGORITHMS]);
    await feed(hash, data, chunk);
    expect(await hash.digest()).toEqual(expected(data));
  });

  it('streams hashed at the same time on the shared workers keep their own digests', async () => {
    const inputs = Array.from({ length: 5 }, (_, i) => randomBytes(2 * HASH_BATCH_BYTES + i * 99_999));
    const results = await Promise.all(
      inputs.map(async (data, i) => {
        const hash = new ParallelHash(i % 2 ? ['sha256'] : [...ALGORITHMS]);
        await feed(hash, data, 50_000 + i);
        return hash.digest();
      }),
    );
    results.forEach((digests, i) => {
      const all = expected(inputs[i]!);
      expect(digests).toEqual(i % 2 ? { sha256: all.sha256 } : all);
    });
  });

  it('an aborted stream does not disturb the next one', async () => {
    const aborted = new ParallelHash([...ALGORITHMS]);
    await feed(aborted, randomBytes(3 * HASH_BATCH_BYTES), 64 * 1024);
    aborted.abort();
    const data = randomBytes(2 * HASH_BATCH_BYTES + 5);
    const hash = new ParallelHash([...ALGORITHMS]);
    await feed(hash, data, 64 * 1024);
    expect(await hash.digest()).toEqual(expected(data));
  });
});

describe('MeasuringStream', () => {
  it('passes every byte on in order and measures size and digests', async () => {
    const data = randomBytes(6 * HASH_BATCH_BYTES + 4321);
    const measure = new MeasuringStream(undefined, ['md5', 'sha1', 'sha512']);
    const out: Buffer[] = [];
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => out.push(chunk));
    const chunks = Array.from({ length: Math.ceil(data.length / 70_000) }, (_, i) =>
      data.subarray(i * 70_000, (i + 1) * 70_000),
    );
    await pipeline(Readable.from(chunks), measure, sink);
    expect(Buffer.concat(out).equals(data)).toBe(true);
    expect(measure.size).toBe(data.length);
    expect(measure.digests).toEqual(expected(data));
    expect(measure.sha256).toBe(expected(data).sha256);
  });

  it('fails with TooLargeError past the limit', async () => {
    const measure = new MeasuringStream(3 * HASH_BATCH_BYTES);
    const data = randomBytes(5 * HASH_BATCH_BYTES);
    const chunks = Array.from({ length: 80 }, (_, i) => data.subarray(i * 65_536, (i + 1) * 65_536));
    await expect(pipeline(Readable.from(chunks), measure, new PassThrough().resume())).rejects.toBeInstanceOf(
      TooLargeError,
    );
    expect(() => measure.digests).toThrow();
  });
});
