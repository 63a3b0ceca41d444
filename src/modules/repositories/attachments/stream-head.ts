import { Readable } from 'node:stream';

export async function readHead(stream: Readable, length: number): Promise<{ head: Buffer; body: Readable }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < length) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    chunks.push(next.value);
    size += next.value.length;
  }
  const all = Buffer.concat(chunks);
  async function* replay(): AsyncGenerator<Buffer> {
    if (all.length) yield all;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head: all.subarray(0, length), body: Readable.from(replay(), { objectMode: false }) };
}
