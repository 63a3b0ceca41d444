import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { LargeBodyGate } from '../../../src/api/body/large-body-gate';
import { UnavailableError } from '../../../src/platform/errors/domain-error';

function pair(): { req: Request & EventEmitter; res: Response & EventEmitter } {
  const req = Object.assign(new EventEmitter(), { complete: false }) as unknown as Request & EventEmitter;
  const headers: Record<string, string> = {};
  const res = Object.assign(new EventEmitter(), {
    headersSent: false,
    setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = value),
    getHeader: (name: string) => headers[name.toLowerCase()],
  }) as unknown as Response & EventEmitter;
  return { req, res };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('LargeBodyGate (issue #46.1): how many large bodies are in memory at once', () => {
  it('admits `slots` requests, queues the next, and hands a slot on when a response closes', async () => {
    const gate = new LargeBodyGate(2);
    const a = pair();
    const b = pair();
    const c = pair();
    await gate.enter(a.req, a.res);
    await gate.enter(b.req, b.res);
    expect(gate.inUse).toBe(2);
    let cEntered = false;
    const waiting = gate.enter(c.req, c.res).then(() => (cEntered = true));
    await flush();
    expect(cEntered).toBe(false);
    a.res.emit('close');
    await waiting;
    expect(cEntered).toBe(true);
    expect(gate.inUse).toBe(2);
    b.res.emit('close');
    c.res.emit('close');
    expect(gate.inUse).toBe(0);
  });

  it('a waiting client that goes away leaves the line with a 503 and takes no slot', async () => {
    const gate = new LargeBodyGate(1);
    const a = pair();
    const b = pair();
    await gate.enter(a.req, a.res);
    const waiting = gate.enter(b.req, b.res);
    b.req.emit('close');
    await expect(waiting).rejects.toBeInstanceOf(UnavailableError);
    expect(b.res.getHeader('Retry-After')).toBe('5');
    a.res.emit('close');
    expect(gate.inUse).toBe(0);
  });

  it('more than 64 waiting: the next is refused at once with 503', async () => {
    const gate = new LargeBodyGate(1);
    const holder = pair();
    await gate.enter(holder.req, holder.res);
    const line = Array.from({ length: 64 }, () => pair());
    const pending = line.map((p) => gate.enter(p.req, p.res).catch(() => 'refused'));
    const extra = pair();
    await expect(gate.enter(extra.req, extra.res)).rejects.toBeInstanceOf(UnavailableError);
    for (const p of line) p.req.emit('close');
    expect(await Promise.all(pending)).toEqual(line.map(() => 'refused'));
    holder.res.emit('close');
    expect(gate.inUse).toBe(0);
  });
});
