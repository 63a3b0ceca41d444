import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { readHead } from '../../../src/modules/repositories/attachments/stream-head';

describe('readHead', () => {
  it('returns the first bytes and a body that still holds every byte', async () => {
    const source = Readable.from([Buffer.from('abc'), Buffer.from('defgh'), Buffer.from('ijk')], {
      objectMode: false,
    });
    const { head, body } = await readHead(source, 5);
    expect(head.toString()).toBe('abcde');
    expect(await text(body)).toBe('abcdefghijk');
  });

  it('returns a short stream whole as its head', async () => {
    const { head, body } = await readHead(Readable.from([Buffer.from('xy')], { objectMode: false }), 1024);
    expect(head.toString()).toBe('xy');
    expect(await text(body)).toBe('xy');
  });

  it('returns an empty head and body for an empty stream', async () => {
    const { head, body } = await readHead(Readable.from([], { objectMode: false }), 1024);
    expect(head.length).toBe(0);
    expect(await text(body)).toBe('');
  });

  it('fails the body when the source errors after the head', async () => {
    const source = new PassThrough();
    source.write(Buffer.alloc(10, 1));
    const { head, body } = await readHead(source, 4);
    expect(head.length).toBe(4);
    const reading = text(body);
    source.destroy(new Error('client went away'));
    await expect(reading).rejects.toThrow('client went away');
  });

  it('leaves the source alive when the body is destroyed (the caller still answers on its socket)', async () => {
    const source = new PassThrough();
    source.write(Buffer.alloc(10, 1));
    const { body } = await readHead(source, 4);
    const failures: string[] = [];
    body.on('error', (error) => failures.push(error.message)); // as pipeline() listens
    body.destroy(new Error('too large'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(failures).toEqual(['too large']);
    expect(source.destroyed).toBe(false);
  });

  it('rejects when the source fails before the head is complete', async () => {
    const source = new PassThrough();
    const pending = readHead(source, 4);
    source.destroy(new Error('broken'));
    await expect(pending).rejects.toThrow('broken');
  });
});
