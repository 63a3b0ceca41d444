import { EventEmitter2 } from '@nestjs/event-emitter';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { OneTimePasscode } from '../../src/modules/auth/entities/one-time-passcode.entity';
import type { AuthEvents } from '../../src/modules/auth/events';
import type { CreatedUser } from '../helpers/factories';
import { createTestApp, type TestApp } from '../helpers/test-app';

type PasscodeEvent = AuthEvents['auth.one_time_passcode_requested'];
const INCORRECT = { message: 'Incorrect email or one-time passcode.' };
const NEW_PASSWORD = 'Brand-New-Password-42!';

/** Captures `auth.one_time_passcode_requested` in the test: proves the auth side independently of delivery. */
function captureEvents(t: TestApp): PasscodeEvent[] {
  const events: PasscodeEvent[] = [];
  t.app
    .get(EventEmitter2)
    .on('auth.one_time_passcode_requested', (payload: PasscodeEvent) => events.push(payload));
  return events;
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('auth: one-time passcodes (event level)', () => {
  let t: TestApp;
  let events: PasscodeEvent[];
  let alice: CreatedUser;
  let bob: CreatedUser;
  const request = (email: unknown) => t.http().post('/api/v2/users/otp/request').send({ email });
  const change = (body: object) => t.http().post('/api/v2/users/otp/change-password').send(body);
  const requestCode = async (user: CreatedUser): Promise<string> => {
    const before = events.length;
    expect((await request(user.user.email.toUpperCase())).status).toBe(204);
    const event = await waitFor(() => events.slice(before).find((e) => e.userId === user.user.id));
    return event.passcode;
  };

  beforeAll(async () => {
    t = await createTestApp();
    events = captureEvents(t);
    alice = await t.factories.user();
    bob = await t.factories.user();
  });
  afterAll(() => t.close());

  it('request: 204 and one event with a UUID passcode, stored hashed, valid 20 minutes', async () => {
    const res = await request(alice.user.email);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const event = await waitFor(() => events.find((e) => e.userId === alice.user.id));
    expect(event).toMatchObject({ email: alice.user.email, username: alice.user.name });
    expect(event.passcode).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Math.abs(new Date(event.expiresAt).getTime() - Date.now() - 20 * 60_000)).toBeLessThan(30_000);
    const row = await t.dataSource.getRepository(OneTimePasscode).findOneByOrFail({ userId: alice.user.id });
    expect(row.hashedPasscode.toString('utf8')).not.toContain(event.passcode);
    expect(row.hashedPasscode).toHaveLength(32);
  });

  it('request: 204 and no event for an unknown email; 400 for a bad email', async () => {
    const before = events.length;
    expect((await request('nobody@example.com')).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events.length).toBe(before);
    const bad = await request('nope');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      message: 'Validation failed.',
      validations: [{ field: 'email', detail: 'Validation failed for tag "email" with value: "nope"' }],
    });
  });

  it('change-password: validation, weak password before the code check', async () => {
    const missing = await change({ email: alice.user.email, password: NEW_PASSWORD });
    expect(missing.status).toBe(400);
    expect(missing.body.validations).toEqual([
      { field: 'one_time_passcode', detail: 'Validation failed for tag "required" with value: ""' },
    ]);
    const weak = await change({
      email: alice.user.email,
      one_time_passcode: 'whatever',
      password: 'password',
    });
    expect(weak.status).toBe(400);
    expect(weak.body).toEqual({
      message: 'Invalid password.',
      validations: [
        {
          field: 'password',
          detail:
            'insecure password, try including more special characters, using uppercase letters, using numbers or using a longer password',
        },
      ],
    });
  });

  it('change-password: wrong, foreign, never-requested and expired codes are 400 with one text', async () => {
    const aliceCode = await requestCode(alice);
    const carol = await t.factories.user();
    for (const body of [
      {
        email: alice.user.email,
        one_time_passcode: '00000000-0000-4000-8000-000000000000',
        password: NEW_PASSWORD,
      },
      { email: bob.user.email, one_time_passcode: aliceCode, password: NEW_PASSWORD },
      { email: carol.user.email, one_time_passcode: aliceCode, password: NEW_PASSWORD },
      { email: 'nobody@example.com', one_time_passcode: aliceCode, password: NEW_PASSWORD },
    ]) {
      const res = await change(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INCORRECT);
    }
    await t.dataSource
      .getRepository(OneTimePasscode)
      .update({ userId: alice.user.id }, { expiresAt: new Date(Date.now() - 1000) });
    const expired = await change({
      email: alice.user.email,
      one_time_passcode: aliceCode,
      password: NEW_PASSWORD,
    });
    expect(expired.status).toBe(400);
    expect(expired.body).toEqual(INCORRECT);
  });

  it('a second request replaces the first code', async () => {
    const first = await requestCode(bob);
    const second = await requestCode(bob);
    expect(second).not.toBe(first);
    const old = await change({ email: bob.user.email, one_time_passcode: first, password: NEW_PASSWORD });
    expect(old.status).toBe(400);
    expect(
      (await change({ email: bob.user.email, one_time_passcode: second, password: NEW_PASSWORD })).status,
    ).toBe(204);
  });

  it('the same password as now: 400 New password cannot match old password.', async () => {
    const dave = await t.factories.user({ password: 'Dave-Old-Password-7!' });
    const code = await requestCode(dave);
    const res = await change({
      email: dave.user.email,
      one_time_passcode: code,
      password: 'Dave-Old-Password-7!',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'New password cannot match old password.' });
  });

  it('success: 204, new password works, old does not, every session and token is gone, the code works once', async () => {
    const erin = await t.factories.user();
    const session = (
      await t.http().post('/api/v2/users/login').send({ email: erin.user.email, password: erin.password })
    ).body.session_token as string;
    const code = await requestCode(erin);
    const changed: unknown[] = [];
    t.app.get(EventEmitter2).on('auth.password_changed', (payload: unknown) => changed.push(payload));
    const res = await change({ email: erin.user.email, one_time_passcode: code, password: NEW_PASSWORD });
    expect(res.status).toBe(204);
    await waitFor(() => (changed.length > 0 ? true : undefined));
    expect(changed).toContainEqual({ userId: erin.user.id, via: 'one_time_passcode' });
    for (const key of [session, erin.token]) {
      const me = await t.http().get('/api/v2/users/me').set('Service-Session-Token', key);
      expect(me.status).toBe(401);
      expect(me.body.detail).toBe('API key is invalid.');
    }
    expect(
      (await t.http().post('/api/v2/users/login').send({ email: erin.user.email, password: erin.password }))
        .status,
    ).toBe(401);
    expect(
      (await t.http().post('/api/v2/users/login').send({ email: erin.user.email, password: NEW_PASSWORD }))
        .status,
    ).toBe(201);
    const reuse = await change({
      email: erin.user.email,
      one_time_passcode: code,
      password: 'Another-New-Password-9!',
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual(INCORRECT);
  });
});

/**
 * The whole flow through a real SMTP server: NotificationsModule delivers the event by email
 * ("Reset your password", never in the inbox). Depends on the notifications issue.
 */
describe('auth: one-time passcode by email (real SMTP)', () => {
  let t: TestApp;
  let smtp: SMTPServer;
  const mails: { to: string[]; raw: string }[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as AddressInfo;
    t = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, NOTIFICATIONS_METHOD: 'smtp' } });
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  /** Quoted-printable soft breaks and escapes, enough to read the link. */
  function decode(raw: string): string {
    return raw
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }

  it('the email arrives, the code works once, old tokens stop working, nothing in the inbox', async () => {
    const frank = await t.factories.user();
    expect(
      (await t.http().post('/api/v2/users/otp/request').send({ email: 'nobody@example.com' })).status,
    ).toBe(204);
    expect((await t.http().post('/api/v2/users/otp/request').send({ email: frank.user.email })).status).toBe(
      204,
    );
    const mail = await waitFor(() => mails.find((m) => m.to.includes(frank.user.email)), 15_000);
    const text = decode(mail.raw);
    expect(text).toMatch(/Subject: .*Reset your password/);
    const code = /otp=([0-9a-f-]{36})/.exec(text)?.[1];
    expect(code).toBeDefined();
    expect(text).toContain('email=');
    expect(mails.filter((m) => m.to.includes('nobody@example.com'))).toHaveLength(0);

    // Once sent, the queue row no longer holds the code (it stays until the retention purge).
    let stored: { status: string; payload: unknown } | undefined;
    for (
      const started = Date.now();
      !stored && Date.now() - started < 15_000;
      await new Promise((r) => setTimeout(r, 50))
    ) {
      const rows: { status: string; payload: unknown }[] = await t.dataSource.query(
        `SELECT status, payload FROM notification_messages WHERE user_id = $1 AND template_id = '62f86a30-2330-4b61-a26d-311ff3b608cf'`,
        [frank.user.id],
      );
      stored = rows.find((row) => row.status === 'sent');
    }
    expect(stored).toBeDefined();
    expect(JSON.stringify(stored!.payload)).not.toContain(code!);

    // Never in the inbox: the route answers, and holds nothing for this user.
    const inbox = await t.http().get('/api/v2/notifications/inbox').set('Service-Session-Token', frank.token);
    expect(inbox.status).toBe(200);
    expect(inbox.body.notifications).toEqual([]);
    expect(inbox.body.unread_count).toBe(0);

    const body = { email: frank.user.email, one_time_passcode: code, password: NEW_PASSWORD };
    expect((await t.http().post('/api/v2/users/otp/change-password').send(body)).status).toBe(204);
    expect((await t.http().get('/api/v2/users/me').set('Service-Session-Token', frank.token)).status).toBe(
      401,
    );
    const again = await t
      .http()
      .post('/api/v2/users/otp/change-password')
      .send({ ...body, password: 'Other-New-Password-3!' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual(INCORRECT);
  });
});
