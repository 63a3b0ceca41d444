import type { Request, Response } from 'express';
import { wellFormedStrings } from '../../../src/api/well-formed-strings';

describe('lone surrogates in JSON bodies', () => {
  const run = (body: unknown): unknown => {
    const req = { body } as Request;
    let called = false;
    wellFormedStrings()(req, {} as Response, () => (called = true));
    expect(called).toBe(true);
    return req.body;
  };

  it.each<[string, unknown, unknown]>([
    ['a string value', { name: 'a\ud800b' }, { name: 'a\ufffdb' }],
    ['a low surrogate alone', { name: '\udc00' }, { name: '\ufffd' }],
    ['nested arrays and objects', { a: [{ b: ['x\udfff'] }] }, { a: [{ b: ['x\ufffd'] }] }],
    ['a key', { 'k\ud800': 1 }, { 'k\ufffd': 1 }],
    ['a top-level array', ['\ud800'], ['\ufffd']],
    ['a valid pair untouched', { emoji: '😀' }, { emoji: '😀' }],
    ['numbers, booleans, null untouched', { n: 1, b: true, z: null }, { n: 1, b: true, z: null }],
  ])('%s', (_name, body, expected) => {
    expect(run(body)).toEqual(expected);
  });

  it('leaves non-object bodies alone', () => {
    expect(run(undefined)).toBeUndefined();
    expect(run('text\ud800')).toBe('text\ud800');
  });
});
