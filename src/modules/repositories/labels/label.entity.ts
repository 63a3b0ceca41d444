import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { Repository } from '../entities/repository.entity';
import { Issue } from '../issues/issue.entity';

/** A repository label (Gitea's Label): name, colour `#rrggbb`, scoped-exclusive flag, archived. */
@Entity({ name: 'labels' })
@Index('IDX_labels_repository', ['repositoryId', 'id'])
export class Label {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 7 })
  color: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ type: 'boolean', default: false })
  exclusive: boolean;

  @Column({ name: 'is_archived', type: 'boolean', default: false })
  isArchived: boolean;
}

/** Which labels an issue or pull request carries. */
@Entity({ name: 'issue_labels' })
@Index('IDX_issue_labels_label', ['labelId'])
export class IssueLabel {
  @PrimaryColumn({ name: 'issue_id', type: 'bigint' })
  issueId: string;

  @PrimaryColumn({ name: 'label_id', type: 'bigint' })
  labelId: string;

  @ManyToOne(() => Issue, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'issue_id' })
  issue: Relation<Issue>;

  @ManyToOne(() => Label, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'label_id' })
  label: Relation<Label>;
}
