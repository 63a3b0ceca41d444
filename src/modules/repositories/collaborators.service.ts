import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository as OrmRepository } from 'typeorm';
import { InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import { OrganizationsService } from '../identity/organizations.service';
import { UsersService } from '../identity/users.service';
import { Collaborator, type CollaboratorMode } from './entities/collaborator.entity';
import type { Repository } from './entities/repository.entity';
import { TeamRepository } from './entities/team-repository.entity';

/** Collaborators and team links of a repository (`/repos/{o}/{r}/collaborators`, `/repos/{o}/{r}/teams`). */
@Injectable()
export class CollaboratorsService {
  constructor(
    @InjectRepository(Collaborator) private readonly collaborators: OrmRepository<Collaborator>,
    @InjectRepository(TeamRepository) private readonly teamRepositories: OrmRepository<TeamRepository>,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
  ) {}

  /** The user named in a collaborator path: unknown users are 422 as in Gitea's AddCollaborator. */
  async requireUser(name: string): Promise<User> {
    const user = await this.users.findByName(name);
    if (!user || user.type !== 'individual') {
      throw new InvalidError(`user does not exist [uid: 0, name: ${name}]`, { code: 'USER_NOT_FOUND' });
    }
    return user;
  }

  async list(
    repo: Repository,
    page: { offset: number; limit: number },
  ): Promise<{ items: User[]; total: number }> {
    const [rows, total] = await this.collaborators.findAndCount({
      where: { repositoryId: repo.id },
      relations: { user: true },
      order: { userId: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
    return { items: rows.map((row) => row.user), total };
  }

  async isCollaborator(repo: Repository, user: User): Promise<boolean> {
    return this.collaborators.existsBy({ repositoryId: repo.id, userId: user.id });
  }

  /** Adds or changes a collaborator (Gitea's PUT: 204 either way). The owner cannot be one. */
  async put(repo: Repository, user: User, mode: CollaboratorMode): Promise<void> {
    if (user.id === repo.ownerId)
      throw new InvalidError('user is already the owner of the repository', {
        code: 'COLLABORATOR_IS_OWNER',
      });
    await this.collaborators.upsert({ repositoryId: repo.id, userId: user.id, mode }, [
      'repositoryId',
      'userId',
    ]);
  }

  async remove(repo: Repository, user: User): Promise<void> {
    await this.collaborators.delete({ repositoryId: repo.id, userId: user.id });
  }

  /** A team of the owning organization (`PUT/DELETE /repos/{o}/{r}/teams/{team}`). */
  async requireTeam(repo: Repository, owner: User, teamName: string) {
    if (owner.type !== 'organization')
      throw new NotFoundError('repository is not owned by an organization', { code: 'NOT_ORG_REPO' });
    const team = await this.organizations.findTeam(owner.id, teamName);
    if (!team)
      throw new NotFoundError(`team does not exist [org_id ${owner.id}, name: ${teamName}]`, {
        code: 'TEAM_NOT_FOUND',
      });
    return team;
  }

  async addTeam(repo: Repository, teamId: string): Promise<void> {
    await this.teamRepositories.upsert({ teamId, repositoryId: repo.id }, ['teamId', 'repositoryId']);
  }

  async removeTeam(repo: Repository, teamId: string): Promise<void> {
    await this.teamRepositories.delete({ teamId, repositoryId: repo.id });
  }
}
