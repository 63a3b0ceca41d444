import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, In } from 'typeorm';
import { Collaborator, type CollaboratorMode } from './entities/collaborator.entity';
import { TeamRepository } from './entities/team-repository.entity';

/** The `repository_collaborators` and `team_repositories` tables: who reaches a repository besides its owner. */
@Injectable()
export class CollaboratorsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get collaborators() {
    return this.dataSource.manager.getRepository(Collaborator);
  }

  private get teamRepositories() {
    return this.dataSource.manager.getRepository(TeamRepository);
  }

  /** A page of collaborators with their users, by user id. */
  list(repositoryId: string, page: { offset: number; limit: number }): Promise<[Collaborator[], number]> {
    return this.collaborators.findAndCount({
      where: { repositoryId },
      relations: { user: true },
      order: { userId: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
  }

  find(repositoryId: string, userId: string): Promise<Collaborator | null> {
    return this.collaborators.findOneBy({ repositoryId, userId });
  }

  exists(repositoryId: string, userId: string): Promise<boolean> {
    return this.collaborators.existsBy({ repositoryId, userId });
  }

  async put(repositoryId: string, userId: string, mode: CollaboratorMode): Promise<void> {
    await this.collaborators.upsert({ repositoryId, userId, mode }, ['repositoryId', 'userId']);
  }

  async remove(repositoryId: string, userId: string): Promise<void> {
    await this.collaborators.delete({ repositoryId, userId });
  }

  /** Which of these teams are linked to the repository. */
  async linkedTeams(repositoryId: string, teamIds: string[]): Promise<Set<string>> {
    const rows = await this.teamRepositories.findBy({ repositoryId, teamId: In(teamIds) });
    return new Set(rows.map((row) => row.teamId));
  }

  teamLinked(teamId: string, repositoryId: string): Promise<boolean> {
    return this.teamRepositories.existsBy({ teamId, repositoryId });
  }

  async linkTeam(teamId: string, repositoryId: string): Promise<void> {
    await this.teamRepositories.upsert({ teamId, repositoryId }, ['teamId', 'repositoryId']);
  }

  async unlinkTeam(teamId: string, repositoryId: string): Promise<void> {
    await this.teamRepositories.delete({ teamId, repositoryId });
  }
}
