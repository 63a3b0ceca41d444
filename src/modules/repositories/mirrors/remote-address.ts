import { lookup } from 'node:dns/promises';
import { InvalidError } from '../../../platform/errors/domain-error';
import { isPrivateHost, isPublicAddress } from '../../../platform/net/private-address';

/** A remote git address checked for a migration: where git may connect, pinned to the address we checked. */
export interface CheckedRemote {
  /** The URL without credentials. */
  url: string;
  /** `host:port:address` for git's `http.curloptResolve`, so git connects where we checked (DNS rebinding). */
  pin: string;
}

function refused(message: string): InvalidError {
  return new InvalidError(message, { code: 'MIGRATE_REMOTE' });
}

/**
 * Gitea's clone address checks (`handleRemoteAddrError`): an http(s) URL without credentials in it
 * (they travel separately), whose host resolves only to public addresses unless local networks are
 * allowed. 422 with Gitea's texts otherwise.
 */
export async function checkRemoteAddress(raw: string, allowLocalNetworks: boolean): Promise<CheckedRemote> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('Invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused('Invalid protocol');
  if (!url.hostname) throw refused('Invalid URL');
  url.username = '';
  url.password = '';
  url.hash = '';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowLocalNetworks && isPrivateHost(host)) throw refused('You can not import from disallowed hosts.');
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    throw refused('Invalid URL');
  }
  const usable = allowLocalNetworks ? addresses : addresses.filter((a) => isPublicAddress(a.address));
  if (usable.length === 0) throw refused('You can not import from disallowed hosts.');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const address = usable[0]!.address;
  return { url: url.toString(), pin: `${host}:${port}:${address.includes(':') ? `[${address}]` : address}` };
}

/** The credentials of a migration as an `Authorization` header value, or null. */
export function authorizationFor(input: {
  username?: string;
  password?: string;
  token?: string;
}): string | null {
  // A token travels as the password of `oauth2` (what GitHub, GitLab and Gitea accept for git over HTTP).
  if (input.token) return `Basic ${Buffer.from(`oauth2:${input.token}`).toString('base64')}`;
  if (input.username || input.password)
    return `Basic ${Buffer.from(`${input.username ?? ''}:${input.password ?? ''}`).toString('base64')}`;
  return null;
}
