import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { resultRows } from '../../../platform/database/result-rows';
import type { Chat } from '../entities/chat.entity';

export function chatFromRow(row: Record<string, unknown>): Chat {
  return {
    id: row.id as string,
    organizationId: row.organization_id as string,
    ownerId: row.owner_id as string,
    workspaceId: row.workspace_id as string | null,
    parentChatId: row.parent_chat_id as string | null,
    rootChatId: row.root_chat_id as string | null,
    lastModelConfigId: row.last_model_config_id as string,
    title: row.title as string,
    status: row.status as Chat['status'],
    archived: row.archived as boolean,
    archivedAt: row.archived_at as Date | null,
    pinOrder: row.pin_order as number,
    labels: row.labels as Record<string, string>,
    clientType: row.client_type as string,
    runnerId: (row.runner_id as string | null) ?? null,
    leasedUntil: (row.leased_until as Date | null) ?? null,
    lastError: (row.last_error as string | null) ?? null,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/** A new chat (queued for the runners: `pending`). */
export interface NewChat {
  organizationId: string;
  ownerId: string;
  workspaceId: string | null;
  parentChatId: string | null;
  rootChatId: string | null;
  modelConfigId: string;
  title: string;
  /** The labels as JSON text. */
  labels: string;
  clientType: string;
}

/** What the chat list filters on (the pull request terms already resolved to chat ids). */
export interface ChatListWhere {
  ownerId: string;
  archived: boolean;
  title?: string;
  search?: string;
  labels: Record<string, string>;
  /** Only these chats (the ones whose pull requests matched), when given. */
  chatIds?: string[];
}

const likePattern = (text: string): string => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`;

/**
 * `chats`: the chats, their trees (parent, root) and the runners' leases; retention's purge of
 * whole archived families (with their messages, files and pull request links).
 */
@Injectable()
export class ChatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The chat with this id (a well-formed uuid), or null. */
  async findById(id: string): Promise<Chat | null> {
    const [row] = (await this.dataSource.query('SELECT * FROM chats WHERE id = $1', [id])) as Record<
      string,
      unknown
    >[];
    return row ? chatFromRow(row) : null;
  }

  /** Every chat of an owner (uuid), archived ones included: the chats watch compares these. */
  async ofOwner(ownerUuid: string): Promise<Chat[]> {
    const rows = (await this.dataSource.query('SELECT * FROM chats WHERE owner_id = $1', [
      ownerUuid,
    ])) as Record<string, unknown>[];
    return rows.map(chatFromRow);
  }

  async insert(chat: NewChat, manager: EntityManager): Promise<Chat> {
    const [row] = (await manager.query(
      `INSERT INTO chats (organization_id, owner_id, workspace_id, parent_chat_id, root_chat_id, last_model_config_id, title,
         status, labels, client_type)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9) RETURNING *`,
      [
        chat.organizationId,
        chat.ownerId,
        chat.workspaceId,
        chat.parentChatId,
        chat.rootChatId,
        chat.modelConfigId,
        chat.title,
        chat.labels,
        chat.clientType,
      ],
    )) as Record<string, unknown>[];
    return chatFromRow(row!);
  }

  /** A new message is waiting: the runners take the chat again. */
  async markPending(id: string, manager: EntityManager): Promise<void> {
    await manager.query(`UPDATE chats SET status = 'pending', updated_at = now() WHERE id = $1`, [id]);
  }

  /** Locks the chat's row until the transaction ends. */
  async lock(id: string, manager: EntityManager): Promise<void> {
    await manager.query('SELECT id FROM chats WHERE id = $1 FOR UPDATE', [id]);
  }

  /** Chats under this root (subagents, at any depth). */
  async countInTree(rootId: string, manager: EntityManager): Promise<number> {
    const [count] = (await manager.query('SELECT count(*)::int AS n FROM chats WHERE root_chat_id = $1', [
      rootId,
    ])) as { n: number }[];
    return count?.n ?? 0;
  }

  /** A page of an owner's chats: pinned first, then the most recently updated. */
  async list(where: ChatListWhere, page: { limit: number; offset: number }): Promise<Chat[]> {
    const clauses = ['owner_id = $1', 'archived = $2'];
    const params: unknown[] = [where.ownerId, where.archived];
    if (where.title) {
      params.push(likePattern(where.title));
      clauses.push(`lower(title) LIKE $${params.length}`);
    }
    if (where.search) {
      params.push(likePattern(where.search));
      clauses.push(
        `(lower(title) LIKE $${params.length} OR EXISTS (SELECT 1 FROM chat_messages m WHERE m.chat_id = chats.id AND lower(m.content::text) LIKE $${params.length}))`,
      );
    }
    for (const [key, value] of Object.entries(where.labels)) {
      params.push(JSON.stringify({ [key]: value }));
      clauses.push(`labels @> $${params.length}::jsonb`);
    }
    if (where.chatIds) {
      params.push(where.chatIds);
      clauses.push(`id = ANY($${params.length}::uuid[])`);
    }
    const rows = (await this.dataSource.query(
      `SELECT * FROM chats WHERE ${clauses.join(' AND ')} ORDER BY pin_order DESC, updated_at DESC, id
        ${page.limit > 0 ? `LIMIT ${page.limit}` : ''} OFFSET ${page.offset}`,
      params,
    )) as Record<string, unknown>[];
    return rows.map(chatFromRow);
  }

  /** Archives the chat and every descendant not archived yet. */
  async archiveFamily(id: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `WITH RECURSIVE family AS (
         SELECT id FROM chats WHERE id = $1
         UNION ALL SELECT c.id FROM chats c JOIN family f ON c.parent_chat_id = f.id)
       UPDATE chats SET archived = true, archived_at = now(), pin_order = 0, updated_at = now()
        WHERE id IN (SELECT id FROM family) AND archived = false`,
      [id],
    );
  }

  async unarchive(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chats SET archived = false, archived_at = NULL, updated_at = now() WHERE id = $1`,
      [id],
    );
  }

  // ---------------------------------------------------------------- the runners' leases

  /** Leases up to `limit` pending chats (and chats whose runner's lease expired) to the runner. */
  async acquire(runnerId: string, leaseMs: number, limit: number): Promise<Chat[]> {
    const rows = resultRows<Record<string, unknown>>(
      await this.dataSource.query(
        `UPDATE chats SET status = 'running', runner_id = $1, leased_until = now() + ($2::int * interval '1 millisecond'), updated_at = now()
        WHERE id IN (SELECT id FROM chats
                      WHERE (status = 'pending' OR (status = 'running' AND leased_until < now())) AND archived = false
                      ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
        [runnerId, leaseMs, limit],
      ),
    );
    return rows.map(chatFromRow);
  }

  /** Ends the runner's turn with `status`; false when the chat is no longer the runner's. */
  async finishTurn(
    id: string,
    status: 'waiting' | 'requires_action',
    runnerId: string,
    manager: EntityManager,
  ): Promise<boolean> {
    const updated = resultRows(
      await manager.query(
        `UPDATE chats SET status = $2, runner_id = NULL, leased_until = NULL, last_error = NULL, updated_at = now()
          WHERE id = $1 AND runner_id = $3 RETURNING id`,
        [id, status, runnerId],
      ),
    );
    return updated.length > 0;
  }

  /** Extends the runner's lease; false when the chat is no longer the runner's. */
  async extendLease(id: string, leaseMs: number, runnerId: string, manager: EntityManager): Promise<boolean> {
    const updated = resultRows(
      await manager.query(
        `UPDATE chats SET leased_until = now() + ($2::int * interval '1 millisecond')
          WHERE id = $1 AND runner_id = $3 RETURNING id`,
        [id, leaseMs, runnerId],
      ),
    );
    return updated.length > 0;
  }

  /** The runner's turn failed: the chat is in error with the message (when it is still the runner's). */
  async failTurn(id: string, message: string, runnerId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chats SET status = 'error', last_error = $2, runner_id = NULL, leased_until = NULL, updated_at = now()
        WHERE id = $1 AND runner_id = $3`,
      [id, message, runnerId],
    );
  }

  // ---------------------------------------------------------------- retention

  /** Chats archived before `cutoff` and all their descendants. */
  async archivedFamiliesBefore(cutoff: Date, manager: EntityManager): Promise<string[]> {
    const doomed = (await manager.query(
      `WITH RECURSIVE family AS (
         SELECT id FROM chats WHERE archived AND archived_at < $1
         UNION SELECT c.id FROM chats c JOIN family f ON c.parent_chat_id = f.id)
       SELECT id FROM family`,
      [cutoff],
    )) as { id: string }[];
    return doomed.map((row) => row.id);
  }

  /** Deletes the chats with their files' rows, messages and pull request links; returns the files' ids. */
  async purge(ids: string[], manager: EntityManager): Promise<string[]> {
    const rows = resultRows<{ id: string }>(
      await manager.query('DELETE FROM chat_files WHERE chat_id = ANY($1::uuid[]) RETURNING id', [ids]),
    );
    await manager.query('DELETE FROM chat_messages WHERE chat_id = ANY($1::uuid[])', [ids]);
    await manager.query('DELETE FROM chat_pull_requests WHERE chat_id = ANY($1::uuid[])', [ids]);
    await manager.query('DELETE FROM chats WHERE id = ANY($1::uuid[])', [ids]);
    return rows.map((row) => row.id);
  }
}
