import { Injectable } from '@nestjs/common';
import { BadRequestError, NotFoundError, UnauthenticatedError } from '../../platform/errors/domain-error';
import {
  type ModelCall,
  type ModelCallResult,
  ModelGateway,
  type ModelUsage,
} from '../../platform/ports/model-gateway';
import { IdentityDirectory } from '../identity/identity-directory.service';
import { AiProvidersService } from './ai-providers.service';
import { InterceptionsRecorder } from './interceptions-recorder.service';
import {
  clientFromUserAgent,
  maskKey,
  requestFacts,
  ResponseCollector,
  type ResponseFacts,
  type Usage,
  wireApi,
} from './wire/provider-wire';
import { upstreamRequest } from './wire/upstream-request';
import { upstreamUrl } from './wire/upstream-url';

/**
 * Why the initiator may not make model calls, or null: the rule realtime connections recheck held
 * credentials with (active or dormant, login not prohibited; a dormant user is not reactivated by a
 * background call). The old loopback path got the same refusals from the guard through the minted token.
 */
export function initiatorRefusal(
  state: { status: string; prohibit_login: boolean } | undefined,
): string | null {
  if (!state) return 'User deleted.';
  if (state.status !== 'active' && state.status !== 'dormant')
    return `User is not active (status = "${state.status}"). Contact an admin to reactivate your account.`;
  if (state.prohibit_login)
    return 'This account is prohibited from signing in, please contact your site administrator.';
  return null;
}

function modelUsage(usage: Usage | null): ModelUsage {
  if (!usage) return { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 };
  return {
    input: usage.input,
    output: usage.output,
    reasoning: usage.metadata.completion_reasoning ?? 0,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
  };
}

/**
 * The `ModelGateway` port (issue 47.1): a data-plane call made in process, for the chat runner. The
 * same steps as `AiGatewayProxyController.proxy` with the centralized key (no BYOK: there is no
 * client key): the interception prepared as the request leaves (thread root by tool-call
 * correlation), the answer read by the same wire reader, the tool calls remembered for the next
 * request's thread, the record queued in the recorder's batch; the usage returned is the recorded one.
 * The initiator is admitted as the data plane's guard admits a token's owner: a deleted, suspended or
 * login-prohibited user gets no call (401 `inactive`, before the provider is looked up or reached).
 */
@Injectable()
export class ModelGatewayService extends ModelGateway {
  constructor(
    private readonly providers: AiProvidersService,
    private readonly recorder: InterceptionsRecorder,
    private readonly directory: IdentityDirectory,
  ) {
    super();
  }

  async call(input: ModelCall): Promise<ModelCallResult> {
    await this.admitInitiator(input.initiatorId);
    const provider = await this.providers.find(input.provider);
    if (!provider) throw new NotFoundError('Provider not found.', { code: 'AI_PROVIDER_NOT_FOUND' });
    if (input.sessionId !== null && input.sessionId.length > 256)
      throw new BadRequestError('The session id must be at most 256 characters.', { code: 'AI_SESSION_ID' });
    const key = this.providers.keyOf(provider);
    if (!key)
      throw new BadRequestError(`Provider "${provider.name}" has no centralized key.`, { code: 'AI_NO_KEY' });
    const api = { path: input.path, search: '' };
    const facts = requestFacts(provider.type, input.path, input.body);
    const body = Buffer.from(JSON.stringify(input.body));
    const headers: Record<string, string> = {
      'accept-encoding': 'identity',
      'content-type': 'application/json',
      'user-agent': input.userAgent,
    };
    if (provider.type === 'anthropic') {
      headers['x-api-key'] = key;
      headers['anthropic-version'] = '2023-06-01';
    } else headers.authorization = `Bearer ${key}`;

    const interception = await this.recorder.prepare({
      initiatorId: input.initiatorId,
      apiKeyId: null,
      provider: provider.type,
      providerName: provider.name,
      model: facts.model,
      client: clientFromUserAgent(input.userAgent),
      clientSessionId: input.sessionId,
      credentialKind: 'centralized',
      credentialHint: maskKey(key),
      toolResultIds: facts.toolResultIds,
      metadata: { path: input.path, stream: facts.stream },
    });
    const responses: ResponseFacts[] = [];
    let statusCode = 502;
    let error: { type: string; message: string } | null = null;
    let text = '';
    try {
      const upstream = await upstreamRequest(upstreamUrl(provider.baseUrl, api), {
        method: 'POST',
        headers,
        body,
        signal: input.signal ?? new AbortController().signal,
      });
      statusCode = upstream.status;
      const wire = facts.api ?? wireApi(provider.type, input.path);
      const sse = (upstream.headers['content-type'] ?? '').includes('text/event-stream');
      const collector = wire ? new ResponseCollector(wire, sse) : null;
      const chunks: Buffer[] = [];
      for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
        collector?.push(chunk);
        chunks.push(chunk);
      }
      text = Buffer.concat(chunks).toString('utf8');
      if (collector) {
        const collected = collector.finish();
        responses.push(collected);
        error = collected.error ?? (statusCode >= 400 ? { type: `http_${statusCode}`, message: '' } : null);
        if (collected.toolCalls.length > 0)
          this.recorder.remember(
            interception,
            collected.toolCalls.map((call) => call.id),
          );
      }
    } catch (failure) {
      const aborted = input.signal?.aborted === true;
      error = aborted
        ? { type: 'client_disconnected', message: 'the client closed the connection' }
        : {
            type: 'upstream_unreachable',
            message: failure instanceof Error ? failure.message : String(failure),
          };
      statusCode = aborted ? 499 : 502;
      void this.recorder.finishQuietly(interception, { statusCode, prompt: facts.prompt, responses, error });
      throw new Error(`model call failed: ${error.message}`);
    }
    // Queued in the recorder's batch, as the data plane does once the client has its answer.
    void this.recorder.finishQuietly(interception, { statusCode, prompt: facts.prompt, responses, error });
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    const answer = responses[0];
    return {
      interceptionId: interception.id,
      status: statusCode,
      body: parsed,
      usage: modelUsage(answer?.usage ?? null),
      toolCalls: (answer?.toolCalls ?? []).map((call) => ({
        id: call.id,
        name: call.name,
        arguments: call.input,
      })),
      error,
    };
  }

  /** One primary-key read: the initiator's status now (never a cached principal). */
  private async admitInitiator(initiatorId: string): Promise<void> {
    const [state] = /^\d+$/.test(initiatorId) ? await this.directory.loginStates([initiatorId]) : [];
    const refusal = initiatorRefusal(state);
    if (refusal) throw new UnauthenticatedError('inactive', refusal);
  }
}
