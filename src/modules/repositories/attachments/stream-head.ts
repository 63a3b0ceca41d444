import { PassThrough, Readable } from 'node:stream';

/**
 * The first `length` bytes of a stream (fewer when it is shorter), and the stream to read the whole
 * body from: the source with the head put back (`unshift`), piped into a PassThrough so a consumer
 * that fails (a size limit) destroys only the PassThrough, never the request itself (destroying the
 * request would close the socket before the error answer goes out). Source errors and a source that
 * closes before its end fail the body.
 */
export function readHead(stream: Readable, length: number): Promise<{ head: Buffer; body: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const settle = (ended: boolean) => {
      cleanup();
      const all = Buffer.concat(chunks);
      const head = all.subarray(0, length);
      if (ended) {
        resolve({ head, body: Readable.from(all.length ? [all] : [], { objectMode: false }) });
        return;
      }
      if (all.length) stream.unshift(all);
      const body = new PassThrough();
      stream.once('error', (error) => body.destroy(error));
      stream.once('close', () => {
        if (!stream.readableEnded) body.destroy(new Error('The request body ended early.'));
      });
      stream.pipe(body);
      resolve({ head, body });
    };
    function onReadable(): void {
      let chunk: Buffer | null;
      while (size < length && (chunk = stream.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        size += chunk.length;
      }
      if (size >= length) settle(false);
    }
    function onEnd(): void {
      settle(true);
    }
    function onError(error: Error): void {
      cleanup();
      reject(error);
    }
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
