import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ChatPullRequest } from '../entities/chat-pull-request.entity';

/** A pull request a chat opened, with its chat tree and model configuration (PR insights). */
export interface InsightLink {
  chatId: string;
  rootChatId: string;
  modelConfigId: string | null;
  modelDisplayName: string | null;
  modelProvider: string | null;
  issueId: string;
  number: number;
  title: string;
  htmlUrl: string;
  baseBranch: string;
  createdAt: Date;
}

/** What the chat list's pull request filter reads of a link. */
export type OwnerLink = Pick<ChatPullRequest, 'chatId' | 'issueId' | 'number' | 'title' | 'htmlUrl'>;

export interface NewPullRequestLink {
  chatId: string;
  ownerId: string;
  modelConfigId: string;
  issueId: string;
  repositoryId: string;
  number: number;
  title: string;
  htmlUrl: string;
  baseBranch: string;
}

interface InsightLinkRow {
  chat_id: string;
  root_chat_id: string;
  model_config_id: string | null;
  display_name: string | null;
  provider: string | null;
  issue_id: string;
  number: number;
  title: string;
  html_url: string;
  base_branch: string;
  created_at: Date;
}

/** `chat_pull_requests` (`ChatPullRequest`): the pull requests chats opened (their live state is the repositories module's). */
@Injectable()
export class ChatPullRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Links a pull request to the chat that opened it (once per pull request). */
  async link(link: NewPullRequestLink): Promise<void> {
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(ChatPullRequest)
      .values({ ...link })
      .orIgnore()
      .execute();
  }

  /** Every pull request the owner's chats opened. */
  async ofOwner(ownerId: string): Promise<OwnerLink[]> {
    const links = await this.dataSource.getRepository(ChatPullRequest).find({
      select: { chatId: true, issueId: true, number: true, title: true, htmlUrl: true },
      where: { ownerId },
    });
    return links.map(({ chatId, issueId, number, title, htmlUrl }) => ({
      chatId,
      issueId: String(issueId),
      number,
      title,
      htmlUrl,
    }));
  }

  /** The pull requests opened in [start, end), newest first. */
  async openedBetween(start: Date, end: Date): Promise<InsightLink[]> {
    const rows = (await this.dataSource.query(
      `SELECT l.chat_id, COALESCE(c.root_chat_id, c.id) AS root_chat_id, l.model_config_id, mc.display_name, mc.provider,
              l.issue_id::text AS issue_id, l.number, l.title, l.html_url, l.base_branch, l.created_at
         FROM chat_pull_requests l
         JOIN chats c ON c.id = l.chat_id
         LEFT JOIN chat_model_configs mc ON mc.id = l.model_config_id
        WHERE l.created_at >= $1 AND l.created_at < $2
        ORDER BY l.created_at DESC, l.id`,
      [start, end],
    )) as InsightLinkRow[];
    return rows.map((row) => ({
      chatId: row.chat_id,
      rootChatId: row.root_chat_id,
      modelConfigId: row.model_config_id,
      modelDisplayName: row.display_name,
      modelProvider: row.provider,
      issueId: row.issue_id,
      number: row.number,
      title: row.title,
      htmlUrl: row.html_url,
      baseBranch: row.base_branch,
      createdAt: row.created_at,
    }));
  }
}
