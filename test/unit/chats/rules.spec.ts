import { ConfigError } from '../../../src/platform/config/app-config';
import { acquireBatchSize, loadChatsConfig, maxSteps } from '../../../src/modules/chats/chats.config';
import { touchedPathsOf } from '../../../src/modules/chats/chats.service';

describe('chats: the paths a chat touched (what the git watch scans)', () => {
  it("file tools' paths, each once, sorted; a command touches everything (.)", () => {
    expect(
      touchedPathsOf([
        { name: 'write_file', arguments: '{"path":"src/b.ts","content":"x"}' },
        { name: 'read_file', arguments: '{"path":"README.md"}' },
        { name: 'write_file', arguments: '{"path":"src/b.ts","content":"y"}' },
      ]),
    ).toEqual(['README.md', 'src/b.ts']);
    expect(touchedPathsOf([{ name: 'run_command', arguments: '{"command":"make"}' }])).toEqual(['.']);
  });

  it('arguments that are not JSON, or without a path, touch nothing', () => {
    expect(
      touchedPathsOf([
        { name: 'read_file', arguments: '{"path":' },
        { name: 'list_directory', arguments: null },
        { name: 'read_file', arguments: '{"path":""}' },
        { name: 'read_file', arguments: '{"path":7}' },
        { name: 'read_file', arguments: 'null' },
      ]),
    ).toEqual([]);
  });
});

describe('chats: settings', () => {
  it.each([
    [undefined, 10],
    ['', 10],
    ['  ', 10],
    ['abc', 10],
    ['0', 1],
    ['-5', 1],
    ['7.9', 7],
    ['1e3', 1000],
    ['99999999999', 2_147_483_647],
  ])('CHAT_ACQUIRE_BATCH_SIZE %p is %p', (raw, expected) => {
    expect(acquireBatchSize(raw)).toBe(expected);
  });

  it.each([
    [undefined, 10],
    ['abc', 10],
    ['0', 10],
    ['-3', 1],
    ['3', 3],
    ['12steps', 12],
    ['500', 50],
  ])('CHAT_MAX_STEPS %p is %p', (raw, expected) => {
    expect(maxSteps(raw)).toBe(expected);
  });

  it('defaults; the runner is off only for CHAT_RUNNER_ENABLED=false', () => {
    expect(loadChatsConfig({})).toEqual({
      maxSteps: 10,
      acquireBatchSize: 10,
      runnerEnabled: true,
      retentionDays: 60,
      gitWatchPollMs: 30_000,
      watchPollMs: 1_000,
    });
    expect(loadChatsConfig({ CHAT_RUNNER_ENABLED: 'false' }).runnerEnabled).toBe(false);
    expect(loadChatsConfig({ CHAT_RUNNER_ENABLED: '0' }).runnerEnabled).toBe(true);
  });

  it('a retention period or poll interval out of range fails at boot', () => {
    expect(() => loadChatsConfig({ CHAT_RETENTION_DAYS: '-1' })).toThrow(ConfigError);
    expect(() => loadChatsConfig({ CHAT_RETENTION_DAYS: 'forever' })).toThrow(ConfigError);
    expect(() => loadChatsConfig({ CHAT_GIT_WATCH_POLL_MS: '50' })).toThrow(ConfigError);
    expect(loadChatsConfig({ CHAT_RETENTION_DAYS: '0' }).retentionDays).toBe(0);
  });
});
