/**
 * Model calls in process (issue 47.1): the AI gateway implements it and provides it globally; the
 * chat runner calls it instead of the gateway's HTTP data plane on loopback (no API token minted,
 * no trip through the route index, logger, throttler and guard). A call is recorded exactly as a
 * data-plane request of the same user: one interception (initiator, provider, model, client,
 * session, thread), its token usages, prompt and tool calls; the usage in the result is the one
 * written to that record (one parser: the gateway's wire reader). Absent when the gateway is not
 * loaded.
 */
export interface ModelCall {
  /** The user the call is made for: the interception's initiator (a user id, as a token's owner). */
  initiatorId: string;
  /** The provider instance's name. */
  provider: string;
  /** The provider API path, as a data-plane client writes it after `{provider}` (`/v1/chat/completions`). */
  path: string;
  /** The request body (JSON), sent to the provider as it is. */
  body: Record<string, unknown>;
  /** The client's session key (`X-AI-Gateway-Session-Id` on the data plane); at most 256 characters. */
  sessionId: string | null;
  /** What a data-plane client would send as its User-Agent (the recorded client is read from it). */
  userAgent: string;
  /** Abandons the call (recorded as the data plane records a client that went away). */
  signal?: AbortSignal;
}

/** Token counts of one response, as the gateway records them (cached input counted apart from input). */
export interface ModelUsage {
  input: number;
  /** Includes reasoning tokens. */
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelCallResult {
  /** The interception recorded for this call. */
  interceptionId: string;
  /** The provider's HTTP status. */
  status: number;
  /** The provider's answer, parsed (null when it was not JSON). */
  body: unknown;
  /** The usage recorded with the interception (zeros when the provider reported none). */
  usage: ModelUsage;
  /** The tool calls the answer asks for (arguments as JSON text). */
  toolCalls: { id: string; name: string; arguments: string }[];
  /** The provider's error, as recorded (`error_type`, `error_message`), or null. */
  error: { type: string; message: string } | null;
}

export abstract class ModelGateway {
  /**
   * One non-streamed call to a provider instance. Throws when the provider does not exist or has no
   * centralized key, or when it cannot be reached (recorded first, as the data plane does); a provider's
   * own error is a result with its status.
   */
  abstract call(input: ModelCall): Promise<ModelCallResult>;
}
