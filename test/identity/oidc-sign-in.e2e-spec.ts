import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, freePort, type TestApp } from '../helpers/test-app';

const CLIENT_ID = 'devplane';
const CLIENT_SECRET = 'devplane-client-secret';

/** A tiny cookie jar for one site (name → value), fed by Set-Cookie headers. */
class Jar {
  readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = decodeURIComponent(pair!.slice(eq + 1).trim());
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
  }
}

/** OIDC sign-in end to end against a real OpenID Provider (`oidc-provider`) in a child process (issue 16 item 3). */
describe('OIDC sign-in (GET /api/v2/users/oidc/callback)', () => {
  let t: TestApp;
  let provider: ChildProcess;
  let base: string;
  let issuer: string;
  let owner: CreatedUser;

  beforeAll(async () => {
    const [port, providerPort] = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${port}`;
    issuer = `http://127.0.0.1:${providerPort}`;
    provider = spawn(
      process.execPath,
      [
        path.join(__dirname, '../fixtures/oidc-provider.mjs'),
        String(providerPort),
        `${base}/api/v2/users/oidc/callback`,
        CLIENT_ID,
        CLIENT_SECRET,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      provider.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('READY')) resolve();
      });
      provider.on('exit', (code) => reject(new Error(`oidc provider exited ${code}`)));
    });
    t = await createTestApp({
      env: {
        PUBLIC_URL: `${base}/`,
        OIDC_ISSUER_URL: issuer,
        OIDC_CLIENT_ID: CLIENT_ID,
        OIDC_CLIENT_SECRET: CLIENT_SECRET,
      },
    });
    await t.listen(port);
    owner = await t.factories.admin({ username: 'oidcowner' });
  });
  afterAll(async () => {
    await t?.close();
    provider?.kill();
  });

  /** Runs the browser's part: devplane → provider (automatic login and consent) → devplane callback. */
  async function signIn(
    claims: Record<string, unknown>,
    options: { start?: string; jar?: Jar; tamperState?: boolean; dropStateCookie?: boolean } = {},
  ): Promise<{ response: Response; jar: Jar; authorize: URL }> {
    await fetch(`${issuer}/_test/next-account`, { method: 'POST', body: JSON.stringify(claims) });
    const jar = options.jar ?? new Jar();
    const start = await fetch(`${base}/api/v2/users/oidc/callback${options.start ?? ''}`, {
      redirect: 'manual',
      headers: { Cookie: jar.header() },
    });
    expect(start.status).toBe(307);
    jar.take(start);
    let location = start.headers.get('location')!;
    expect(location.startsWith(`${issuer}/`)).toBe(true);
    const authorize = new URL(location);
    expect(new URL(location).searchParams.get('code_challenge_method')).toBe('S256');
    const providerJar = new Jar();
    for (let hops = 0; hops < 10 && location.startsWith(issuer); hops++) {
      const step = await fetch(location, { redirect: 'manual', headers: { Cookie: providerJar.header() } });
      providerJar.take(step);
      location = new URL(step.headers.get('location')!, issuer).toString();
    }
    expect(location.startsWith(`${base}/api/v2/users/oidc/callback?`)).toBe(true);
    const url = new URL(location);
    if (options.tamperState) url.searchParams.set('state', 'forged');
    if (options.dropStateCookie) jar.cookies.delete('oauth_state');
    const response = await fetch(url, { redirect: 'manual', headers: { Cookie: jar.header() } });
    jar.take(response);
    return { response, jar, authorize };
  }

  const me = (jar: Jar) => t.http().get('/api/v2/users/me').set('Cookie', jar.header());

  it('signs up a new user with a verified email, sets the session cookie and redirects', async () => {
    const { response, jar } = await signIn(
      {
        sub: 'sub-alice',
        email: 'alice@oidc.example',
        email_verified: true,
        name: 'Alice Liddell',
        preferred_username: 'alice.l',
      },
      { start: '?redirect=/workspaces' },
    );
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('/workspaces');
    expect(jar.cookies.get('service_session_token')).toMatch(/^[A-Za-z0-9]{10}-/);
    expect(jar.cookies.has('oauth_state')).toBe(false);
    const user = await me(jar);
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({
      username: 'alice-l',
      email: 'alice@oidc.example',
      name: 'Alice Liddell',
      login_type: 'oidc',
      status: 'active',
    });
  });

  it('stores the claims: /users/oidc-claims merges them (userinfo over ID token); the debug route splits them', async () => {
    const { jar } = await signIn({
      sub: 'sub-alice',
      email: 'alice@oidc.example',
      email_verified: true,
      groups: ['devs'],
    });
    const claims = await t.http().get('/api/v2/users/oidc-claims').set('Cookie', jar.header());
    expect(claims.status).toBe(200);
    expect(claims.body.claims).toMatchObject({
      sub: 'sub-alice',
      email: 'alice@oidc.example',
      iss: issuer,
      aud: CLIENT_ID,
    });
    const debug = await t
      .http()
      .get('/api/v2/debug/alice-l/debug-link')
      .set('Service-Session-Token', owner.token);
    expect(debug.status).toBe(200);
    expect(debug.body.id_token_claims).toMatchObject({ sub: 'sub-alice', iss: issuer });
    expect(debug.body.id_token_claims.email).toBeUndefined();
    expect(debug.body.user_info_claims).toMatchObject({ sub: 'sub-alice', email: 'alice@oidc.example' });
    expect(debug.body.merged_claims).toEqual(claims.body.claims);
    const member = await t.factories.user();
    expect(
      (await t.http().get('/api/v2/debug/alice-l/debug-link').set('Service-Session-Token', member.token))
        .status,
    ).toBe(403);
    const notOidc = await t
      .http()
      .get('/api/v2/users/oidc-claims')
      .set('Service-Session-Token', member.token);
    expect(notOidc.status).toBe(400);
    expect(notOidc.body.message).toBe('User is not an OIDC user.');
    expect((await t.http().get('/api/v2/users/oidc-claims')).status).toBe(401);
    // The same subject signs in to the same account.
    const users: { count: number }[] = await t.dataSource.query(
      `SELECT count(*)::int AS count FROM users WHERE lower_email = 'alice@oidc.example'`,
    );
    expect(users[0]!.count).toBe(1);
  });

  it('refuses an unverified email (403) and creates nothing', async () => {
    const { response } = await signIn({ sub: 'sub-eve', email: 'eve@oidc.example', email_verified: false });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toBe(
      'Verify the "eve@oidc.example" email address on your OIDC provider to authenticate!',
    );
    const rows: unknown[] = await t.dataSource.query(
      `SELECT 1 FROM users WHERE lower_email = 'eve@oidc.example'`,
    );
    expect(rows).toHaveLength(0);
  });

  it('refuses a forged state and a missing state cookie (401)', async () => {
    const forged = await signIn(
      { sub: 'sub-bob', email: 'bob@oidc.example', email_verified: true },
      { tamperState: true },
    );
    expect(forged.response.status).toBe(401);
    expect(((await forged.response.json()) as { message: string }).message).toBe('State mismatched.');
    const missing = await signIn(
      { sub: 'sub-bob', email: 'bob@oidc.example', email_verified: true },
      { dropStateCookie: true },
    );
    expect(missing.response.status).toBe(401);
    expect(((await missing.response.json()) as { message: string }).message).toBe(
      'Cookie "oauth_state" must be provided.',
    );
  });

  it('a password user with the same email is not taken over without a conversion (403)', async () => {
    await t.factories.user({ username: 'carol', email: 'carol@oidc.example' });
    const { response } = await signIn({
      sub: 'sub-carol',
      email: 'carol@oidc.example',
      email_verified: true,
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toBe(
      'Incorrect login type, attempting to use "oidc" but user is of login type "password"',
    );
  });

  /** `POST /users/me/convert-login` to oidc as this password user; the convert cookie goes into the jar. */
  async function convertLogin(who: CreatedUser, password: string, jar: Jar): Promise<string> {
    const convert = await fetch(`${base}/api/v2/users/me/convert-login`, {
      method: 'POST',
      headers: { 'Service-Session-Token': who.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ to_type: 'oidc', password }),
    });
    expect(convert.status).toBe(201);
    jar.take(convert);
    const body = (await convert.json()) as { state_string: string; to_type: string; user_id: string };
    expect(body).toMatchObject({ to_type: 'oidc', user_id: who.user.uuid });
    expect(body.state_string).toMatch(/^convert-[A-Za-z0-9]{32}$/);
    expect(jar.cookies.get('service_oauth_convert')).toBe(body.state_string);
    return body.state_string;
  }

  const loginTypeOf = async (username: string): Promise<string> =>
    (await t.http().get(`/api/v2/users/${username}`).set('Service-Session-Token', owner.token)).body
      .login_type as string;

  it("completes a pending convert-login: its state_string is the provider's OAuth state, the password user becomes an OIDC user (issue 33.13)", async () => {
    const dave = await t.factories.user({
      username: 'dave',
      email: 'dave@oidc.example',
      password: 'Dave-Password-Strong-1',
    });
    const jar = new Jar();
    const state = await convertLogin(dave, 'Dave-Password-Strong-1', jar);
    const { response, authorize } = await signIn(
      { sub: 'sub-dave', email: 'dave@oidc.example', email_verified: true },
      { start: `?oidc_merge_state=${state}`, jar },
    );
    // Coder: the client navigates to the callback with `oidc_merge_state`, which is sent as the state.
    expect(authorize.searchParams.get('state')).toBe(state);
    expect(response.status).toBe(307);
    expect(jar.cookies.has('service_oauth_convert')).toBe(false);
    const after = await me(jar);
    expect(after.body).toMatchObject({ id: dave.user.uuid, login_type: 'oidc' });
    expect(await loginTypeOf('dave')).toBe('oidc');
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: 'dave@oidc.example', password: 'Dave-Password-Strong-1' });
    expect(login.status).toBe(403);
    const audit = await t
      .http()
      .get('/api/v2/audit')
      .query({ q: 'resource_type:convert_login' })
      .set('Service-Session-Token', owner.token);
    expect(audit.body.audit_logs.map((e: { resource_target: string }) => e.resource_target)).toEqual([
      'dave',
    ]);
  });

  it('refuses a conversion to a provider account whose email differs: the user stays a password user (issue 33.13)', async () => {
    const erin = await t.factories.user({
      username: 'erin',
      email: 'erin@oidc.example',
      password: 'Erin-Password-Strong-1',
    });
    // No account has the provider's email: Coder's 400.
    const jar = new Jar();
    const state = await convertLogin(erin, 'Erin-Password-Strong-1', jar);
    const { response, authorize } = await signIn(
      { sub: 'sub-mallory', email: 'mallory@oidc.example', email_verified: true },
      { start: `?oidc_merge_state=${state}`, jar },
    );
    expect(authorize.searchParams.get('state')).toBe(state);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(
      'The oidc account with the email "mallory@oidc.example" does not match the email of the account you are trying to convert. Contact your administrator to resolve this issue.',
    );
    expect(jar.cookies.has('service_session_token')).toBe(false);
    // A conversion attempt uses the convert-login cookie up, as Coder does.
    expect(jar.cookies.has('service_oauth_convert')).toBe(false);
    expect(await loginTypeOf('erin')).toBe('password');
    const created: unknown[] = await t.dataSource.query(
      `SELECT 1 FROM users WHERE lower_email = 'mallory@oidc.example'`,
    );
    expect(created).toHaveLength(0);
    // The provider's email is another user's (carol, a password user): Coder's 403.
    const again = new Jar();
    const second = await convertLogin(erin, 'Erin-Password-Strong-1', again);
    const other = await signIn(
      { sub: 'sub-carol-2', email: 'carol@oidc.example', email_verified: true },
      { start: `?oidc_merge_state=${second}`, jar: again },
    );
    expect(other.response.status).toBe(403);
    expect(((await other.response.json()) as { message: string }).message).toBe(
      'Request to convert login type from password to oidc failed',
    );
    expect(await loginTypeOf('erin')).toBe('password');
    expect(await loginTypeOf('carol')).toBe('password');
    // Without the convert-login cookie that holds the state, nothing is converted.
    const third = await convertLogin(erin, 'Erin-Password-Strong-1', new Jar());
    const noCookie = await signIn(
      { sub: 'sub-erin', email: 'erin@oidc.example', email_verified: true },
      { start: `?oidc_merge_state=${third}` },
    );
    expect(noCookie.response.status).toBe(400);
    expect(await loginTypeOf('erin')).toBe('password');
    // The password still signs in.
    const login = await t
      .http()
      .post('/api/v2/users/login')
      .send({ email: 'erin@oidc.example', password: 'Erin-Password-Strong-1' });
    expect(login.status).toBe(201);
  });

  it('a merge state without the conversion prefix is not taken as the OAuth state', async () => {
    const { authorize } = await signIn(
      { sub: 'sub-alice', email: 'alice@oidc.example', email_verified: true },
      { start: '?oidc_merge_state=chosen-by-a-link' },
    );
    expect(authorize.searchParams.get('state')).not.toBe('chosen-by-a-link');
  });

  it('never redirects off-site after sign-in', async () => {
    const { response } = await signIn(
      { sub: 'sub-alice', email: 'alice@oidc.example', email_verified: true },
      { start: '?redirect=//evil.example/x' },
    );
    expect(response.headers.get('location')).toBe('/');
  });

  it('Coder user creation accepts login type oidc once OIDC is configured', async () => {
    const rows: { uuid: string }[] = await t.dataSource.query(
      `SELECT u.uuid FROM organizations o JOIN users u ON u.id = o.account_id WHERE o.is_default`,
    );
    const res = await t
      .http()
      .post('/api/v2/users')
      .set('Service-Session-Token', owner.token)
      .send({
        username: 'preprovisioned',
        email: 'pre@oidc.example',
        login_type: 'oidc',
        organization_ids: [rows[0]!.uuid],
      });
    expect(res.status).toBe(201);
    expect(res.body.login_type).toBe('oidc');
  });
});
