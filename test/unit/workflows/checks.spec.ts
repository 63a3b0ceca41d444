import { CHECKS, CHECKS_BY_ID } from '../../../src/modules/workflows/checks/check-registry';
import type { CheckSubject } from '../../../src/modules/workflows/checks/check.types';
import { parseFileSize } from '../../../src/modules/workflows/checks/file-size.check';
import type { RequestSnapshot } from '../../../src/platform/events/subject-events';

/** Table-driven tests of every check and operator (reference §5; the research brief's rows). */
const C = (name: string) => {
  const definition = CHECKS_BY_ID.get(`OCA\\WorkflowEngine\\Check\\${name}`);
  if (!definition) throw new Error(name);
  return definition;
};
/** Every (check, operator) evaluated by a table below; the last test proves each one has rows. */
const covered = new Set<string>();
const compile = (name: string, operator: string, value: string) => {
  covered.add(`${name} ${operator}`);
  return C(name).compile(operator, value);
};
const deps = {
  groupExists: async (g: string) => ['acme', 'acme/devs', 'acme/ops', 'admin'].includes(g.toLowerCase()),
};

function subject(
  partial: Omit<Partial<CheckSubject>, 'request'> & { request?: Partial<RequestSnapshot> | null } = {},
): CheckSubject {
  const { request, ...rest } = partial;
  return {
    entity: 'OCA\\WorkflowEngine\\Entity\\File',
    actorUserId: '1',
    now: Math.floor(Date.now() / 1000),
    ...rest,
    request:
      request === null
        ? null
        : { remoteAddress: null, userAgent: null, url: null, method: 'GET', ...(request ?? {}) },
  };
}

async function expectValid(name: string, operator: string, value: string): Promise<void> {
  await expect(
    Promise.resolve().then(() => C(name).validate(operator, value, deps)),
  ).resolves.toBeUndefined();
}
async function expectInvalid(name: string, operator: string, value: string, message: string): Promise<void> {
  await expect(Promise.resolve().then(() => C(name).validate(operator, value, deps))).rejects.toThrow(
    message,
  );
}

const file = (name: string, mimeType: string | null = null, size: number | null = null) =>
  subject({ file: { name, mimeType, size } });

describe('FileName', () => {
  it.each([
    ['Report.PDF', 'is', 'report.pdf', true],
    ['report.pdf', '!is', 'REPORT.PDF', false],
    ['report.pdf', '!is', 'other.pdf', true],
    ['Report.PDF', 'matches', '/\\.pdf$/', false],
    ['Report.PDF', 'matches', '/\\.pdf$/i', true],
    ['Report.PDF', 'match', '/\\.pdf$/i', true],
    ['Report.PDF', '!match', '/\\.pdf$/i', false],
    ['Report.PDF', '!matches', '/\\.doc$/i', true],
    ['x.bat', 'matches', '#\\.(exe|bat)$#', true],
    ['a{b}.txt', 'matches', '{a\\{b\\}}', true],
    ['', 'is', '', true],
    ['setup.exe\n', 'matches', '/\\.exe$/', true],
    ['setup.exe\n', 'matches', '/\\.exe$/D', false],
    ['ab-c', 'matches', '/^ab\\-c$/', true],
  ])('%j %s %j → %s', (name, operator, value, expected) => {
    expect(compile('FileName', operator, value)(file(name))).toBe(expected);
  });

  it('without a file every positive operator is false', () => {
    expect(compile('FileName', 'is', '')(subject())).toBe(false);
    expect(compile('FileName', 'matches', '/.*/')(subject())).toBe(false);
  });

  it.each([
    ['less', 'x', 'The given operator is invalid'],
    ['matches', 'abc', 'The given regular expression is invalid'],
    ['matches', '/x/g', 'The given regular expression is invalid'],
    ['matches', '/(/', 'The given regular expression is invalid'],
    ['matches', '/x', 'The given regular expression is invalid'],
    ['!match', '/a++/', 'The given regular expression is invalid'],
    ['matches', '/(?>a)/', 'The given regular expression is invalid'],
    ['matches', '/(?R)/', 'The given regular expression is invalid'],
    ['matches', '/a\\Kb/', 'The given regular expression is invalid'],
    ['matches', '', 'The given regular expression is invalid'],
    [
      'matches',
      '/(?P<n>a)(?P=n)/',
      'The given regular expression is not supported: back-references cannot run in linear time (devplane runs regular expressions on RE2)',
    ],
    [
      'matches',
      '/a(?=b)/',
      'The given regular expression is not supported: look-around assertions cannot run in linear time (devplane runs regular expressions on RE2)',
    ],
  ])('invalid: %s %j', async (operator, value, message) => {
    await expectInvalid('FileName', operator, value, message);
  });

  it.each([
    ['matches', ' /x/ i'],
    ['match', '/x/'],
    ['is', ''],
    ['!is', 'anything'],
    ['matches', '/^[[:alpha:]]+\\d{2,}$/x'],
    ['matches', '(a(b)c)'],
    ['matches', '/(?P<n>a)(?P<m>b)/'],
    ['matches', '/\\Aab\\z/'],
  ])('valid: %s %j', async (operator, value) => {
    await expectValid('FileName', operator, value);
  });
});

describe('FileMimeType', () => {
  const preset = '/(vnd\\.(ms-|openxmlformats-|oasis\\.opendocument).*)$/';
  it.each([
    ['a.png', 'image/png', 'matches', '/image\\/.*/', true],
    ['a.odt', 'application/vnd.oasis.opendocument.text', 'matches', preset, true],
    ['a.pdf', 'application/pdf', '!is', 'application/pdf', false],
    ['a.pdf', 'application/pdf', 'is', 'application/pdf', true],
    ['a.pdf', 'Application/PDF', 'is', 'application/pdf', true],
    ['a.pdf', null, 'is', 'application/pdf', true],
    ['a.pdf', 'application/octet-stream', 'is', 'application/pdf', true],
    ['blob', null, 'is', 'application/octet-stream', true],
    ['a.png', 'image/png', '!matches', '/image\\/.*/', false],
    ['a.pdf', 'application/pdf', '!matches', '/image\\/.*/', true],
    ['a.png', 'image/png', 'match', '/^IMAGE\\//i', true],
    ['a.png', 'image/png', '!match', '/^image\\//', false],
    ['a.txt', 'text/plain; charset=utf-8', 'is', 'text/plain', true],
    ['a.txt', 'text/plain', '!is', 'text/html', true],
  ])('%s (%s) %s %j → %s', (name, mime, operator, value, expected) => {
    expect(compile('FileMimeType', operator, value)(file(name, mime))).toBe(expected);
  });
});

describe('FileSize', () => {
  it.each([
    [1023, 'less', '1 KB', true],
    [1024, 'less', '1kb', false],
    [1024, '!less', '1 kB', true],
    [1025, 'greater', '1 KB', true],
    [1024, '!greater', '1 KB', true],
    [5242880, 'greater', '5 MB', false],
    [5242881, 'greater', '5mb', true],
    [100, '!greater', '100b', true],
    [2147483648, 'less', '1 GB', false],
    [2 * 1024 ** 4, 'greater', '1 TB', true],
  ])('%d %s %j → %s', (size, operator, value, expected) => {
    expect(compile('FileSize', operator, value)(file('x', null, size))).toBe(expected);
  });

  it.each(['less', '!less', 'greater', '!greater'])('no size → %s is false', (operator) => {
    expect(compile('FileSize', operator, '1 KB')(file('x'))).toBe(false);
    expect(compile('FileSize', operator, '1 KB')(subject())).toBe(false);
  });

  it('falls back to the declared upload size of the request', () => {
    expect(compile('FileSize', 'greater', '1 KB')(subject({ request: { declaredSize: 4096 } }))).toBe(true);
  });

  it.each(['5M', '1.5 MB', '5 MiB', '5  MB', ' 5 MB', '5 PB', 'MB', ''])(
    'invalid value %j',
    async (value) => {
      await expectInvalid('FileSize', 'less', value, 'The given file size is invalid');
    },
  );
  it.each(['5 B', '0b', '10TB'])('valid value %j', async (value) => {
    await expectValid('FileSize', 'less', value);
  });
  it('operator is checked before the value', async () => {
    await expectInvalid('FileSize', 'is', 'nonsense', 'The given operator is invalid');
  });
  it('parses 1024-based units', () => {
    expect(parseFileSize('1 KB')).toBe(1024);
    expect(parseFileSize('3mb')).toBe(3 * 1024 ** 2);
    expect(parseFileSize('2 Gb')).toBe(2 * 1024 ** 3);
  });
});

describe('RequestRemoteAddress', () => {
  it.each([
    ['127.0.0.0', 'matchesIPv4', '127.0.0.1/31', true],
    ['127.0.0.2', 'matchesIPv4', '127.0.0.1/31', false],
    ['127.0.0.1', '!matchesIPv4', '127.0.0.1/31', false],
    ['::ffff:10.1.2.3', 'matchesIPv4', '10.0.0.0/8', true],
    ['::3', 'matchesIPv6', '::2/127', true],
    ['1234::', 'matchesIPv6', '1234::1/127', true],
    ['::1', 'matchesIPv4', '127.0.0.1/8', false],
    ['::1', '!matchesIPv4', '127.0.0.1/8', true],
    ['192.168.1.1', 'matchesIPv4', '192.168.1.1/32', true],
    ['10.0.0.1', 'matchesIPv6', '::ffff:10.0.0.0/104', true],
    ['2001:db8::5', '!matchesIPv6', '2001:db8::/32', false],
  ])('%s %s %s → %s', (address, operator, value, expected) => {
    expect(
      compile('RequestRemoteAddress', operator, value)(subject({ request: { remoteAddress: address } })),
    ).toBe(expected);
  });

  it('without an address: positive operators false, negated true', () => {
    expect(compile('RequestRemoteAddress', 'matchesIPv4', '10.0.0.0/8')(subject({ request: null }))).toBe(
      false,
    );
    expect(compile('RequestRemoteAddress', '!matchesIPv4', '10.0.0.0/8')(subject({ request: null }))).toBe(
      true,
    );
  });

  it.each([
    ['matchesIPv4', '127.0.0.1', 'The given IP range is invalid'],
    ['matchesIPv4', '1.2.3.4/8/9', 'The given IP range is invalid'],
    ['matchesIPv4', '1.2.3/8', 'The given IP range is not valid for IPv4'],
    ['matchesIPv4', '01.2.3.4/8', 'The given IP range is not valid for IPv4'],
    ['matchesIPv4', '1.2.3.4/0', 'The given IP range is not valid for IPv4'],
    ['matchesIPv4', '1.2.3.4/33', 'The given IP range is not valid for IPv4'],
    ['!matchesIPv4', '::1/64', 'The given IP range is not valid for IPv4'],
    ['matchesIPv6', '1.2.3.4/8', 'The given IP range is not valid for IPv6'],
    ['matchesIPv6', '::1/129', 'The given IP range is not valid for IPv6'],
    ['matchesIPv6', '::1/0', 'The given IP range is not valid for IPv6'],
    ['matchesIPv6', 'fe80::1%eth0/64', 'The given IP range is not valid for IPv6'],
    ['is', '1.2.3.4/8', 'The given operator is invalid'],
  ])('invalid: %s %s', async (operator, value, message) => {
    await expectInvalid('RequestRemoteAddress', operator, value, message);
  });
});

describe('RequestTime', () => {
  const V1 = '["08:00 Europe/Berlin","17:00 Europe/Berlin"]';
  const V2 = '["17:00 Europe/Berlin","08:00 Europe/Berlin"]';
  const V3 = '["22:00 Europe/Berlin","06:00 Europe/Berlin"]';
  const at = (iso: string) => subject({ now: Date.parse(iso) / 1000 });
  it.each([
    ['2024-01-15T06:41:00Z', V1, 'in', false],
    ['2024-01-15T07:41:00Z', V1, 'in', true],
    ['2024-01-15T15:41:00Z', V1, 'in', true],
    ['2024-01-15T16:00:00Z', V1, 'in', true],
    ['2024-01-15T16:00:30Z', V1, 'in', false],
    ['2024-01-15T06:41:00Z', V2, 'in', true],
    ['2024-01-15T15:41:00Z', V2, '!in', true],
    ['2024-01-15T22:30:00Z', V3, 'in', true],
    ['2024-01-15T04:00:00Z', V3, 'in', true],
    ['2024-01-15T11:00:00Z', V3, 'in', false],
    ['2024-01-15T11:00:00Z', V3, '!in', true],
    ['2024-07-15T06:30:00Z', V1, 'in', true],
    ['2024-07-15T06:30:00Z', '["08:00 America/New_York","17:00 America/New_York"]', 'in', false],
    ['2024-03-02T12:00:00Z', '["10:00 Europe/Berlin","10:00 Europe/Berlin"]', 'in', true],
  ])('%s %s %s → %s', (now, value, operator, expected) => {
    expect(compile('RequestTime', operator, value)(at(now))).toBe(expected);
  });

  it.each([
    ['["8:00 Europe/Berlin","17:00 Europe/Berlin"]', 'The given time span is invalid'],
    ['["08:00 UTC","17:00 UTC"]', 'The given time span is invalid'],
    ['["08:00 Europe/Berlin", "17:00 Europe/Berlin"]', 'The given time span is invalid'],
    ['["24:00 Europe/Berlin","17:00 Europe/Berlin"]', 'The given time span is invalid'],
    ['["08:00 Europe\\/Berlin","17:00 Europe/Berlin"]', 'The given time span is invalid'],
    ['["08:00 Europe/Berlin"]', 'The given time span is invalid'],
    ['["08:00 Mars/Olympus","17:00 Europe/Berlin"]', 'The given start time is invalid'],
    ['["08:00 Europe/Berlin","17:00 Mars/Olympus"]', 'The given end time is invalid'],
  ])('invalid %s', async (value, message) => {
    await expectInvalid('RequestTime', 'in', value, message);
  });
  it.each([
    '["08:00 America/Argentina/Buenos_Aires","17:00 America/Argentina/Buenos_Aires"]',
    '["08:00 US/Eastern","17:00 Asia/Calcutta"]',
    '["08:00 europe/berlin","17:00 Europe/Berlin"]',
  ])('valid %s', async (value) => {
    await expectValid('RequestTime', '!in', value);
  });
  it('operator', async () => {
    await expectInvalid(
      'RequestTime',
      'is',
      '["08:00 Europe/Berlin","17:00 Europe/Berlin"]',
      'The given operator is invalid',
    );
  });
});

describe('RequestURL', () => {
  it.each([
    [{ url: 'https://h/api/v1/repos/a/b' }, 'is', 'https://h/api/v1/repos/a/b', true],
    [null, 'is', 'cli', true],
    [null, '!is', 'cli', false],
    [{ url: 'https://h/api/packages/acme/npm/x', fileTransfer: true }, 'is', 'webdav', true],
    [{ url: 'https://h/api/v1/user', fileTransfer: false }, 'is', 'webdav', false],
    [{ url: 'https://h/api/v1/user', fileTransfer: false }, '!is', 'webdav', true],
    [null, 'is', 'webdav', false],
    [{ url: 'https://h/api/packages/acme/generic/x/1/f.bin' }, 'is', 'webdav', true],
    [{ url: 'https://h/acme/app.git/git-upload-pack' }, 'is', 'webdav', true],
    [{ url: 'https://h/api/v1/repos/a/b' }, 'is', 'webdav', false],
    [{ url: 'https://h/acme/app.git/info/refs' }, 'matches', '#\\.git/#', true],
    [{ url: 'https://h/acme/app.git/info/refs' }, '!matches', '#\\.git/#', false],
    [{ url: 'https://h/api/v1/user' }, '!matches', '#\\.git/#', true],
    [{ url: 'https://h/api/v1/user' }, 'match', '#^https://h/api/#', true],
    [{ url: 'https://h/api/v1/user' }, '!match', '#^https://h/api/#', false],
    [null, 'matches', '/^cli$/', true],
    [{ url: 'https://h/api/v1/user' }, '!is', 'https://h/api/v1/user', false],
  ])('%j %s %s → %s', (request, operator, value, expected) => {
    expect(compile('RequestURL', operator, value)(subject({ request }))).toBe(expected);
  });
});

describe('RequestUserAgent', () => {
  it.each([
    ['Mozilla/5.0 (Android) Nextcloud-android/3.20.1', 'is', 'android', true],
    ['Mozilla/5.0 (Linux; Android 14) Chrome/120', 'is', 'android', false],
    ['Mozilla/5.0 (Linux; Android 14) Chrome/120', '!is', 'android', true],
    ['Mozilla/5.0 (iOS) Nextcloud-iOS/4.9.0', 'is', 'ios', true],
    ['Mozilla/5.0 (Windows) mirall/3.10.0', 'is', 'desktop', true],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari', 'is', 'desktop', false],
    ['Mozilla/5.0 (Windows) Nextcloud-Outlook v1.2.0', 'is', 'mail', true],
    ['Filelink for *cloud/2.1.0', 'is', 'mail', true],
    ['Filelink for *cloud/0.1.0', 'is', 'mail', false],
    ['curl/8.5.0', '!is', 'mail', true],
    ['curl/8.5.0', 'is', 'curl/8.5.0', true],
    ['curl/8.5.0', 'matches', '/^curl\\//', true],
    ['curl/8.5.0', '!matches', '/^curl\\//', false],
    ['Wget/1.21', '!matches', '/^curl\\//', true],
    ['Wget/1.21', 'match', '/^wget/i', true],
    ['Wget/1.21', '!match', '/^wget/i', false],
    ['Mozilla/5.0 (iOS) Nextcloud-iOS/4.9.0', '!is', 'ios', false],
    ['Mozilla/5.0 (Linux) csyncoC/2.0', 'is', 'desktop', true],
    ['Mozilla/5.0 (Windows) mirall/3.10.0', 'is', 'android', false],
    ['android', 'is', 'android', false],
    ['', 'is', '', true],
  ])('%j %s %s → %s', (ua, operator, value, expected) => {
    expect(
      compile('RequestUserAgent', operator, value)(subject({ request: { userAgent: ua || null } })),
    ).toBe(expected);
  });
});

describe('UserGroupMembership', () => {
  const alice = (groups: string[]) => subject({ actorUserId: '7', groups: new Set(groups) });
  it.each([
    ['is', 'acme', true],
    ['!is', 'acme', false],
    ['is', 'ACME', true],
    ['is', 'acme/devs', true],
    ['is', 'acme/ops', false],
    ['!is', 'acme/ops', true],
  ])('alice %s %s → %s', (operator, value, expected) => {
    expect(compile('UserGroupMembership', operator, value)(alice(['acme', 'acme/devs']))).toBe(expected);
  });
  it('anonymous: is false, !is true', () => {
    const anonymous = subject({ actorUserId: null });
    expect(compile('UserGroupMembership', 'is', 'acme')(anonymous)).toBe(false);
    expect(compile('UserGroupMembership', '!is', 'acme')(anonymous)).toBe(true);
  });
  it('validation', async () => {
    await expectInvalid('UserGroupMembership', 'matches', 'acme', 'The given operator is invalid');
    await expectInvalid('UserGroupMembership', 'is', 'nope', 'The given group does not exist');
    await expectValid('UserGroupMembership', 'is', 'Acme/Devs');
  });
});

describe('coverage', () => {
  it('every operator of every check has rows in the tables above', () => {
    const missing = CHECKS.flatMap((check) =>
      check.operators.map((operator) => `${check.id.split('\\').pop()!} ${operator}`),
    ).filter((key) => !covered.has(key));
    expect(missing).toEqual([]);
  });
});
