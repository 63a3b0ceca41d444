import { BadRequestError } from '../../../platform/errors/domain-error';

/** The path prefixes of the data plane (`/api/v2/aigateway/{provider}/...` and its alias). */
const GATEWAY_SEGMENTS = new Set(['aigateway', 'ai-gateway']);

/**
 * The provider API path of a data-plane request, as the client sent it (still percent-encoded) with
 * its query: everything after the `{provider}` segment, whatever encoding that segment used (the
 * router decodes it for the lookup; issue 31.11). Dot segments (`.`, `..`, `%2e`) are refused: the
 * URL API would resolve them and leave the provider's base path.
 */
export function providerApiPath(originalUrl: string): { path: string; search: string } {
  // Split by hand: the URL parser would already resolve the dot segments checked below.
  const queryAt = originalUrl.indexOf('?');
  const pathname = queryAt < 0 ? originalUrl : originalUrl.slice(0, queryAt);
  const search = queryAt < 0 ? '' : originalUrl.slice(queryAt);
  const segments = pathname.split('/');
  const at = segments.findIndex((segment, index) => index > 0 && GATEWAY_SEGMENTS.has(segment));
  if (at < 0 || segments.length < at + 3)
    throw new BadRequestError('The provider API path is missing.', { code: 'AI_PATH' });
  const rest = segments.slice(at + 2);
  for (const segment of rest) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new BadRequestError('The provider API path is not valid.', { code: 'AI_PATH' });
    }
    if (decoded === '.' || decoded === '..')
      throw new BadRequestError('The provider API path must not contain dot segments.', { code: 'AI_PATH' });
  }
  return { path: `/${rest.join('/')}`, search: search === '?' ? '' : search };
}

/**
 * The upstream URL of a provider API path, built with the URL API only (never by string
 * concatenation): the base URL's path, then the API path. A base URL ending in `/v1` (the OpenAI
 * SDK's `https://api.openai.com/v1` form, vLLM, llama.cpp, Ollama) and a path starting with `/v1/`
 * give one `/v1`, not `/v1/v1/` (issue 33.10).
 */
export function upstreamUrl(baseUrl: string, api: { path: string; search: string }): URL {
  const url = new URL(baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  let path = api.path;
  if (/\/v1$/i.test(basePath) && /^\/v1(\/|$)/i.test(path)) path = path.slice(3) || '/';
  url.pathname = `${basePath}${path}`;
  url.search = api.search;
  url.hash = '';
  return url;
}
