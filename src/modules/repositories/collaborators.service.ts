import { Injectable } from '@nestjs/common';
import { InvalidError, NotFoundError } from '../../platform/errors/domain-error';
import type { User } from '../identity/entities/user.entity';
import { OrganizationsService } from '../identity/organizations.service';
import { UsersService } from '../identity/users.service';
import { CollaboratorsRepository } from './collaborators.repository';
import type { CollaboratorMode } from './entities/collaborator.entity';
import type { Repository } from './entities/repository.entity';

/** Collaborators and team links of a repository (`/repos/{o}/{r}/collaborators`, `/repos/{o}/{r}/teams`). */
@Injectable()
export class CollaboratorsService {
  constructor(
    private readonly collaborators: CollaboratorsRepository,
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
    const [rows, total] = await this.collaborators.list(repo.id, page);
    return { items: rows.map((row) => row.user), total };
  }

  async isCollaborator(repo: Repository, user: User): Promise<boolean> {
    return this.collaborators.exists(repo.id, user.id);
  }

  /** Adds or changes a collaborator (Gitea's PUT: 204 either way). The owner cannot be one. */
  async put(repo: Repository, user: User, mode: CollaboratorMode): Promise<void> {
    if (user.id === repo.ownerId)
      throw new InvalidError('user is already the owner of the repository', {
        code: 'COLLABORATOR_IS_OWNER',
      });
    await this.collaborators.put(repo.id, user.id, mode);
  }

  async remove(repo: Repository, user: User): Promise<void> {
    await this.collaborators.remove(repo.id, user.id);
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
    await this.collaborators.linkTeam(teamId, repo.id);
  }

  /** Gitea's `PUT /repos/{o}/{r}/teams/{team}`: 422 when the team is already linked (issue 49.8). */
  async addTeamOnce(repo: Repository, team: { id: string; name: string }): Promise<void> {
    if (await this.collaborators.teamLinked(team.id, repo.id))
      throw new InvalidError(`team '${team.name}' is already added to repo`, { code: 'TEAM_ALREADY_ADDED' });
    await this.collaborators.linkTeam(team.id, repo.id);
  }

  /** Gitea's `DELETE /repos/{o}/{r}/teams/{team}`: 422 when the team was not linked. */
  async removeTeamOnce(repo: Repository, team: { id: string; name: string }): Promise<void> {
    if (!(await this.collaborators.teamLinked(team.id, repo.id)))
      throw new InvalidError(`team '${team.name}' was not added to repo`, { code: 'TEAM_NOT_ADDED' });
    await this.collaborators.unlinkTeam(team.id, repo.id);
  }

  async removeTeam(repo: Repository, teamId: string): Promise<void> {
    await this.collaborators.unlinkTeam(teamId, repo.id);
  }
}
