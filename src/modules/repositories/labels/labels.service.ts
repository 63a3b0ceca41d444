import { Injectable } from '@nestjs/common';
import { InvalidError, NotFoundError } from '../../../platform/errors/domain-error';
import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import type { Repository } from '../entities/repository.entity';
import type { Label } from './label.entity';
import { LabelsRepository } from './labels.repository';

export interface LabelInput {
  name?: string;
  color?: string;
  description?: string;
  exclusive?: boolean;
  isArchived?: boolean;
}

/** Gitea's NormalizeColor: `#rgb`, `#rrggbb`, with or without `#`, to `#rrggbb` lower case; else null. */
export function normalizeColor(color: string): string | null {
  const value = color.trim().replace(/^#/, '').toLowerCase();
  if (/^[0-9a-f]{6}$/.test(value)) return `#${value}`;
  if (/^[0-9a-f]{3}$/.test(value)) return `#${[...value].map((c) => c + c).join('')}`;
  return null;
}

const labelNotFound = (id: string) =>
  new NotFoundError(`label does not exist [id: ${id}]`, { code: 'LABEL_NOT_FOUND' });

/** Repository labels and the labels of issues (Gitea's routers/api/v1/repo/label.go, issue_label.go). */
@Injectable()
export class LabelsService {
  constructor(
    private readonly rows: LabelsRepository,
    private readonly transactions: TransactionRunner,
  ) {}

  list(repo: Repository): Promise<Label[]> {
    return this.rows.ofRepository(repo.id);
  }

  async require(repo: Repository, id: string): Promise<Label> {
    const label = await this.rows.find(repo.id, id);
    if (!label) throw labelNotFound(id);
    return label;
  }

  async create(repo: Repository, input: LabelInput): Promise<Label> {
    const color = normalizeColor(input.color ?? '');
    if (!color) throw new InvalidError(`invalid color format: ${input.color ?? ''}`, { code: 'LABEL_COLOR' });
    if (!input.name?.trim()) throw new InvalidError('[Name]: Required', { code: 'LABEL_NAME' });
    return this.rows.save({
      repositoryId: repo.id,
      name: input.name,
      color,
      description: input.description ?? '',
      exclusive: input.exclusive ?? false,
      isArchived: input.isArchived ?? false,
    });
  }

  async edit(repo: Repository, id: string, input: LabelInput): Promise<Label> {
    const label = await this.require(repo, id);
    if (input.color !== undefined) {
      const color = normalizeColor(input.color);
      if (!color) throw new InvalidError(`invalid color format: ${input.color}`, { code: 'LABEL_COLOR' });
      label.color = color;
    }
    if (input.name !== undefined && input.name.trim()) label.name = input.name;
    if (input.description !== undefined) label.description = input.description;
    if (input.exclusive !== undefined) label.exclusive = input.exclusive;
    if (input.isArchived !== undefined) label.isArchived = input.isArchived;
    return this.rows.save(label);
  }

  async delete(repo: Repository, id: string): Promise<void> {
    await this.rows.delete((await this.require(repo, id)).id);
  }

  ofIssues(issueIds: string[]): Promise<Map<string, Label[]>> {
    return this.rows.ofIssues(issueIds);
  }

  /** The labels `refs` (names or ids) name: their ids, and the refs that name none. */
  async resolveRefs(repo: Repository, refs: string[]): Promise<{ ids: string[]; missing: string[] }> {
    const found = await this.rows.resolve(repo.id, refs);
    const ids = new Set<string>();
    const missing: string[] = [];
    for (const ref of refs) {
      const label = found.find((candidate) => candidate.name === ref || candidate.id === ref);
      if (label) ids.add(label.id);
      else missing.push(ref);
    }
    return { ids: [...ids], missing };
  }

  ofIssue(issueId: string): Promise<Label[]> {
    return this.rows.ofIssue(issueId);
  }

  /**
   * Gitea's issue label add/replace: `labels` are ids or names (names of this repository's labels);
   * unknown ids are 422 `label does not exist`, unknown names are skipped as Gitea does.
   */
  async setOnIssue(
    repo: Repository,
    issueId: string,
    refs: (string | number)[],
    replace: boolean,
  ): Promise<Label[]> {
    const all = await this.rows.ofRepository(repo.id);
    const ids = new Set<string>();
    for (const ref of refs) {
      const text = String(ref);
      const byId =
        typeof ref === 'number' || /^\d+$/.test(text) ? all.find((label) => label.id === text) : undefined;
      const byName = all.find((label) => label.name === text);
      if (byId) ids.add(byId.id);
      else if (byName) ids.add(byName.id);
      else if (typeof ref === 'number')
        throw new InvalidError(`label does not exist [id: ${text}]`, { code: 'LABEL_NOT_FOUND' });
    }
    await this.transactions.run((tx) => this.rows.setIssueLabels(tx.manager, issueId, [...ids], replace));
    return this.rows.ofIssue(issueId);
  }

  async removeFromIssue(repo: Repository, issueId: string, labelId: string): Promise<void> {
    const label = await this.rows.find(repo.id, labelId);
    if (!label) throw new InvalidError(`label does not exist [id: ${labelId}]`, { code: 'LABEL_NOT_FOUND' });
    await this.rows.removeIssueLabel(issueId, label.id);
  }

  async clearIssue(issueId: string): Promise<void> {
    await this.transactions.run((tx) => this.rows.setIssueLabels(tx.manager, issueId, [], true));
  }
}
