import { TransactionRunner } from '../../../platform/database/transaction-runner.service';
import { Inject, Injectable, Logger, type OnModuleInit, Optional } from '@nestjs/common';
import { SecretBox } from '../../../platform/crypto/secret-box';
import { BadRequestError } from '../../../platform/errors/domain-error';
import { JobQueue } from '../../../platform/jobs/job-queue.service';
import { redactUrlIn } from '../../../platform/net/safe-url';
import type { User } from '../../identity/entities/user.entity';
import type { Repository } from '../entities/repository.entity';
import type { PushedRef } from '../events';
import { ZERO_ID } from '../branches/branch-git';
import { GitCommandError, runGit } from '../git/run-git';
import { RefChangesService } from '../ref-changes.service';
import { RepositoriesService } from '../repositories.service';
import { REPOSITORIES_CONFIG, type RepositoriesConfig } from '../repositories.config';
import { authorizationFor, checkRemoteAddress } from './remote-address';
import { MirrorsRepository } from './mirrors.repository';
import type { RepositoryMirror } from './repository-mirror.entity';

export const MIRROR_SYNC_JOB = 'repositories.mirror-sync';
const SEAL_CONTEXT = 'repository-mirror';

export interface MigrateInput {
  cloneAddr: string;
  name: string;
  description?: string;
  private?: boolean;
  mirror?: boolean;
  intervalSeconds?: number;
  auth: { username?: string; password?: string; token?: string };
}

/** Parses Go durations as Gitea's mirror_interval takes them (`8h0m0s`, `10m`, `90s`); null when malformed. */
export function parseGoDuration(text: string): number | null {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text.trim());
  if (!match || text.trim() === '') return null;
  return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
}

export function formatGoDuration(seconds: number): string {
  return `${Math.floor(seconds / 3600)}h${Math.floor((seconds % 3600) / 60)}m${seconds % 60}s`;
}

/**
 * Migrations from a git URL (Gitea's `POST /repos/migrate`) and mirrors: the clone is pinned to the
 * address that was checked (no private networks unless configured; credentials in the environment,
 * never on the command line or on disk in clear), and mirrors fetch on an interval and on request
 * through durable jobs. A sync reports its ref changes like a push (events, default branch).
 */
@Injectable()
export class MirrorsService implements OnModuleInit {
  private readonly logger = new Logger(MirrorsService.name);

  constructor(
    private readonly mirrors: MirrorsRepository,
    private readonly repositories: RepositoriesService,
    private readonly refChanges: RefChangesService,
    private readonly jobs: JobQueue,
    private readonly transactions: TransactionRunner,
    @Inject(REPOSITORIES_CONFIG) private readonly config: RepositoriesConfig,
    @Optional() private readonly secrets?: SecretBox,
  ) {}

  onModuleInit(): void {
    this.jobs.register<{ repositoryId: string; due: string | null }>(
      MIRROR_SYNC_JOB,
      (job) => this.runSyncJob(job.payload),
      { leaseMs: 15 * 60_000, maxAttempts: 3 },
    );
  }

  private gitEnv(pin: string, authorization: string | null): NodeJS.ProcessEnv {
    // git config through the environment (GIT_CONFIG_COUNT): never in argv (ps) nor in the repository's config.
    const entries: [string, string][] = [
      ['http.curloptResolve', pin],
      ['http.followRedirects', 'false'],
      ['credential.helper', ''],
    ];
    if (authorization) entries.push(['http.extraHeader', `Authorization: ${authorization}`]);
    const env: NodeJS.ProcessEnv = {
      GIT_CONFIG_COUNT: String(entries.length),
      GIT_HTTP_LOW_SPEED_LIMIT: '1000',
      GIT_HTTP_LOW_SPEED_TIME: String(this.config.migrationsStallSeconds),
      GIT_TERMINAL_PROMPT: '0',
    };
    entries.forEach(([key, value], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = key;
      env[`GIT_CONFIG_VALUE_${i}`] = value;
    });
    return env;
  }

  async migrate(
    actor: User,
    owner: User,
    input: MigrateInput,
  ): Promise<{ repo: Repository; mirror: RepositoryMirror | null }> {
    const remote = await checkRemoteAddress(input.cloneAddr, this.config.migrationsAllowLocalNetworks);
    const authorization = authorizationFor(input.auth);
    const mirror = input.mirror === true;
    const interval = input.intervalSeconds ?? this.config.mirrorDefaultIntervalSeconds;
    if (mirror && interval !== 0 && interval < this.config.mirrorMinIntervalSeconds) {
      throw new BadRequestError(
        `Mirror interval is too short: ${formatGoDuration(interval)} (the minimum is ${formatGoDuration(this.config.mirrorMinIntervalSeconds)})`,
        { code: 'MIRROR_INTERVAL' },
      );
    }
    if (mirror && authorization && !this.secrets)
      throw new BadRequestError('Mirrors with credentials need SECRETS_KEY', { code: 'MIRROR_SECRETS' });
    let mirrorRow: RepositoryMirror | null = null;
    const repo = await this.repositories.createFromRemote(
      actor,
      owner,
      {
        name: input.name,
        description: input.description,
        private: input.private,
        mirror,
        remote: { url: remote.url, env: this.gitEnv(remote.pin, authorization) },
      },
      async (tx, row) => {
        if (!mirror) return;
        const nextSyncAt = interval > 0 ? new Date(Date.now() + interval * 1000) : null;
        mirrorRow = await this.mirrors.insert(tx.manager, {
          repositoryId: row.id,
          remoteUrl: remote.url,
          sealedAuthorization: authorization
            ? this.secrets!.seal(authorization, `${SEAL_CONTEXT}:${row.id}`)
            : null,
          intervalSeconds: interval,
          updatedAt: new Date(),
          nextSyncAt,
          lastError: '',
        });
        if (nextSyncAt)
          await this.jobs.enqueue(
            tx.manager,
            MIRROR_SYNC_JOB,
            { repositoryId: row.id, due: nextSyncAt.toISOString() },
            { runAt: nextSyncAt },
          );
      },
    );
    return { repo, mirror: mirrorRow };
  }

  findMirror(repo: Repository): Promise<RepositoryMirror | null> {
    return this.mirrors.findByRepository(repo.id);
  }

  /** `POST /repos/{o}/{r}/mirror-sync`: a sync as soon as a worker is free (at most one waiting per mirror). */
  async requestSync(repo: Repository): Promise<void> {
    if (!repo.isMirror || !(await this.findMirror(repo)))
      throw new BadRequestError('Repository is not a mirror', { code: 'NOT_A_MIRROR' });
    await this.transactions.run(({ manager }) =>
      this.jobs.enqueue(
        manager,
        MIRROR_SYNC_JOB,
        { repositoryId: repo.id, due: null },
        { dedupeKey: `now:${repo.id}` },
      ),
    );
  }

  private async runSyncJob(payload: { repositoryId: string; due: string | null }): Promise<void> {
    const mirror = await this.mirrors.findByRepository(payload.repositoryId);
    if (!mirror) return;
    // A scheduled run that another schedule replaced does nothing.
    if (payload.due !== null && mirror.nextSyncAt?.toISOString() !== payload.due) return;
    const repo = await this.repositories.findById(mirror.repositoryId);
    if (!repo?.isMirror) return;
    await this.sync(repo, mirror);
  }

  /** Fetches every branch and tag of the remote (pruning the gone ones) and reports the changes like a push. */
  async sync(repo: Repository, mirror: RepositoryMirror): Promise<void> {
    const gitDir = this.repositories.gitDir(repo.owner, repo);
    let lastError = '';
    try {
      const remote = await checkRemoteAddress(mirror.remoteUrl, this.config.migrationsAllowLocalNetworks);
      const authorization = mirror.sealedAuthorization
        ? this.secrets!.openText(mirror.sealedAuthorization, `${SEAL_CONTEXT}:${repo.id}`)
        : null;
      const before = await this.refs(gitDir);
      await runGit(
        [
          'fetch',
          '--quiet',
          '--prune',
          '--no-write-fetch-head',
          '--',
          remote.url,
          '+refs/heads/*:refs/heads/*',
          '+refs/tags/*:refs/tags/*',
        ],
        {
          env: { GIT_DIR: gitDir, ...this.gitEnv(remote.pin, authorization) },
        },
      );
      const after = await this.refs(gitDir);
      const changes: PushedRef[] = [];
      for (const ref of new Set([...before.keys(), ...after.keys()])) {
        const oldId = before.get(ref) ?? ZERO_ID;
        const newId = after.get(ref) ?? ZERO_ID;
        if (oldId !== newId) changes.push({ ref, oldId, newId });
      }
      if (changes.length > 0)
        await this.refChanges.record({
          repo,
          actor: { id: repo.ownerId },
          source: 'mirror',
          request: null,
          refs: changes,
        });
      else await this.repositories.syncFromDisk(repo);
    } catch (error) {
      lastError = redactUrlIn(
        error instanceof GitCommandError
          ? error.stderr.trim()
          : error instanceof Error
            ? error.message
            : String(error),
        mirror.remoteUrl,
      ).slice(0, 2000);
      this.logger.warn({ repositoryId: repo.id, err: lastError }, 'mirror sync failed');
    }
    const nextSyncAt =
      mirror.intervalSeconds > 0 ? new Date(Date.now() + mirror.intervalSeconds * 1000) : null;
    await this.transactions.run(async ({ manager }) => {
      await this.mirrors.recordSync(manager, repo.id, { updatedAt: new Date(), lastError, nextSyncAt });
      if (nextSyncAt)
        await this.jobs.enqueue(
          manager,
          MIRROR_SYNC_JOB,
          { repositoryId: repo.id, due: nextSyncAt.toISOString() },
          { runAt: nextSyncAt },
        );
    });
  }

  private async refs(gitDir: string): Promise<Map<string, string>> {
    const out = await runGit(
      ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/'],
      { env: { GIT_DIR: gitDir } },
    );
    const refs = new Map<string, string>();
    for (const line of out.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
    }
    return refs;
  }
}
