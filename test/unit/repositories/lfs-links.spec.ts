import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../../src/platform/crypto/secret-box';
import { LfsLinkError, LfsLinks } from '../../../src/modules/repositories/lfs/lfs-links';
import type { RepositoriesConfig } from '../../../src/modules/repositories/repositories.config';

const config = { lfsLinkExpirySeconds: 600 } as RepositoriesConfig;
const claims = { op: 'download' as const, repositoryId: '7', oid: 'a'.repeat(64), userId: '3' };

describe('LFS transfer links (sealed, expiring)', () => {
  const links = new LfsLinks(config, new SecretBox(randomBytes(32)));

  it('opens what it signed, with the expiry it announced', () => {
    const now = Date.UTC(2030, 0, 1);
    const signed = links.sign(claims, now);
    expect(signed.expiresIn).toBe(600);
    expect(signed.header).toMatch(/^LFS v1\./);
    expect(links.open(signed.header, now + 1000)).toEqual({ ...claims, exp: now / 1000 + 600 });
  });

  it('refuses an expired link, a tampered one and one sealed under another key', () => {
    const now = Date.UTC(2030, 0, 1);
    const signed = links.sign(claims, now);
    expect(() => links.open(signed.header, now + 601_000)).toThrow(LfsLinkError);
    const tampered = signed.header.slice(0, -2) + (signed.header.endsWith('A') ? 'BB' : 'AA');
    expect(() => links.open(tampered, now)).toThrow(LfsLinkError);
    const other = new LfsLinks(config, new SecretBox(randomBytes(32)));
    expect(() => other.open(signed.header, now)).toThrow(LfsLinkError);
  });

  it('answers null for other Authorization values (the caller’s own credentials)', () => {
    expect(links.open(undefined)).toBeNull();
    expect(links.open('token abc')).toBeNull();
    expect(links.open('Basic dXNlcjpwYXNz')).toBeNull();
  });
});
