import { providerApiPath, upstreamUrl } from '../../../src/modules/ai-gateway/wire/upstream-url';

describe('AI gateway upstream URLs (issue 31.11, 33.10)', () => {
  it('takes the raw API path after the provider segment, whatever its encoding', () => {
    expect(providerApiPath('/api/v2/aigateway/open%61i/v1/chat/completions?a=%2F')).toEqual({
      path: '/v1/chat/completions',
      search: '?a=%2F',
    });
    expect(providerApiPath('/api/v2/ai-gateway/o/v1/models')).toEqual({ path: '/v1/models', search: '' });
    expect(providerApiPath('/api/v2/aigateway/o/v1/files/a%2Fb')).toEqual({
      path: '/v1/files/a%2Fb',
      search: '',
    });
  });

  it('refuses dot segments and a missing path', () => {
    expect(() => providerApiPath('/api/v2/aigateway/o/v1/%2e%2e/x')).toThrow('dot segments');
    expect(() => providerApiPath('/api/v2/aigateway/o/./x')).toThrow('dot segments');
    expect(() => providerApiPath('/api/v2/aigateway/o')).toThrow('missing');
  });

  it('joins base URL and path with the URL API, one /v1 for a base ending in /v1', () => {
    const api = { path: '/v1/chat/completions', search: '?q=1' };
    expect(upstreamUrl('https://api.openai.com/v1/', api).href).toBe(
      'https://api.openai.com/v1/chat/completions?q=1',
    );
    expect(upstreamUrl('https://api.openai.com/v1', api).href).toBe(
      'https://api.openai.com/v1/chat/completions?q=1',
    );
    expect(upstreamUrl('http://127.0.0.1:8000', api).href).toBe(
      'http://127.0.0.1:8000/v1/chat/completions?q=1',
    );
    expect(upstreamUrl('http://h/proxy/openai', { path: '/v1/models', search: '' }).href).toBe(
      'http://h/proxy/openai/v1/models',
    );
  });
});
