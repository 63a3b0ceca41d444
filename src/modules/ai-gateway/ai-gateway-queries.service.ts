import { Injectable } from '@nestjs/common';
import { SearchParser, searchTerms } from '../../api/coder/coder-search-query';
import { BadRequestError, InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import { AuthorizationService } from '../auth/authorization.service';
import type { Principal } from '../../api/access/principal';
import { type AccountName, IdentityDirectory } from '../identity/identity-directory.service';
import { UsersService } from '../identity/users.service';
import {
  AiInterceptionsRepository,
  type InterceptionFilters,
  type Page,
  type Row,
} from './repositories/ai-interceptions.repository';

export type { InterceptionFilters } from './repositories/ai-interceptions.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const int = (value: unknown): number => Number(value ?? 0);
const iso = (value: unknown): string => new Date(value as string).toISOString();

/** A record's token usage as the API gives it (absent counts are 0). */
export function usage(row: Row) {
  return {
    input_tokens: int(row.input_tokens),
    output_tokens: int(row.output_tokens),
    cache_read_input_tokens: int(row.cache_read_input_tokens),
    cache_write_input_tokens: int(row.cache_write_input_tokens),
  };
}

type UsageSummary = ReturnType<typeof usage>;

/** The token usage of interceptions: every usage record of each (`usages`) summed. */
export function sumUsage(rows: Row[]): UsageSummary {
  return rows
    .flatMap((row) => row.usages as Row[])
    .reduce<UsageSummary>(
      (total, t) => ({
        input_tokens: total.input_tokens + int(t.input_tokens),
        output_tokens: total.output_tokens + int(t.output_tokens),
        cache_read_input_tokens: total.cache_read_input_tokens + int(t.cache_read_input_tokens),
        cache_write_input_tokens: total.cache_write_input_tokens + int(t.cache_write_input_tokens),
      }),
      { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_write_input_tokens: 0 },
    );
}

/**
 * Token usage metadata summed by key, as Coder aggregates it for threads and sessions: nested objects
 * are flattened with dots (`{"cache": {"read": 1}}` is `cache.read`), numeric leaves summed, other
 * leaves (strings, booleans, arrays, null) skipped.
 */
export function sumUsageMetadata(usages: Row[]): Record<string, number> {
  const sums: Record<string, number> = {};
  const add = (prefix: string, value: unknown): void => {
    if (typeof value === 'number' && Number.isFinite(value)) sums[prefix] = (sums[prefix] ?? 0) + value;
    else if (value !== null && typeof value === 'object' && !Array.isArray(value))
      for (const [key, inner] of Object.entries(value as Record<string, unknown>))
        add(prefix === '' ? key : `${prefix}.${key}`, inner);
  };
  for (const usage of usages) add('', usage.metadata);
  return sums;
}

/**
 * The token usage of a thread, an agentic action or a session's threads view (Coder's
 * `AIBridgeSessionThreadsTokenUsage`): the sums and the summed metadata of every usage record.
 */
export function threadUsage(rows: Row[]): UsageSummary & { metadata: Record<string, number> } {
  return { ...sumUsage(rows), metadata: sumUsageMetadata(rows.flatMap((row) => row.usages as Row[])) };
}

/** The initiator as Coder's MinimalUser (an account that no longer exists has no names). */
function initiator(row: Row, names: Map<string, AccountName>) {
  const account = names.get(String(row.initiator_id));
  return {
    id: account?.uuid as string,
    username: account?.name ?? '',
    ...(account?.fullName ? { name: account.fullName } : {}),
    ...(account?.avatarUrl ? { avatar_url: account.avatarUrl } : {}),
  };
}

/**
 * The AI gateway's read side (reference D.2): sessions, one session's threads, interceptions,
 * models and clients. Owners and auditors (`aibridge_interception:read`) see everything; other
 * callers get empty results, as Coder gives members.
 */
@Injectable()
export class AiGatewayQueries {
  constructor(
    private readonly records: AiInterceptionsRepository,
    private readonly authz: AuthorizationService,
    private readonly users: UsersService,
    private readonly directory: IdentityDirectory,
  ) {}

  private initiatorNames(rows: Row[]): Promise<Map<string, AccountName>> {
    return this.directory.namesByIds(rows.map((row) => String(row.initiator_id)));
  }

  async canRead(principal: Principal): Promise<boolean> {
    return this.authz.authorize(principal, 'read', { type: 'aibridge_interception' });
  }

  /** `q` of the sessions and interceptions lists. */
  async filters(
    principal: Principal,
    q: string,
    message: string,
    sessionKey: boolean,
  ): Promise<InterceptionFilters> {
    const terms = searchTerms(q, () => ({ key: 'initiator' }));
    const fail = (fields: { field: string; detail: string }[]) =>
      new InvalidError(message, { code: 'INVALID_QUERY', fields });
    if ('errors' in terms) throw fail(terms.errors);
    const parser = new SearchParser(terms.values);
    const filters: InterceptionFilters = {
      provider: parser.string('provider') || undefined,
      providerName: parser.string('provider_name') || undefined,
      model: parser.string('model') || undefined,
      clients: parser.list(
        'client',
        (value) => value.toLowerCase(),
        (value) => value,
      ),
      startedAfter: parser.time('started_after'),
      startedBefore: parser.time('started_before'),
    };
    if (sessionKey) filters.sessionId = parser.string('session_id') || undefined;
    const who = parser.string('initiator');
    if (who) {
      const user =
        who === 'me'
          ? principal.user
          : UUID.test(who)
            ? await this.users.findByUuid(who)
            : await this.users.findByName(who);
      if (!user)
        parser.errors.push({
          field: 'initiator',
          detail: `Query param "initiator" has invalid value: user "${who}" either does not exist, or you are unauthorized to view them`,
        });
      else filters.initiatorId = user.id;
    }
    const errors = parser.finish();
    if (filters.startedAfter && filters.startedBefore && filters.startedBefore <= filters.startedAfter)
      errors.push({ field: 'started_before', detail: 'started_before must be after started_after' });
    if (errors.length > 0) throw fail(errors);
    if (!(await this.canRead(principal))) filters.none = true;
    return filters;
  }

  /** Coder's limit rule for these lists: default 100, 1..1000. */
  static page(raw: { limit?: string; offset?: string }, max = 1000, fallback = 100): Page {
    const limit = raw.limit === undefined || raw.limit === '' ? fallback : Number(raw.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > max)
      throw new BadRequestError('Invalid pagination limit value.', { code: 'AI_PAGE_LIMIT' });
    const offset = raw.offset === undefined || raw.offset === '' ? 0 : Number(raw.offset);
    if (!Number.isInteger(offset) || offset < 0)
      throw new BadRequestError('Invalid pagination offset value.', { code: 'AI_PAGE_OFFSET' });
    return { limit, offset };
  }

  private presentSession(row: Row, names: Map<string, AccountName>) {
    return {
      id: row.session_id as string,
      initiator: initiator(row, names),
      providers: (row.providers as string[]).sort(),
      models: (row.models as string[]).sort(),
      client: (row.client as string | null) ?? null,
      metadata: (row.metadata as Record<string, unknown>) ?? {},
      started_at: iso(row.started_at),
      ...(row.ended_at ? { ended_at: iso(row.ended_at) } : {}),
      threads: int(row.threads),
      token_usage_summary: usage(row),
      ...(row.last_prompt ? { last_prompt: row.last_prompt as string } : {}),
      last_active_at: iso(row.last_active_at),
    };
  }

  async sessions(filters: InterceptionFilters, page: Page, afterSessionId?: string) {
    const found = await this.records.sessions(filters, page, afterSessionId);
    if (!found)
      throw new BadRequestError(`after_session_id: session "${afterSessionId}" not found`, {
        code: 'AI_CURSOR',
      });
    const names = await this.initiatorNames(found.rows);
    return { count: int(found.count), sessions: found.rows.map((row) => this.presentSession(row, names)) };
  }

  /** One session: its threads (root interceptions and the interceptions that continue them). */
  async session(
    principal: Principal,
    sessionId: string,
    cursor: { afterId?: string; beforeId?: string; limit: number },
  ) {
    const notFound = () => new NotFoundError('Session not found.', { code: 'AI_SESSION_NOT_FOUND' });
    if (!(await this.canRead(principal))) throw notFound();
    const summary = await this.records.session(sessionId);
    if (!summary) throw notFound();
    const interceptions = await this.records.sessionInterceptions(sessionId);
    const threads = new Map<string, Row[]>();
    for (const row of interceptions) {
      const root = row.root as string;
      threads.set(root, [...(threads.get(root) ?? []), row]);
    }
    let roots = [...threads.keys()];
    if (cursor.afterId) roots = roots.slice(roots.indexOf(cursor.afterId) + 1);
    if (cursor.beforeId) roots = roots.slice(0, Math.max(0, roots.indexOf(cursor.beforeId)));
    roots = roots.slice(0, cursor.limit);
    const threadViews = roots.map((rootId) => {
      const rows = threads.get(rootId)!;
      const root = rows.find((row) => row.id === rootId) ?? rows[0]!;
      const failed = rows.find((row) => row.error_type);
      return {
        id: rootId,
        ...(root.prompt ? { prompt: root.prompt as string } : {}),
        model: root.model as string,
        provider: root.provider as string,
        provider_name: root.provider_name as string,
        credential_kind: root.credential_kind as string,
        credential_hint: root.credential_hint as string,
        started_at: iso(root.started_at),
        ...(rows.at(-1)!.ended_at ? { ended_at: iso(rows.at(-1)!.ended_at) } : {}),
        token_usage: threadUsage(rows),
        agentic_actions: rows.map((row) => ({
          model: row.model as string,
          token_usage: threadUsage([row]),
          thinking: [] as { text: string }[],
          tool_calls: (row.tools as Row[]).map((tool) => ({
            id: tool.tool_call_id as string,
            interception_id: row.id as string,
            provider_response_id: tool.provider_response_id as string,
            server_url: tool.server_url as string,
            tool: tool.tool as string,
            injected: tool.injected as boolean,
            input: tool.input as string,
            metadata: (tool.metadata as Record<string, unknown>) ?? {},
            created_at: iso(tool.created_at),
          })),
        })),
        ...(failed
          ? { error_type: failed.error_type as string, error_message: (failed.error_message as string) ?? '' }
          : {}),
      };
    });
    const pageRows = roots.flatMap((id) => threads.get(id)!);
    const session = this.presentSession(summary, await this.initiatorNames([summary]));
    return {
      ...session,
      // Summed over the whole session, not the page (as Coder does).
      token_usage_summary: { ...session.token_usage_summary, metadata: threadUsage(interceptions).metadata },
      page_started_at: pageRows.length ? iso(pageRows[0]!.started_at) : null,
      page_ended_at: pageRows.length ? iso(pageRows.at(-1)!.ended_at ?? pageRows.at(-1)!.started_at) : null,
      threads: threadViews,
    };
  }

  async interceptions(filters: InterceptionFilters, page: Page, afterId?: string) {
    const found = await this.records.interceptions(filters, page, afterId);
    if (!found)
      throw new BadRequestError(`after_id: interception "${afterId}" not found`, { code: 'AI_CURSOR' });
    const names = await this.initiatorNames(found.rows);
    return {
      count: int(found.count),
      results: found.rows.map((row) => ({
        id: row.id as string,
        api_key_id: (row.api_key_id as string | null) ?? null,
        initiator: initiator(row, names),
        provider: row.provider as string,
        provider_name: row.provider_name as string,
        model: row.model as string,
        client: (row.client as string | null) ?? null,
        metadata: row.metadata as Record<string, unknown>,
        started_at: iso(row.started_at),
        ended_at: row.ended_at ? iso(row.ended_at) : null,
        credential_kind: row.credential_kind as string,
        credential_hint: row.credential_hint as string,
        ...(row.error_type
          ? { error_type: row.error_type as string, error_message: (row.error_message as string) ?? '' }
          : {}),
        token_usages: (row.usages as Row[]).map((t) => ({
          id: t.id as string,
          interception_id: row.id as string,
          provider_response_id: t.provider_response_id as string,
          ...usage(t),
          metadata: (t.metadata as Record<string, unknown>) ?? {},
          created_at: iso(t.created_at),
        })),
        user_prompts: (row.prompts as Row[]).map((t) => ({
          id: t.id as string,
          interception_id: row.id as string,
          provider_response_id: t.provider_response_id as string,
          prompt: t.prompt as string,
          metadata: (t.metadata as Record<string, unknown>) ?? {},
          created_at: iso(t.created_at),
        })),
        tool_usages: (row.tools as Row[]).map((t) => ({
          id: t.id as string,
          interception_id: row.id as string,
          provider_response_id: t.provider_response_id as string,
          server_url: t.server_url as string,
          tool: t.tool as string,
          input: t.input as string,
          injected: t.injected as boolean,
          invocation_error: (t.invocation_error as string | null) ?? null,
          metadata: (t.metadata as Record<string, unknown>) ?? {},
          created_at: iso(t.created_at),
        })),
      })),
    };
  }

  /** Distinct models or clients of finished interceptions (`GET /models`, `GET /clients`). */
  async distinct(principal: Principal, column: 'model' | 'client', limit: number): Promise<string[]> {
    if (!(await this.canRead(principal))) return [];
    return this.records.distinct(column, limit);
  }
}
