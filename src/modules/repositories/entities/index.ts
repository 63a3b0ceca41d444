import { Collaborator } from './collaborator.entity';
import { RepositoryRedirect } from './repository-redirect.entity';
import { Repository } from './repository.entity';
import { TeamRepository } from './team-repository.entity';

export const REPOSITORIES_ENTITIES: Function[] = [Repository, Collaborator, TeamRepository, RepositoryRedirect];
