import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, In } from 'typeorm';
import { IssueLabel, Label } from './label.entity';

/** The `labels` and `issue_labels` tables. */
@Injectable()
export class LabelsRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get labels() {
    return this.dataSource.manager.getRepository(Label);
  }

  private get links() {
    return this.dataSource.manager.getRepository(IssueLabel);
  }

  ofRepository(repositoryId: string): Promise<Label[]> {
    return this.labels.find({ where: { repositoryId }, order: { name: 'ASC', id: 'ASC' } });
  }

  find(repositoryId: string, id: string): Promise<Label | null> {
    if (!/^\d{1,18}$/.test(id)) return Promise.resolve(null);
    return this.labels.findOneBy({ repositoryId, id });
  }

  save(label: Partial<Label>): Promise<Label> {
    return this.labels.save(this.labels.create(label));
  }

  async delete(id: string): Promise<void> {
    await this.labels.delete({ id });
  }

  async ofIssue(issueId: string): Promise<Label[]> {
    const rows = await this.links.find({ where: { issueId }, relations: { label: true } });
    return rows.map((row) => row.label).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The labels of a page of issues, in one query: issue id → labels by name. */
  async ofIssues(issueIds: string[]): Promise<Map<string, Label[]>> {
    const byIssue = new Map<string, Label[]>();
    if (issueIds.length === 0) return byIssue;
    const rows = await this.links.find({
      where: { issueId: In(issueIds) },
      relations: { label: true },
    });
    for (const row of rows) {
      const list = byIssue.get(row.issueId) ?? [];
      list.push(row.label);
      byIssue.set(row.issueId, list);
    }
    for (const list of byIssue.values())
      list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return byIssue;
  }

  /** Labels of the repository among `refs` (names or ids). */
  async resolve(repositoryId: string, refs: string[]): Promise<Label[]> {
    if (refs.length === 0) return [];
    const all = await this.ofRepository(repositoryId);
    return all.filter((label) => refs.includes(label.name) || refs.includes(label.id));
  }

  /** Replaces (or adds to) an issue's labels, inside the caller's transaction. */
  async setIssueLabels(
    manager: EntityManager,
    issueId: string,
    labelIds: string[],
    replace: boolean,
  ): Promise<void> {
    if (replace) await manager.delete(IssueLabel, { issueId });
    if (labelIds.length > 0)
      await manager
        .createQueryBuilder()
        .insert()
        .into(IssueLabel)
        .values(labelIds.map((labelId) => ({ issueId, labelId })))
        .orIgnore()
        .execute();
  }

  async removeIssueLabel(issueId: string, labelId: string): Promise<boolean> {
    const result = await this.links.delete({ issueId, labelId });
    return (result.affected ?? 0) > 0;
  }

  findMany(repositoryId: string, ids: string[]): Promise<Label[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.labels.findBy({ repositoryId, id: In(ids) });
  }
}
