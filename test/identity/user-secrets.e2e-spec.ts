import { UserSecretsService } from '../../src/modules/identity/secrets/user-secrets.service';
import { ENABLED_NEEDS_TARGET } from '../../src/modules/identity/secrets/user-secret-rules';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

describe('user secrets (/api/v2/users/{user}/secrets, reference D.1)', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let admin: CreatedUser;
  const key = (who: CreatedUser | string) => ({
    'Service-Session-Token': typeof who === 'string' ? who : who.token,
  });
  const base = (user = 'me') => `/api/v2/users/${user}/secrets`;
  const create = (body: Record<string, unknown>, who: CreatedUser = alice, user = 'me') =>
    t.http().post(base(user)).set(key(who)).send(body);

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user({ username: 'alice' });
    bob = await t.factories.user({ username: 'bob' });
    admin = await t.factories.admin({ username: 'siteadmin' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates (201) without ever returning the value, lists by name, gets, updates and deletes', async () => {
    const created = await create({
      name: 'zeta',
      value: 's3cr3t-value',
      env_name: 'ZETA_TOKEN',
      description: 'for CI',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'zeta',
      description: 'for CI',
      env_name: 'ZETA_TOKEN',
      file_path: '',
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(created.body)).not.toContain('s3cr3t-value');
    expect((await create({ name: 'alpha', value: 'a', file_path: '~/.config/a' })).status).toBe(201);
    const list = await t.http().get(base()).set(key(alice));
    expect(list.body.map((s: { name: string }) => s.name)).toEqual(['alpha', 'zeta']);
    expect((await t.http().get(base('bob')).set(key(bob))).body).toEqual([]);
    expect((await t.http().get(`${base()}/zeta`).set(key(alice))).body.env_name).toBe('ZETA_TOKEN');
    const updated = await t
      .http()
      .patch(`${base()}/zeta`)
      .set(key(alice))
      .send({ value: 'rotated', enabled: false, env_name: '' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'zeta', enabled: false, env_name: '' });
    // The value is sealed at rest and opens only for its row.
    const row = (await t.dataSource.query("SELECT sealed_value FROM user_secrets WHERE name = 'zeta'")) as {
      sealed_value: string;
    }[];
    expect(row[0]!.sealed_value).not.toContain('rotated');
    const service = t.app.get(UserSecretsService);
    expect(service.reveal(await service.get(alice.user, 'zeta'))).toBe('rotated');
    expect((await t.http().delete(`${base()}/zeta`).set(key(alice))).status).toBe(204);
    const gone = await t.http().delete(`${base()}/zeta`).set(key(alice));
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe('Resource not found or you do not have access to this resource');
  });

  it.each([
    [{ value: 'x', env_name: 'A' }, 'name', 'Name is required.'],
    // Coder checks a blank name before the whitespace rule.
    [{ name: '   ', value: 'x', env_name: 'A' }, 'name', 'Name is required.'],
    [
      { name: ' padded', value: 'x', env_name: 'A' },
      'name',
      'Name must not have leading or trailing whitespace.',
    ],
    [{ name: 'a/b', value: 'x', env_name: 'A' }, 'name', 'Name must not contain /, ?, or #.'],
    [{ name: 'v', env_name: 'A' }, 'value', 'Value is required.'],
    [
      { name: 'v', value: 'x'.repeat(24 * 1024 + 1), env_name: 'A' },
      'value',
      'secret value must not exceed 24576 bytes',
    ],
    [
      { name: 'v', value: 'x', env_name: '1BAD' },
      'env_name',
      'must start with a letter or underscore, followed by letters, digits, or underscores',
    ],
    [{ name: 'v', value: 'x', env_name: 'path' }, 'env_name', 'PATH is a reserved environment variable name'],
    [
      { name: 'v', value: 'x', env_name: 'CODER_AGENT_TOKEN' },
      'env_name',
      'environment variable names starting with CODER_ are reserved for internal use',
    ],
    [
      { name: 'v', value: 'x', env_name: 'GIT_SSH' },
      'env_name',
      'environment variables starting with GIT_ are reserved',
    ],
    [
      { name: 'v', value: 'x', env_name: `A${'B'.repeat(256)}` },
      'env_name',
      'environment variable name must not exceed 256 bytes',
    ],
    [{ name: 'v', value: 'x', file_path: 'relative/path' }, 'file_path', 'file path must start with ~/ or /'],
    [{ name: 'v', value: 'x' }, 'env_name', ENABLED_NEEDS_TARGET],
  ])('refuses case %# with 400 Validation failed', async (body, field, detail) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Validation failed.', validations: [{ field, detail }] });
  });

  it('refuses a value with a NUL byte (400; the platform refuses NUL in every JSON body before the rules run)', async () => {
    const res = await create({ name: 'v', value: 'a\u0000b', env_name: 'A' });
    expect(res.status).toBe(400);
    expect(
      (await t.http().get(base()).set(key(alice))).body.some((s: { name: string }) => s.name === 'v'),
    ).toBe(false);
  });

  it('accepts a disabled secret without a target, and a type mismatch is the decoder error', async () => {
    expect((await create({ name: 'parked', value: 'x', enabled: false })).status).toBe(201);
    const bad = await create({ name: 'n', value: 42, env_name: 'N' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Request body must be valid JSON.');
  });

  it('keeps names, env names and file paths unique per user (409)', async () => {
    expect((await create({ name: 'one', value: 'x', env_name: 'ONE', file_path: '/etc/one' })).status).toBe(
      201,
    );
    const dupName = await create({ name: 'one', value: 'x', env_name: 'OTHER' });
    expect(dupName.status).toBe(409);
    expect(dupName.body).toEqual({
      message: 'Validation failed.',
      validations: [{ field: 'name', detail: 'name already in use' }],
    });
    expect((await create({ name: 'two', value: 'x', env_name: 'ONE' })).body.validations).toEqual([
      { field: 'env_name', detail: 'environment variable already in use' },
    ]);
    expect((await create({ name: 'two', value: 'x', file_path: '/etc/one' })).body.validations).toEqual([
      { field: 'file_path', detail: 'file path already in use' },
    ]);
    // Another user may use the same names.
    expect((await create({ name: 'one', value: 'x', env_name: 'ONE' }, bob)).status).toBe(201);
  });

  it('PATCH needs a field, checks the target rule on the state after the update, and 404s unknown names', async () => {
    expect((await create({ name: 'patchme', value: 'x', env_name: 'PATCHME' })).status).toBe(201);
    const empty = await t.http().patch(`${base()}/patchme`).set(key(alice)).send({});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe('At least one field must be provided.');
    const cleared = await t.http().patch(`${base()}/patchme`).set(key(alice)).send({ env_name: '' });
    expect(cleared.status).toBe(400);
    expect(cleared.body.validations).toEqual([{ field: 'env_name', detail: ENABLED_NEEDS_TARGET }]);
    expect((await t.http().patch(`${base()}/nothing`).set(key(alice)).send({ enabled: false })).status).toBe(
      404,
    );
  });

  it("keeps everyone out of other users' secrets, administrators included", async () => {
    const forOther = await create({ name: 'x', value: 'x', env_name: 'X' }, admin, 'alice');
    expect(forOther.status).toBe(403);
    expect((await t.http().get(base('alice')).set(key(admin))).status).toBe(403);
    expect(
      (
        await t
          .http()
          .get(`${base('alice')}/alpha`)
          .set(key(bob))
      ).status,
    ).toBe(404);
    expect(
      (
        await t
          .http()
          .delete(`${base('alice')}/alpha`)
          .set(key(admin))
      ).status,
    ).toBe(404);
    expect((await t.http().get(base())).status).toBe(401);
    const narrow = await t.factories.token(alice.user, { scopes: ['user_secret:read'] });
    expect((await t.http().get(base()).set(key(narrow))).status).toBe(200);
    expect((await create({ name: 'y', value: 'y', env_name: 'Y' }, { ...alice, token: narrow })).status).toBe(
      403,
    );
  });

  it('enforces the per-user limit of 50 secrets', async () => {
    const carol = await t.factories.user({ username: 'carol' });
    for (let i = 0; i < 50; i++)
      expect((await create({ name: `s${i}`, value: 'v', file_path: `/tmp/s${i}` }, carol)).status).toBe(201);
    const over = await create({ name: 's50', value: 'v', file_path: '/tmp/s50' }, carol);
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      message: 'User secrets limit reached.',
      detail: 'Each user can have at most 50 secrets.',
    });
  });

  it("the value-bytes and env-bytes limits answer Coder's texts, in Coder's order", async () => {
    const lima = await t.factories.user({ username: 'lima' });
    const big = 'x'.repeat(24 * 1024);
    // Env-injected values: 24 KiB in all.
    expect((await create({ name: 'e1', value: big, env_name: 'E1' }, lima)).status).toBe(201);
    const env = await create({ name: 'e2', value: 'y', env_name: 'E2' }, lima);
    expect(env.status).toBe(400);
    expect(env.body.message).toBe('Environment-injected user secrets bytes limit reached.');
    expect(env.body.detail).toBe(
      'Stored bytes of env-injected secret values exceed the per-user budget (24576 bytes after encryption, if applicable). Reduce the size or number of env-injected secrets. If your deployment permits file path delivery, clear env_name and use file_path instead.',
    );
    // All values: 200 KiB in all (file-injected ones count too).
    for (let i = 0; i < 7; i++)
      expect((await create({ name: `f${i}`, value: big, file_path: `/tmp/f${i}` }, lima)).status).toBe(201);
    const total = await create({ name: 'f7', value: big, file_path: '/tmp/f7' }, lima);
    expect(total.status).toBe(400);
    expect(total.body.message).toBe('User secrets value-bytes limit reached.');
    expect(total.body.detail).toBe(
      'Stored bytes of your secret values exceed the per-user budget (204800 bytes after encryption, if applicable). Reduce the size or number of your secrets.',
    );
    // Over both: the value-bytes limit is named first, as Coder's trigger checks it first.
    const both = await create({ name: 'f8', value: big, env_name: 'F8' }, lima);
    expect(both.body.message).toBe('User secrets value-bytes limit reached.');
    // In a batch the detail names the entry.
    const batch = await t
      .http()
      .post(`${base()}/batch`)
      .set(key(lima))
      .send({
        format: 'json',
        content: JSON.stringify([
          { name: 'ok1', value: 'a', file_path: '/tmp/ok1' },
          { name: 'TOO_BIG', value: big, file_path: '/tmp/too-big' },
        ]),
      });
    expect(batch.status).toBe(400);
    expect(batch.body.message).toBe('User secrets value-bytes limit reached.');
    expect(batch.body.detail).toMatch(/^Entry secrets\[1\] \("TOO_BIG"\): Stored bytes/);
  });

  describe('batch import (POST .../secrets/batch)', () => {
    const batch = (body: Record<string, unknown>, who: CreatedUser) =>
      t.http().post(`${base()}/batch`).set(key(who)).send(body);
    const names = async (who: CreatedUser) =>
      ((await t.http().get(base()).set(key(who))).body as { name: string }[]).map((s) => s.name);

    it('imports env, json and yaml files (201, values never returned)', async () => {
      const dora = await t.factories.user({ username: 'dora' });
      const env = await batch(
        { format: 'env', content: 'API_TOKEN=abc123\n# comment\nDB_URL="postgres://x"\n' },
        dora,
      );
      expect(env.status).toBe(201);
      expect(env.body.map((s: { name: string; env_name: string }) => [s.name, s.env_name])).toEqual([
        ['API_TOKEN', 'API_TOKEN'],
        ['DB_URL', 'DB_URL'],
      ]);
      expect(JSON.stringify(env.body)).not.toContain('abc123');
      const json = await batch(
        {
          format: 'json',
          content: JSON.stringify([{ name: 'kube', value: 'cfg', file_path: '~/.kube/config' }]),
        },
        dora,
      );
      expect(json.status).toBe(201);
      expect(json.body[0]).toMatchObject({ name: 'kube', file_path: '~/.kube/config', enabled: true });
      const yaml = await batch(
        { format: 'yaml', content: 'NPM_TOKEN: npm-secret\nPIP_INDEX: pip-secret\n' },
        dora,
      );
      expect(yaml.status).toBe(201);
      expect(await names(dora)).toEqual(['API_TOKEN', 'DB_URL', 'NPM_TOKEN', 'PIP_INDEX', 'kube']);
      const service = t.app.get(UserSecretsService);
      const handed = await service.forAgent(dora.user.id);
      expect(handed).toContainEqual({ envName: 'API_TOKEN', filePath: '', value: 'abc123' });
      expect(handed).toContainEqual({ envName: '', filePath: '~/.kube/config', value: 'cfg' });
    });

    it('is atomic: one bad entry creates nothing, and the field names the entry', async () => {
      const erin = await t.factories.user({ username: 'erin' });
      const bad = await batch(
        {
          format: 'json',
          content: JSON.stringify([
            { name: 'ok', value: 'v', env_name: 'OK' },
            { name: 'bad', value: 'v', env_name: 'PATH' },
          ]),
        },
        erin,
      );
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('Validation failed.');
      expect(bad.body.validations[0].field).toBe('secrets[1].env_name');
      expect(await names(erin)).toEqual([]);
      expect((await create({ name: 'taken', value: 'v', env_name: 'TAKEN' }, erin)).status).toBe(201);
      const conflict = await batch({ format: 'env', content: 'FRESH=1\ntaken=2\n' }, erin);
      expect(conflict.status).toBe(409);
      expect(conflict.body.validations).toEqual([
        { field: 'secrets[1].name', detail: 'name already in use' },
      ]);
      expect(await names(erin)).toEqual(['taken']);
    });

    it('refuses unknown formats, unparsable and oversized files, and other users', async () => {
      const fred = await t.factories.user({ username: 'fred' });
      const format = await batch({ format: 'toml', content: 'a=1' }, fred);
      expect(format.status).toBe(400);
      expect(format.body).toMatchObject({
        message: 'Failed to parse secrets file.',
        detail: 'unknown secrets file format "toml"',
      });
      const missing = await batch({ content: 'a=1' }, fred);
      expect(missing.body.detail).toBe('a secrets file format is required');
      const empty = await batch({ format: 'env', content: '  \n' }, fred);
      expect(empty.body).toMatchObject({
        message: 'Failed to parse secrets file.',
        detail: 'no secrets found in file',
      });
      const none = await batch({ format: 'json', content: '{}' }, fred);
      expect(none.body.detail).toBe('no secrets found in file');
      const broken = await batch({ format: 'json', content: '{nope' }, fred);
      expect(broken.status).toBe(400);
      expect(broken.body.message).toBe('Failed to parse secrets file.');
      expect(broken.body.detail).toMatch(/^invalid JSON: /);
      const big = await batch({ format: 'env', content: `BIG=${'x'.repeat(1024 * 1024)}` }, fred);
      expect(big.status).toBe(400);
      expect(big.body).toMatchObject({
        message: 'Failed to parse secrets file.',
        detail: 'secrets file exceeds the maximum allowed size of 1048576 bytes',
      });
      const other = await t
        .http()
        .post(`${base('fred')}/batch`)
        .set(key(alice))
        .send({ format: 'env', content: 'A=1' });
      expect(other.status).toBe(403);
      expect(await names(fred)).toEqual([]);
    });
  });
});
