import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { RawBody } from '../../../api/body/body.decorators';
import { jsonTooDeep } from '../../../api/body/read-body';
import { CoderController } from '../../../api/coder/coder-controller.decorator';
import { CoderResponseDto } from '../../../api/coder/coder-response.dto';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../../platform/errors/domain-error';
import { Authenticated, CurrentPrincipal } from '../../../api/access/access.decorators';
import { AI_GOVERNANCE_HEADER } from '../../auth/strategies/presented-credential';
import type { Principal } from '../../../api/access/principal';
import { AI_GATEWAY_CONFIG, type AiGatewayConfig } from '../ai-gateway.config';
import { AiProvidersService } from '../ai-providers.service';
import { InterceptionsRecorder } from '../interceptions-recorder.service';
import {
  clientFromUserAgent,
  maskKey,
  requestFacts,
  ResponseCollector,
  type ResponseFacts,
  wireApi,
} from '../wire/provider-wire';
import { upstreamRequest } from '../wire/upstream-request';
import { providerApiPath, upstreamUrl } from '../wire/upstream-url';

/** Header of a user's own provider key (BYOK mode). */
export const BYOK_HEADER = 'x-ai-gateway-provider-key';
/**
 * The user's own provider key (BYOK): `X-AI-Gateway-Provider-Key`, or, when the devplane token came in
 * the governance header (Coder's AI Bridge convention), the provider's standard header as unmodified
 * SDKs send it (`Authorization: Bearer` for OpenAI, `x-api-key` or Bearer for Anthropic).
 */
function userProviderKey(req: Request, type: string): string | undefined {
  const explicit = req.headers[BYOK_HEADER];
  if (typeof explicit === 'string' && explicit !== '') return explicit;
  if (typeof req.headers[AI_GOVERNANCE_HEADER] !== 'string') return undefined;
  const apiKey = req.headers['x-api-key'];
  if (type === 'anthropic' && typeof apiKey === 'string' && apiKey !== '') return apiKey;
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

/** Header of the client's session key (at most 256 characters). */
export const SESSION_HEADER = 'x-ai-gateway-session-id';
const BODY_LIMIT = 32 * 1024 * 1024;
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'accept',
  'user-agent',
  'anthropic-version',
  'anthropic-beta',
  'openai-beta',
];
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'upgrade',
  'proxy-authenticate',
  'set-cookie',
]);

/**
 * The data plane (`/api/v2/aigateway/{provider}/...`, alias `/api/v2/ai-gateway/...`): requests to
 * a provider instance, authenticated with a devplane token, forwarded with the provider's key, the
 * answer streamed back chunk by chunk as it arrives (no buffering), each one recorded as an
 * interception.
 */
@CoderController('aigateway')
export class AiGatewayProxyController {
  constructor(
    private readonly providers: AiProvidersService,
    private readonly recorder: InterceptionsRecorder,
    @Inject(AI_GATEWAY_CONFIG) private readonly config: AiGatewayConfig,
  ) {}

  @Get(':provider/*rest')
  @Authenticated({ tokenScope: { type: 'aibridge_interception', action: 'create' } })
  @ApiOperation({
    summary: 'Proxy a GET to a provider instance (e.g. v1/models); the answer passes through unchanged',
  })
  @ApiParam({ name: 'provider', description: 'provider instance name' })
  @ApiParam({ name: 'rest', description: 'the provider API path' })
  @ApiResponse({ status: 200, description: "the provider's response" })
  @ApiResponse({ status: 404, type: CoderResponseDto })
  async proxyGet(
    @CurrentPrincipal() principal: Principal,
    @Param('provider') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    return this.proxy(principal, name, req, res);
  }

  @Post(':provider/*rest')
  @RawBody({ limitBytes: BODY_LIMIT })
  @Authenticated({ tokenScope: { type: 'aibridge_interception', action: 'create' } })
  @ApiOperation({
    summary:
      "Proxy to a provider instance: OpenAI chat/completions and responses, Anthropic messages (streamed or not); the provider's answers and errors pass through unchanged",
  })
  @ApiParam({ name: 'provider', description: 'provider instance name' })
  @ApiParam({ name: 'rest', description: 'the provider API path, e.g. v1/chat/completions' })
  @ApiResponse({ status: 200, description: "the provider's response" })
  @ApiResponse({ status: 403, type: CoderResponseDto })
  @ApiResponse({ status: 404, type: CoderResponseDto })
  @ApiResponse({ status: 502, type: CoderResponseDto })
  async proxy(
    @CurrentPrincipal() principal: Principal,
    @Param('provider') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const provider = await this.providers.find(name);
    if (!provider) throw new NotFoundError('Provider not found.', { code: 'AI_PROVIDER_NOT_FOUND' });
    // Routed on the decoded name; the API path is taken from the raw URL after the provider segment.
    const api = providerApiPath(req.originalUrl);
    const upstreamPath = `${api.path}${api.search}`;
    const sessionHeader = req.headers[SESSION_HEADER];
    const clientSessionId = typeof sessionHeader === 'string' && sessionHeader !== '' ? sessionHeader : null;
    if (clientSessionId !== null && clientSessionId.length > 256)
      throw new BadRequestError('The session id must be at most 256 characters.', { code: 'AI_SESSION_ID' });
    const ownKey = userProviderKey(req, provider.type);
    let key: string | null;
    let credentialKind: 'centralized' | 'byok';
    if (typeof ownKey === 'string' && ownKey !== '') {
      if (!this.config.byok)
        throw new ForbiddenError('Bring Your Own Key (BYOK) mode is not enabled.', 'permission', {
          code: 'AI_BYOK_DISABLED',
        });
      key = ownKey;
      credentialKind = 'byok';
    } else {
      key = this.providers.keyOf(provider);
      credentialKind = 'centralized';
      if (!key)
        throw new BadRequestError(
          `Provider "${name}" has no centralized key; send your own key in ${BYOK_HEADER}.`,
          { code: 'AI_NO_KEY' },
        );
    }

    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let parsed: unknown = undefined;
    const text = body.length > 0 ? body.toString('utf8') : '';
    // A body nested deeper than the parsers allow (#31.9) is forwarded unread, like one that is not JSON.
    if (text !== '' && !jsonTooDeep(text)) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined; // forwarded as it is; the provider answers
      }
    }
    const facts = requestFacts(provider.type, upstreamPath, parsed);
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const header of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers[header];
      if (typeof value === 'string') headers[header] = value;
    }
    if (provider.type === 'anthropic') {
      headers['x-api-key'] = key;
      headers['anthropic-version'] ??= '2023-06-01';
    } else headers.authorization = `Bearer ${key}`;

    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    // Prepared while the provider works (no write): it adds nothing to the first byte.
    const recording = this.recorder.prepare({
      initiatorId: principal.user.id,
      apiKeyId: principal.token?.id ?? null,
      provider: provider.type,
      providerName: provider.name,
      model: facts.model,
      client: clientFromUserAgent(req.headers['user-agent']),
      clientSessionId,
      credentialKind,
      credentialHint: maskKey(key),
      toolResultIds: facts.toolResultIds,
      metadata: { path: upstreamPath.split('?')[0], stream: facts.stream },
    });
    recording.catch(() => undefined);
    const responses: ResponseFacts[] = [];
    let statusCode = 502;
    let error: { type: string; message: string } | null = null;
    try {
      const upstream = await upstreamRequest(upstreamUrl(provider.baseUrl, api), {
        method: req.method,
        headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
        signal: abort.signal,
      });
      statusCode = upstream.status;
      res.status(upstream.status);
      for (const [header, value] of Object.entries(upstream.headers))
        if (value !== undefined && !HOP_BY_HOP.has(header)) res.setHeader(header, value);
      const contentType = upstream.headers['content-type'] ?? '';
      const wire = facts.api ?? wireApi(provider.type, upstreamPath);
      const collector = wire ? new ResponseCollector(wire, contentType.includes('text/event-stream')) : null;
      res.flushHeaders();
      for await (const chunk of upstream.body as AsyncIterable<Buffer>) {
        collector?.push(chunk);
        // A client slower than the provider: wait for it rather than queue the stream in memory.
        if (!res.write(chunk) && !res.destroyed)
          await new Promise<void>((resolve) => {
            const done = (): void => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.once('drain', done);
            res.once('close', done);
          });
      }
      if (collector) {
        const collected = collector.finish();
        responses.push(collected);
        error =
          collected.error ??
          (upstream.status >= 400 ? { type: `http_${upstream.status}`, message: '' } : null);
        // Known before the client can answer a tool call: its next request joins this thread.
        const started = await recording.catch(() => null);
        if (started && collected.toolCalls.length > 0)
          this.recorder.remember(
            started,
            collected.toolCalls.map((toolCall) => toolCall.id),
          );
      }
      res.end();
    } catch (failure) {
      if (abort.signal.aborted) {
        error = { type: 'client_disconnected', message: 'the client closed the connection' };
        statusCode = 499;
      } else {
        error = {
          type: 'upstream_unreachable',
          message: failure instanceof Error ? failure.message : String(failure),
        };
        if (!res.headersSent)
          res.status(502).json({ message: 'The AI provider could not be reached.', detail: error.message });
        else res.end();
      }
    }
    try {
      const interception = await recording;
      await this.recorder.finishQuietly(interception, { statusCode, prompt: facts.prompt, responses, error });
    } catch {
      // the start failed; it was logged by the recorder's caller chain
    }
  }
}

/** The data plane under `/api/v2/ai-gateway` (alias). */
@CoderController('ai-gateway')
export class AiGatewayProxyAliasController extends AiGatewayProxyController {}
