import type { ExecutionContext } from '@nestjs/common';
import { CoderController } from '../../src/api/coder/coder-controller.decorator';
import { Authenticated } from '../../src/api/access/access.decorators';
import { AuthGuard } from '../../src/modules/auth/auth.guard';
import { CredentialVerifier } from '../../src/modules/auth/credential-verifier.service';
import { requestAnyPrincipal, requestPrincipal } from '../../src/api/access/principal';
import type { ProvisionerKeyLookup, WorkspaceAgentLookup } from '../../src/api/access/principal-ports';
import { UnauthenticatedError } from '../../src/platform/errors/domain-error';
import { basic, BOOTSTRAP_ADMIN, createTestApp, type TestApp } from '../helpers/test-app';
import type { CreatedUser } from '../helpers/factories';

/** Every credential form against the proof route of each dialect, and the error shapes. */
describe('credentials and the three dialects', () => {
  let t: TestApp;
  let alice: CreatedUser;
  let expiredToken: string;

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user({ fullName: 'Alice Example' });
    expiredToken = await t.factories.token(alice.user, { lifetimeSeconds: -60, name: 'expired' });
  });
  afterAll(() => t.close());

  type Form = [string, (req: ReturnType<ReturnType<TestApp['http']>['get']>) => unknown, string?];
  const forms = (): Form[] => [
    ['Service-Session-Token header', (r) => r.set('Service-Session-Token', alice.token)],
    ['service_session_token cookie', (r) => r.set('Cookie', `service_session_token=${alice.token}`)],
    ['service_session_token query', (r) => r.query({ service_session_token: alice.token })],
    ['Authorization: Bearer', (r) => r.set('Authorization', `Bearer ${alice.token}`)],
    ['Authorization: token', (r) => r.set('Authorization', `token ${alice.token}`)],
    ['Basic username + password', (r) => r.set('Authorization', basic(alice.user.name, alice.password))],
    [
      'Basic email + password',
      (r) => r.set('Authorization', basic(alice.user.email.toUpperCase(), alice.password)),
    ],
    ['Basic username + token', (r) => r.set('Authorization', basic(alice.user.name, alice.token))],
    ['Basic token as user name', (r) => r.set('Authorization', basic(alice.token, ''))],
    ['Basic token:x-oauth-basic', (r) => r.set('Authorization', basic(alice.token, 'x-oauth-basic'))],
    ['?token=', (r) => r.query({ token: alice.token }), 'warn'],
    ['?access_token=', (r) => r.query({ access_token: alice.token }), 'warn'],
  ];

  describe.each([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])('credential form #%i', (index) => {
    it('GET /api/v1/user answers Gitea User of the caller', async () => {
      const [, apply, warn] = forms()[index]!;
      const req = t.http().get('/api/v1/user');
      apply(req);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: Number(alice.user.id),
        login: alice.user.name,
        username: alice.user.name,
        email: alice.user.email,
      });
      if (warn) expect(res.headers['x-service-warning']).toMatch(/deprecated/);
      else expect(res.headers['x-service-warning']).toBeUndefined();
    });

    it('GET /api/v2/users/me answers Coder User of the caller', async () => {
      const [, apply] = forms()[index]!;
      const req = t.http().get('/api/v2/users/me');
      apply(req);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: alice.user.uuid,
        username: alice.user.name,
        name: 'Alice Example',
        status: 'active',
        login_type: 'password',
      });
      expect(res.body.organization_ids).toHaveLength(1);
    });

    it('GET /ocs/v2.php/cloud/user answers the OCS envelope', async () => {
      const [, apply] = forms()[index]!;
      const req = t
        .http()
        .get('/ocs/v2.php/cloud/user')
        .query({ format: 'json' })
        .set('OCS-APIRequest', 'true');
      apply(req);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.body.ocs.meta).toEqual({ status: 'ok', statuscode: 200, message: 'OK' });
      expect(res.body.ocs.data).toMatchObject({
        id: alice.user.name,
        displayname: 'Alice Example',
        enabled: true,
      });
    });
  });

  describe('Coder error shapes', () => {
    const signedOut = 'You are signed out or your session has expired. Please sign in again to continue.';
    it.each([
      ['no credentials', {}, 'Cookie "service_session_token" or query parameter must be provided.'],
      ['malformed token', { 'Service-Session-Token': 'abc' }, /^Invalid API key format/],
      [
        'unknown key id',
        { 'Service-Session-Token': 'AAAAAAAAAA-BBBBBBBBBBBBBBBBBBBBBB' },
        'API key is invalid.',
      ],
      ['expired token', 'expired', /^API key expired at "/],
    ])('%s → 401', async (_name, headers, detail) => {
      const set =
        headers === 'expired'
          ? { 'Service-Session-Token': expiredToken }
          : (headers as Record<string, string>);
      const res = await t.http().get('/api/v2/users/me').set(set);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe(signedOut);
      if (typeof detail === 'string') expect(res.body.detail).toBe(detail);
      else expect(res.body.detail).toMatch(detail);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="devplane", error="invalid_token"/);
    });

    it('wrong secret of a real key → 401 "API key secret is invalid."', async () => {
      const [id] = alice.token.split('-');
      const res = await t
        .http()
        .get('/api/v2/users/me')
        .set('Service-Session-Token', `${id}-${'x'.repeat(22)}`);
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe('API key secret is invalid.');
    });

    it('wrong password over Basic → 401', async () => {
      const res = await t
        .http()
        .get('/api/v2/users/me')
        .set('Authorization', basic(alice.user.name, 'wrong'));
      expect(res.status).toBe(401);
      expect(res.body.message).toBe('invalid username, password or token');
    });

    it('unknown user → 404 in Coder shape; by username and uuid → 200', async () => {
      const missing = await t
        .http()
        .get('/api/v2/users/nobody-here')
        .set('Service-Session-Token', alice.token);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({
        message: 'Resource not found or you do not have access to this resource',
      });
      const byName = await t
        .http()
        .get(`/api/v2/users/${alice.user.name.toUpperCase()}`)
        .set('Service-Session-Token', alice.token);
      expect(byName.body.id).toBe(alice.user.uuid);
      const byUuid = await t
        .http()
        .get(`/api/v2/users/${alice.user.uuid}`)
        .set('Service-Session-Token', alice.token);
      expect(byUuid.body.username).toBe(alice.user.name);
    });

    it('another user: 404 for a member, 200 for an owner', async () => {
      const other = await t.factories.user();
      const asMember = await t
        .http()
        .get(`/api/v2/users/${other.user.name}`)
        .set('Service-Session-Token', alice.token);
      expect(asMember.status).toBe(404);
      const asOwner = await t
        .http()
        .get(`/api/v2/users/${other.user.uuid}`)
        .set('Authorization', basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password));
      expect(asOwner.status).toBe(200);
      expect(asOwner.body.username).toBe(other.user.name);
    });

    it('malformed JSON body → 400 "Request body must be valid JSON."', async () => {
      // Bodies are read per route (src/api/body): a route that exists, as a body on a route that does
      // not is never read (404, as Coder's router answers); and only once the caller is authenticated.
      const anonymous = await t
        .http()
        .post('/api/v2/users/me/keys/tokens')
        .set('Content-Type', 'application/json')
        .send('{bad');
      expect(anonymous.status).toBe(401);
      const res = await t
        .http()
        .post('/api/v2/users/me/keys/tokens')
        .set('Service-Session-Token', alice.token)
        .set('Content-Type', 'application/json')
        .send('{bad');
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Request body must be valid JSON.');
      const unrouted = await t
        .http()
        .post('/api/v2/users/me')
        .set('Content-Type', 'application/json')
        .send('{bad');
      expect(unrouted.status).toBe(404);
      expect(unrouted.body.message).toBe('Route not found.');
    });

    it('unknown route → 404 "Route not found."', async () => {
      const res = await t.http().get('/api/v2/no-such-route').set('Service-Session-Token', alice.token);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('Route not found.');
    });

    it('a suspended user is refused with 401', async () => {
      const bob = await t.factories.user({ status: 'suspended' });
      const res = await t.http().get('/api/v2/users/me').set('Service-Session-Token', bob.token);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe(
        'User is not active (status = "suspended"). Contact an admin to reactivate your account.',
      );
    });

    it('a dormant user is reactivated on use', async () => {
      const carol = await t.factories.user({ status: 'dormant' });
      const res = await t.http().get('/api/v2/users/me').set('Service-Session-Token', carol.token);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('active');
    });
  });

  describe('Gitea error shapes', () => {
    const url = () => `${t.config.publicUrl}api/swagger`;
    it('no credentials → 401 token is required', async () => {
      const res = await t.http().get('/api/v1/user');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'token is required', url: url() });
    });
    it.each([
      ['bad token', { Authorization: 'token AAAAAAAAAA-BBBBBBBBBBBBBBBBBBBBBB' }],
      ['wrong password', 'basic-wrong'],
      ['expired token', 'expired'],
    ])('%s → 401 invalid username, password or token', async (_name, how) => {
      const headers =
        how === 'expired'
          ? { Authorization: `token ${expiredToken}` }
          : how === 'basic-wrong'
            ? { Authorization: basic(alice.user.name, 'nope') }
            : (how as Record<string, string>);
      const res = await t.http().get('/api/v1/user').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'invalid username, password or token', url: url() });
    });
    it('bad credentials on a public route are still refused (Gitea)', async () => {
      const res = await t
        .http()
        .get(`/api/v1/users/${alice.user.name}`)
        .set('Authorization', 'token AAAAAAAAAA-BBBBBBBBBBBBBBBBBBBBBB');
      expect(res.status).toBe(401);
    });
    it('a token without the user scope → 403 with the scope message', async () => {
      const scoped = await t.factories.token(alice.user, { scopes: ['read:repository'], name: 'repo-only' });
      const res = await t.http().get('/api/v1/user').set('Authorization', `token ${scoped}`);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(
        'token does not have at least one of required scope(s), required=[read:user], token scope=read:repository',
      );
      const withRead = await t.factories.token(alice.user, { scopes: ['read:user'], name: 'user-read' });
      expect((await t.http().get('/api/v1/user').set('Authorization', `token ${withRead}`)).status).toBe(200);
    });
    it('GET /api/v1/users/{username}: anonymous sees a placeholder email, the user itself the real one', async () => {
      const anonymous = await t.http().get(`/api/v1/users/${alice.user.name}`);
      expect(anonymous.status).toBe(200);
      expect(anonymous.body.email).toBe(`${alice.user.name}@noreply.localhost`);
      expect(anonymous.body.is_admin).toBe(false);
      const self = await t
        .http()
        .get(`/api/v1/users/${alice.user.name}`)
        .set('Authorization', `token ${alice.token}`);
      expect(self.body.email).toBe(alice.user.email);
    });
    it('unknown user → 404 with Gitea text', async () => {
      const res = await t.http().get('/api/v1/users/ghost');
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('user does not exist [uid: 0, name: ghost]');
    });
    it('a private user is 404 to others and visible to admins', async () => {
      const hidden = await t.factories.user({ visibility: 'private' });
      expect(
        (await t.http().get(`/api/v1/users/${hidden.user.name}`).set('Authorization', `token ${alice.token}`))
          .status,
      ).toBe(404);
      const admin = await t
        .http()
        .get(`/api/v1/users/${hidden.user.name}`)
        .set('Authorization', basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password));
      expect(admin.status).toBe(200);
      expect(admin.body.email).toBe(hidden.user.email);
    });
    it('GET /api/v1/version', async () => {
      const res = await t.http().get('/api/v1/version');
      expect(res.status).toBe(200);
      expect(res.body.version).toMatch(/^1\.26\.0\+devplane\./);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  });

  describe('OCS error shapes', () => {
    it('no credentials → 401 statuscode 997', async () => {
      const res = await t.http().get('/ocs/v2.php/cloud/user?format=json').set('OCS-APIRequest', 'true');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        ocs: {
          meta: { status: 'failure', statuscode: 997, message: 'Current user is not logged in' },
          data: [],
        },
      });
    });
    it('wrong Basic password → 401 Unauthorised with WWW-Authenticate', async () => {
      const res = await t
        .http()
        .get('/ocs/v2.php/cloud/user?format=json')
        .set('OCS-APIRequest', 'true')
        .set('Authorization', basic(alice.user.name, 'nope'));
      expect(res.status).toBe(401);
      expect(res.body.ocs.meta).toEqual({ status: 'failure', statuscode: 997, message: 'Unauthorised' });
      expect(res.headers['www-authenticate']).toBe('Basic realm="Authorisation Required"');
    });
    it('expired token → 401 statuscode 997', async () => {
      const res = await t
        .http()
        .get('/ocs/v2.php/cloud/user?format=json')
        .set('OCS-APIRequest', 'true')
        .set('Authorization', basic(alice.user.name, expiredToken));
      expect(res.status).toBe(401);
      expect(res.body.ocs.meta.statuscode).toBe(997);
    });
    it('missing OCS-APIRequest → 412 plain JSON; Bearer passes without it', async () => {
      const refused = await t
        .http()
        .get('/ocs/v2.php/cloud/user?format=json')
        .set('Authorization', basic(alice.user.name, alice.password));
      expect(refused.status).toBe(412);
      expect(refused.body).toEqual({ message: 'CSRF check failed' });
      const bearer = await t
        .http()
        .get('/ocs/v2.php/cloud/user?format=json')
        .set('Authorization', `Bearer ${alice.token}`);
      expect(bearer.status).toBe(200);
    });
    it('XML by default', async () => {
      const res = await t
        .http()
        .get('/ocs/v2.php/cloud/user')
        .set('OCS-APIRequest', 'true')
        .set('Authorization', `Bearer ${alice.token}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/application\/xml/);
      expect(res.text).toContain(
        `<ocs><meta><status>ok</status><statuscode>200</statuscode><message>OK</message></meta><data><id>${alice.user.name}</id>`,
      );
    });
  });

  describe('public and operational routes', () => {
    it('GET /api/v2/buildinfo is public and has a stable deployment id', async () => {
      const first = await t.http().get('/api/v2/buildinfo');
      const second = await t.http().get('/api/v2/buildinfo');
      expect(first.status).toBe(200);
      expect(first.body.deployment_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.body.deployment_id).toBe(first.body.deployment_id);
    });
    it('healthz and readyz', async () => {
      expect((await t.http().get('/healthz')).body).toEqual({ status: 'ok' });
      expect((await t.http().get('/readyz')).body).toEqual({ status: 'ok', database: 'ok' });
    });
    it('the bootstrap admin exists, is owner and site admin', async () => {
      const res = await t
        .http()
        .get('/api/v2/users/me')
        .set('Authorization', basic(BOOTSTRAP_ADMIN.email, BOOTSTRAP_ADMIN.password));
      expect(res.status).toBe(200);
      expect(res.body.roles).toEqual([{ name: 'owner', display_name: 'Owner' }]);
      const gitea = await t
        .http()
        .get('/api/v1/user')
        .set('Authorization', basic(BOOTSTRAP_ADMIN.username, BOOTSTRAP_ADMIN.password));
      expect(gitea.body.is_admin).toBe(true);
    });
    it('echoes a request id', async () => {
      const res = await t.http().get('/healthz').set('X-Request-Id', 'abc-123');
      expect(res.headers['x-request-id']).toBe('abc-123');
    });
  });
});

/** Routes declared only for the principal tests (the workspaces module will declare the real ones). */
@CoderController('principal-probe')
class PrincipalProbe {
  @Authenticated({ principals: ['agent'] })
  agentOnly(): void {}

  @Authenticated({ principals: ['user', 'provisioner'] })
  userOrProvisioner(): void {}

  @Authenticated()
  userOnly(): void {}
}

/** Principals beyond users: workspace agents (agent token) and provisioner daemons (provisioner key). */
describe('principals: users, workspace agents, provisioner daemons', () => {
  let t: TestApp;
  let alice: CreatedUser;
  const AGENT_TOKEN = '0b0b3c1e-6f5a-4d2b-9a47-1c2d3e4f5a6b';
  const PROVISIONER_KEY = 'provisioner-key-secret';

  beforeAll(async () => {
    t = await createTestApp();
    alice = await t.factories.user();
  });
  afterAll(() => t.close());

  /** Registers port implementations the way the workspaces module will (here: on the live verifier). */
  function registerLookups(): void {
    const agents: WorkspaceAgentLookup = {
      findByToken: (token) =>
        Promise.resolve(
          token === AGENT_TOKEN
            ? { agentId: 'agent-1', workspaceId: 'ws-1', ownerId: alice.user.uuid }
            : null,
        ),
    };
    const provisioners: ProvisionerKeyLookup = {
      findByKey: (key) =>
        Promise.resolve(
          key === PROVISIONER_KEY
            ? { keyId: 'key-1', organizationId: 'org-1', name: 'default', tags: {} }
            : null,
        ),
    };
    Object.assign(t.app.get(CredentialVerifier), { agents, provisioners });
  }

  function unregisterLookups(): void {
    Object.assign(t.app.get(CredentialVerifier), { agents: undefined, provisioners: undefined });
  }

  async function decide(handler: (...args: never[]) => unknown, headers: Record<string, string>) {
    const req = {
      path: '/probe',
      url: '/probe',
      method: 'GET',
      query: {},
      headers,
      cookies: {},
      ip: '127.0.0.1',
    };
    const context = {
      getType: () => 'http',
      getHandler: () => handler,
      getClass: () => PrincipalProbe,
      switchToHttp: () => ({ getRequest: () => req, getResponse: () => ({ setHeader: () => undefined }) }),
    } as unknown as ExecutionContext;
    try {
      await t.app.get(AuthGuard).canActivate(context);
      return { allowed: true, any: requestAnyPrincipal(req as never), user: requestPrincipal(req as never) };
    } catch (error) {
      if (error instanceof UnauthenticatedError)
        return { allowed: false, status: 401, message: error.message };
      throw error;
    }
  }

  it('without the workspaces ports, an agent token is refused like the malformed key it was, and the provisioner header is ignored', async () => {
    unregisterLookups();
    const res = await t.http().get('/api/v2/users/me').set('Service-Session-Token', AGENT_TOKEN);
    expect(res.status).toBe(401);
    expect(
      (await decide(PrincipalProbe.prototype.agentOnly, { 'service-session-token': AGENT_TOKEN })).allowed,
    ).toBe(false);
    const provisioner = await decide(PrincipalProbe.prototype.userOrProvisioner, {
      'service-provisioner-key': PROVISIONER_KEY,
    });
    expect(provisioner).toMatchObject({ allowed: false, message: 'Authentication required.' });
    const gitea = await t.http().get('/api/v1/version').set('Service-Provisioner-Key', PROVISIONER_KEY);
    expect(gitea.status).toBe(200);
  });

  it('with the ports, each kind reaches only the routes that admit it; users stay the default', async () => {
    registerLookups();
    try {
      const agent = await decide(PrincipalProbe.prototype.agentOnly, {
        'service-session-token': AGENT_TOKEN,
      });
      expect(agent.allowed).toBe(true);
      expect(agent.any).toMatchObject({ kind: 'agent', agent: { agentId: 'agent-1' } });
      expect(agent.user).toBeUndefined();
      expect(
        await decide(PrincipalProbe.prototype.userOnly, { 'service-session-token': AGENT_TOKEN }),
      ).toMatchObject({ allowed: false, status: 401 });
      expect(
        await decide(PrincipalProbe.prototype.agentOnly, { 'service-session-token': alice.token }),
      ).toMatchObject({ allowed: false, status: 401 });
      expect(
        await decide(PrincipalProbe.prototype.agentOnly, {
          'service-session-token': '11111111-2222-4333-8444-555555555555',
        }),
      ).toMatchObject({ allowed: false, status: 401 });

      const provisioner = await decide(PrincipalProbe.prototype.userOrProvisioner, {
        'service-provisioner-key': PROVISIONER_KEY,
      });
      expect(provisioner.allowed).toBe(true);
      expect(provisioner.any).toMatchObject({ kind: 'provisioner', provisioner: { keyId: 'key-1' } });
      expect(
        await decide(PrincipalProbe.prototype.userOrProvisioner, { 'service-provisioner-key': 'wrong' }),
      ).toMatchObject({ allowed: false, status: 401 });
      expect(
        await decide(PrincipalProbe.prototype.userOrProvisioner, { authorization: `Bearer ${alice.token}` }),
      ).toMatchObject({ allowed: true });
      expect(
        await decide(PrincipalProbe.prototype.agentOnly, { 'service-provisioner-key': PROVISIONER_KEY }),
      ).toMatchObject({ allowed: false, status: 401 });

      // Existing user routes refuse agents over HTTP too.
      expect((await t.http().get('/api/v1/user').set('Service-Session-Token', AGENT_TOKEN)).status).toBe(401);
      expect(
        (await t.http().get('/api/v2/users/me').set('Service-Provisioner-Key', PROVISIONER_KEY)).status,
      ).toBe(401);
    } finally {
      unregisterLookups();
    }
  });
});
