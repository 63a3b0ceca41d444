import {
  daemonFilters,
  goDurationMs,
} from '../../../src/modules/workspaces/controllers/provisioners.controller';
import {
  daemonStatus,
  matchedProvisioners,
  PROVISIONER_STALE_MS,
} from '../../../src/modules/workspaces/provisioner-daemons.service';

describe('provisioner daemon registry rules', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  const ago = (ms: number) => new Date(now - ms);

  it('a daemon is offline past the stale interval, else busy with a running job, else idle', () => {
    expect(daemonStatus({ last_seen_at: ago(PROVISIONER_STALE_MS + 1), current_job: null }, now)).toBe(
      'offline',
    );
    const job = {
      id: 'j',
      status: 'running',
      template_name: '',
      template_display_name: '',
      template_icon: '',
    };
    expect(daemonStatus({ last_seen_at: ago(PROVISIONER_STALE_MS + 1), current_job: job }, now)).toBe(
      'offline',
    );
    expect(daemonStatus({ last_seen_at: ago(1000), current_job: job }, now)).toBe('busy');
    expect(daemonStatus({ last_seen_at: ago(1000), current_job: null }, now)).toBe('idle');
  });

  it("matched_provisioners counts fresh daemons, available the idle ones, most_recently_seen any (Coder's)", () => {
    expect(matchedProvisioners([], now)).toEqual({ count: 0, available: 0, most_recently_seen: null });
    expect(
      matchedProvisioners(
        [
          { last_seen_at: ago(PROVISIONER_STALE_MS * 2), busy: false },
          { last_seen_at: ago(5000), busy: true },
          { last_seen_at: ago(1000), busy: false },
        ],
        now,
      ),
    ).toEqual({ count: 2, available: 1, most_recently_seen: ago(1000).toISOString() });
    expect(matchedProvisioners([{ last_seen_at: ago(PROVISIONER_STALE_MS * 2), busy: false }], now)).toEqual({
      count: 0,
      available: 0,
      most_recently_seen: ago(PROVISIONER_STALE_MS * 2).toISOString(),
    });
  });

  it('Go durations', () => {
    expect(goDurationMs('90s')).toBe(90_000);
    expect(goDurationMs('1h30m')).toBe(5_400_000);
    expect(goDurationMs('250ms')).toBe(250);
    expect(goDurationMs('0')).toBe(0);
    expect(goDurationMs('soon')).toBeNull();
    expect(goDurationMs('5m!')).toBeNull();
  });

  it('the query: defaults, and every bad parameter named at once', () => {
    expect(daemonFilters({})).toEqual({
      limit: 50,
      ids: [],
      tags: undefined,
      statuses: [],
      offline: false,
      maxAgeMs: 0,
    });
    expect(
      daemonFilters({ tags: '{"site":"ci"}', status: 'idle,busy', offline: 'true', max_age: '24h' }),
    ).toMatchObject({
      tags: { site: 'ci' },
      statuses: ['idle', 'busy'],
      offline: true,
      maxAgeMs: 86_400_000,
    });
    try {
      daemonFilters({
        limit: '0',
        ids: 'x',
        tags: '[1]',
        status: 'asleep',
        offline: 'maybe',
        max_age: 'soon',
      });
      throw new Error('not refused');
    } catch (error) {
      const fields = (error as { fields: { field: string }[] }).fields.map((f) => f.field);
      expect(fields).toEqual(['limit', 'ids', 'tags', 'status', 'offline', 'max_age']);
    }
  });
});
