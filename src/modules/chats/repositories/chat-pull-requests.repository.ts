import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A pull request a chat opened, with its chat tree and model configuration (PR insights). */
export interface InsightLinkRow {
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

/** `chat_pull_requests`: the pull requests chats opened (their live state is the repositories module's). */
@Injectable()
export class ChatPullRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Links a pull request to the chat that opened it (once per pull request). */
  async link(link: NewPullRequestLink): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO chat_pull_requests (chat_id, owner_id, model_config_id, issue_id, repository_id, number, title, html_url, base_branch)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (issue_id) DO NOTHING`,
      [
        link.chatId,
        link.ownerId,
        link.modelConfigId,
        link.issueId,
        link.repositoryId,
        link.number,
        link.title,
        link.htmlUrl,
        link.baseBranch,
      ],
    );
  }

  /** Every pull request the owner's chats opened. */
  async ofOwner(
    ownerId: string,
  ): Promise<{ chat_id: string; issue_id: string; number: number; title: string; html_url: string }[]> {
    return (await this.dataSource.query(
      `SELECT chat_id, issue_id::text AS issue_id, number, title, html_url FROM chat_pull_requests WHERE owner_id = $1`,
      [ownerId],
    )) as { chat_id: string; issue_id: string; number: number; title: string; html_url: string }[];
  }

  /** The pull requests opened in [start, end), newest first. */
  async openedBetween(start: Date, end: Date): Promise<InsightLinkRow[]> {
    return (await this.dataSource.query(
      `SELECT l.chat_id, COALESCE(c.root_chat_id, c.id) AS root_chat_id, l.model_config_id, mc.display_name, mc.provider,
              l.issue_id::text AS issue_id, l.number, l.title, l.html_url, l.base_branch, l.created_at
         FROM chat_pull_requests l
         JOIN chats c ON c.id = l.chat_id
         LEFT JOIN chat_model_configs mc ON mc.id = l.model_config_id
        WHERE l.created_at >= $1 AND l.created_at < $2
        ORDER BY l.created_at DESC, l.id`,
      [start, end],
    )) as InsightLinkRow[];
  }
}
