import { bool, ConfigError, type Env, int, list, read } from '../../platform/config/app-config';

export type ProviderType = 'openai' | 'anthropic';

export interface ConfiguredProvider {
  name: string;
  type: ProviderType;
  baseUrl: string;
  /** The centralized key; empty when the provider takes only users' own keys. */
  key: string;
}

/** Settings of the AI gateway (validated at boot; README.md in this folder). */
export interface AiGatewayConfig {
  /** `AI_GATEWAY_PROVIDERS`: a JSON list of `{name, type, base_url, key}`, upserted at start. */
  providers: ConfiguredProvider[];
  /** `AI_GATEWAY_BYOK`: users may send their own provider key (`X-AI-Gateway-Provider-Key`). */
  byok: boolean;
  /** `AI_GATEWAY_PROXY_ADDRESS` (`host:port`): the CONNECT proxy listener; off when unset. */
  proxyAddress: string | null;
  proxyTlsCert: string | null;
  proxyTlsKey: string | null;
  /** `AI_GATEWAY_PROXY_ALLOWED_CIDRS`: private ranges the CONNECT proxy may reach anyway. */
  proxyAllowedCidrs: string[];
  /** `AI_GATEWAY_UPSTREAM_PROXY` (`http://host:port`): tunnels are forwarded through it after the check. */
  upstreamProxy: string | null;
  /** Deprecated, hidden: `AI_GATEWAY_INJECT_PLATFORM_TOOLS` (a warning at start when on). */
  injectPlatformTools: boolean;
  /** `AI_GOVERNANCE_USER_LIMIT`: the AI seat entitlement; `has_ai_seat` is computed only when set. */
  aiSeatLimit: number | null;
}

export const AI_GATEWAY_CONFIG = Symbol('AI_GATEWAY_CONFIG');
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

function parseProviders(env: Env): ConfiguredProvider[] {
  const raw = read(env, 'AI_GATEWAY_PROVIDERS');
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('AI_GATEWAY_PROVIDERS', 'must be a JSON list of {name, type, base_url, key}');
  }
  if (!Array.isArray(parsed))
    throw new ConfigError('AI_GATEWAY_PROVIDERS', 'must be a JSON list of {name, type, base_url, key}');
  return parsed.map((entry: unknown, index) => {
    const item = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    const name = typeof item.name === 'string' ? item.name : '';
    const type = item.type;
    const baseUrl = typeof item.base_url === 'string' ? item.base_url : '';
    // The key is never echoed in the error: only which entry and which field.
    if (!NAME.test(name))
      throw new ConfigError('AI_GATEWAY_PROVIDERS', `entry ${index}: name must match ${NAME}`);
    if (type !== 'openai' && type !== 'anthropic')
      throw new ConfigError('AI_GATEWAY_PROVIDERS', `entry ${index}: type must be openai or anthropic`);
    if (!/^https?:\/\/[^/]/.test(baseUrl))
      throw new ConfigError('AI_GATEWAY_PROVIDERS', `entry ${index}: base_url must be an http(s) URL`);
    return {
      name,
      type,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      key: typeof item.key === 'string' ? item.key : '',
    };
  });
}

export function loadAiGatewayConfig(env: Env): AiGatewayConfig {
  const limit = read(env, 'AI_GOVERNANCE_USER_LIMIT');
  return {
    providers: parseProviders(env),
    byok: bool(env, 'AI_GATEWAY_BYOK', false),
    proxyAddress: read(env, 'AI_GATEWAY_PROXY_ADDRESS') ?? null,
    proxyTlsCert: read(env, 'AI_GATEWAY_PROXY_TLS_CERT') ?? null,
    proxyTlsKey: read(env, 'AI_GATEWAY_PROXY_TLS_KEY') ?? null,
    proxyAllowedCidrs: list(env, 'AI_GATEWAY_PROXY_ALLOWED_CIDRS'),
    upstreamProxy: read(env, 'AI_GATEWAY_UPSTREAM_PROXY') ?? null,
    injectPlatformTools: bool(env, 'AI_GATEWAY_INJECT_PLATFORM_TOOLS', false),
    aiSeatLimit: limit === undefined ? null : int(env, 'AI_GOVERNANCE_USER_LIMIT', 0, 0, 100_000_000),
  };
}
