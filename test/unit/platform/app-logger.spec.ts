import { Writable } from 'node:stream';
import pino from 'pino';
import { AppLogger } from '../../../src/platform/logging/app-logger';

function capture(level = 'info'): { logger: AppLogger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = new AppLogger(pino({ level }, sink));
  return {
    logger,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('AppLogger (Nest logger over pino)', () => {
  it('writes the message with its context and level', () => {
    const { logger, lines } = capture();
    logger.log('started', 'Bootstrap');
    logger.warn('careful', 'Jobs');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 30, context: 'Bootstrap', msg: 'started' }),
      expect.objectContaining({ level: 40, context: 'Jobs', msg: 'careful' }),
    ]);
  });

  it("takes Nest's error(message, stack, context) and Error objects", () => {
    const { logger, lines } = capture();
    logger.error('failed', 'Error: failed\n    at x', 'Runner');
    logger.error(new Error('boom'), 'Runner');
    const [first, second] = lines();
    expect(first).toMatchObject({
      level: 50,
      context: 'Runner',
      msg: 'failed',
      stack: 'Error: failed\n    at x',
    });
    expect(second).toMatchObject({ level: 50, context: 'Runner', msg: 'boom', err: { message: 'boom' } });
  });

  it('merges object messages and skips levels below the configured one', () => {
    const { logger, lines } = capture('warn');
    logger.log('not written', 'X');
    logger.debug('not written', 'X');
    logger.warn({ msg: 'queued', jobs: 3 }, 'Queue');
    expect(lines()).toEqual([expect.objectContaining({ context: 'Queue', msg: 'queued', jobs: 3 })]);
  });
});
