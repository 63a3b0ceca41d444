import { readyReport } from '../../../src/modules/system/readiness';

describe('system: the ready report', () => {
  it('leaves Redis out when no rate-limit store is configured', () => {
    expect(readyReport('absent')).toEqual({ status: 'ok', database: 'ok' });
    expect(readyReport('absent')).not.toHaveProperty('redis');
  });

  it('reports Redis up or down without making the server unready', () => {
    expect(readyReport('up')).toEqual({ status: 'ok', database: 'ok', redis: 'up' });
    expect(readyReport('down')).toEqual({ status: 'ok', database: 'ok', redis: 'down' });
  });
});
