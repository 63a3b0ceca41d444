import { Entity, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Team } from '../../identity/entities/team.entity';
import { Repository } from './repository.entity';

/** A repository an organization team has access to (the team's permission applies). */
@Entity({ name: 'team_repositories' })
export class TeamRepository {
  @PrimaryColumn({ name: 'team_id', type: 'bigint' })
  teamId: string;

  @PrimaryColumn({ name: 'repository_id', type: 'bigint' })
  repositoryId: string;

  @ManyToOne(() => Team, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'team_id' })
  team: Relation<Team>;

  @ManyToOne(() => Repository, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'repository_id' })
  repository: Relation<Repository>;
}
