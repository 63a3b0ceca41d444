import { Injectable, Optional } from '@nestjs/common';
import { AuditLog, type AuditEntry } from '../../../platform/audit/audit-log';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { SecretBox } from '../../../platform/crypto/secret-box';
import { type Transaction, TransactionRunner } from '../../../platform/database/transaction-runner.service';
import {
  BadRequestError,
  ConflictError,
  type FieldError,
  InvalidError,
  NotFoundError,
} from '../../../platform/errors/domain-error';
import type { User } from '../entities/user.entity';
import type { UserSecret } from './user-secret.entity';
import { UserSecretsRepository } from './user-secrets.repository';
import {
  envNameProblems,
  filePathProblems,
  nameProblems,
  SECRETS_ENV_TOTAL_BYTES,
  SECRETS_PER_USER,
  SECRETS_TOTAL_BYTES,
  targetProblems,
  valueProblems,
} from './user-secret-rules';

export interface CreateSecretInput {
  name?: string;
  value?: string;
  description?: string;
  envName?: string;
  filePath?: string;
  enabled?: boolean;
}

export type UpdateSecretInput = Omit<CreateSecretInput, 'name'>;

export function secretNotFound(): NotFoundError {
  return new NotFoundError('Resource not found or you do not have access to this resource', {
    code: 'USER_SECRET_NOT_FOUND',
  });
}

function invalid(fields: FieldError[]): BadRequestError {
  return new BadRequestError('Validation failed.', { code: 'USER_SECRET_INVALID', fields });
}

/**
 * Coder's user secrets (reference D.1): the rules on names, values and targets, uniqueness per user
 * (409), the per-user limits (400), values sealed with the SecretBox (context: user and secret id,
 * so a sealed value moved to another row does not open). Writes of one user are serialised by an
 * advisory lock so the limits hold under concurrency.
 */
@Injectable()
export class UserSecretsService {
  constructor(
    private readonly secrets: UserSecretsRepository,
    private readonly box: SecretBox,
    private readonly transactions: TransactionRunner,
    @Optional() private readonly audit?: AuditLog,
  ) {}

  private context(userId: string, id: string): string {
    return `user-secret:${userId}:${id}`;
  }

  list(user: User): Promise<UserSecret[]> {
    return this.secrets.listByName(user.id);
  }

  async get(user: User, name: string): Promise<UserSecret> {
    const found = await this.secrets.findByName(user.id, name);
    if (!found) throw secretNotFound();
    return found;
  }

  /** The plain value, for the workspace agent (never for the API). */
  reveal(secret: UserSecret): string {
    return this.box.openText(secret.sealedValue, this.context(secret.userId, secret.id));
  }

  private async lockUser(manager: EntityManager, user: User): Promise<void> {
    await this.secrets.lockUser(user.id, manager);
  }

  private async assertUnique(
    manager: EntityManager,
    user: User,
    state: { id?: string; name: string; envName: string; filePath: string },
  ): Promise<void> {
    const others = (await this.secrets.allOf(user.id, manager)).filter((row) => row.id !== state.id);
    const fields: FieldError[] = [];
    if (others.some((row) => row.name === state.name))
      fields.push({ field: 'name', detail: 'name already in use' });
    if (state.envName && others.some((row) => row.envName === state.envName))
      fields.push({ field: 'env_name', detail: 'environment variable already in use' });
    if (state.filePath && others.some((row) => row.filePath === state.filePath))
      fields.push({ field: 'file_path', detail: 'file path already in use' });
    if (fields.length > 0)
      throw new ConflictError('Validation failed.', { code: 'USER_SECRET_CONFLICT', fields });
  }

  private async assertLimits(
    manager: EntityManager,
    user: User,
    next: { id?: string; valueBytes: number; envName: string; enabled: boolean },
  ): Promise<void> {
    const rows = (await this.secrets.allOf(user.id, manager)).filter((row) => row.id !== next.id);
    // Coder's order (count, value bytes, env bytes) and texts (coderd userSecretLimitResponse).
    if (!next.id && rows.length >= SECRETS_PER_USER)
      throw new BadRequestError('User secrets limit reached.', {
        code: 'USER_SECRETS_LIMIT',
        detail: `Each user can have at most ${SECRETS_PER_USER} secrets.`,
      });
    const total = rows.reduce((sum, row) => sum + row.valueBytes, 0) + next.valueBytes;
    if (total > SECRETS_TOTAL_BYTES)
      throw new BadRequestError('User secrets value-bytes limit reached.', {
        code: 'USER_SECRETS_LIMIT',
        detail: `Stored bytes of your secret values exceed the per-user budget (${SECRETS_TOTAL_BYTES} bytes after encryption, if applicable). Reduce the size or number of your secrets.`,
      });
    const envTotal =
      rows.filter((row) => row.envName && row.enabled).reduce((sum, row) => sum + row.valueBytes, 0) +
      (next.envName && next.enabled ? next.valueBytes : 0);
    if (envTotal > SECRETS_ENV_TOTAL_BYTES)
      throw new BadRequestError('Environment-injected user secrets bytes limit reached.', {
        code: 'USER_SECRETS_LIMIT',
        detail: `Stored bytes of env-injected secret values exceed the per-user budget (${SECRETS_ENV_TOTAL_BYTES} bytes after encryption, if applicable). Reduce the size or number of env-injected secrets. If your deployment permits file path delivery, clear env_name and use file_path instead.`,
      });
  }

  /** The rules of reference D.1 for one new secret (texts and fields as the single create reports them). */
  private createProblems(input: CreateSecretInput): FieldError[] {
    const problems = [
      ...nameProblems(input.name),
      ...valueProblems(input.value, true),
      ...envNameProblems(input.envName),
      ...filePathProblems(input.filePath),
    ];
    if (problems.length === 0)
      problems.push(
        ...targetProblems({
          envName: input.envName ?? '',
          filePath: input.filePath ?? '',
          enabled: input.enabled ?? true,
        }),
      );
    return problems;
  }

  /** Inserts one checked secret inside the caller's transaction (after `lockUser`). */
  private async insert(tx: Transaction, user: User, input: CreateSecretInput): Promise<UserSecret> {
    const state = {
      name: input.name ?? '',
      envName: input.envName ?? '',
      filePath: input.filePath ?? '',
      enabled: input.enabled ?? true,
    };
    const value = input.value!;
    await this.assertUnique(tx.manager, user, state);
    await this.assertLimits(tx.manager, user, {
      valueBytes: Buffer.byteLength(value),
      envName: state.envName,
      enabled: state.enabled,
    });
    const id = randomUUID();
    await this.auditSecret(tx.manager, 'create', user, id, state.name, {
      env_name: { old: '', new: state.envName },
      file_path: { old: '', new: state.filePath },
      value: { old: '', new: '', secret: true },
    });
    return this.secrets.save(
      {
        id,
        userId: user.id,
        name: state.name,
        description: input.description ?? '',
        sealedValue: this.box.seal(value, this.context(user.id, id)),
        valueBytes: Buffer.byteLength(value),
        envName: state.envName,
        filePath: state.filePath,
        enabled: state.enabled,
      },
      tx.manager,
    );
  }

  async create(user: User, input: CreateSecretInput): Promise<UserSecret> {
    const problems = this.createProblems(input);
    if (problems.length > 0) throw invalid(problems);
    return this.transactions.run(async (tx) => {
      await this.lockUser(tx.manager, user);
      return this.insert(tx, user, input);
    });
  }

  /**
   * `POST .../secrets/batch`: every secret of the file or none (one transaction). Validation
   * failures name the entry (`secrets[i].field`); conflicts and limits are checked in file order.
   */
  async importBatch(user: User, inputs: CreateSecretInput[]): Promise<UserSecret[]> {
    const problems = inputs.flatMap((input, index) =>
      this.createProblems(input).map((problem) => ({
        ...problem,
        field: `secrets[${index}].${problem.field}`,
      })),
    );
    const seen = new Map<string, number>();
    inputs.forEach((input, index) => {
      const name = input.name ?? '';
      if (seen.has(name)) problems.push({ field: `secrets[${index}].name`, detail: 'name already in use' });
      seen.set(name, index);
    });
    if (problems.length > 0) throw invalid(problems);
    return this.transactions.run(async (tx) => {
      await this.lockUser(tx.manager, user);
      const created: UserSecret[] = [];
      for (const [index, input] of inputs.entries()) {
        try {
          created.push(await this.insert(tx, user, input));
        } catch (error: unknown) {
          if (error instanceof ConflictError || error instanceof InvalidError)
            error.fields.forEach((field) => (field.field = `secrets[${index}].${field.field}`));
          // Coder names the entry that hit a limit in the detail.
          if (error instanceof BadRequestError && error.code === 'USER_SECRETS_LIMIT')
            throw new BadRequestError(error.message, {
              code: 'USER_SECRETS_LIMIT',
              detail: `Entry secrets[${index}] (${JSON.stringify(input.name ?? '')}): ${error.detail ?? ''}`,
            });
          throw error;
        }
      }
      return created;
    });
  }

  /**
   * What the workspace agent of a user receives: every enabled secret with its value, as an
   * environment variable and/or a file (the workspaces module calls this when it hands the
   * agent its manifest).
   */
  async forAgent(userId: string): Promise<{ envName: string; filePath: string; value: string }[]> {
    const rows = await this.secrets.listEnabledByName(userId);
    return rows.map((row) => ({ envName: row.envName, filePath: row.filePath, value: this.reveal(row) }));
  }

  async update(user: User, name: string, input: UpdateSecretInput): Promise<UserSecret> {
    if (Object.values(input).every((value) => value === undefined)) {
      throw new BadRequestError('At least one field must be provided.', { code: 'USER_SECRET_EMPTY_UPDATE' });
    }
    const problems = [
      ...valueProblems(input.value, false),
      ...envNameProblems(input.envName),
      ...filePathProblems(input.filePath),
    ];
    if (problems.length > 0) throw invalid(problems);
    return this.transactions.run(async (tx) => {
      await this.lockUser(tx.manager, user);
      const current = await this.secrets.findByName(user.id, name, tx.manager);
      if (!current) throw secretNotFound();
      const next = {
        envName: input.envName ?? current.envName,
        filePath: input.filePath ?? current.filePath,
        enabled: input.enabled ?? current.enabled,
      };
      // Evaluated on the state after the update (reference D.1).
      const target = targetProblems(next);
      if (target.length > 0) throw invalid(target);
      await this.assertUnique(tx.manager, user, {
        id: current.id,
        name: current.name,
        envName: next.envName,
        filePath: next.filePath,
      });
      const valueBytes = input.value !== undefined ? Buffer.byteLength(input.value) : current.valueBytes;
      await this.assertLimits(tx.manager, user, {
        id: current.id,
        valueBytes,
        envName: next.envName,
        enabled: next.enabled,
      });
      await this.auditSecret(tx.manager, 'write', user, current.id, current.name, {
        ...(next.envName !== current.envName
          ? { env_name: { old: current.envName, new: next.envName } }
          : {}),
        ...(next.filePath !== current.filePath
          ? { file_path: { old: current.filePath, new: next.filePath } }
          : {}),
        ...(next.enabled !== current.enabled ? { enabled: { old: current.enabled, new: next.enabled } } : {}),
        ...(input.value !== undefined ? { value: { old: '', new: '', secret: true } } : {}),
      });
      Object.assign(current, next, {
        description: input.description ?? current.description,
        ...(input.value !== undefined
          ? { sealedValue: this.box.seal(input.value, this.context(user.id, current.id)), valueBytes }
          : {}),
      });
      return this.secrets.update(current, tx.manager);
    });
  }

  async delete(user: User, name: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const id = await this.secrets.deleteByName(user.id, name, tx.manager);
      if (id === undefined) throw secretNotFound();
      await this.auditSecret(tx.manager, 'delete', user, id, name, {});
    });
  }

  /** Secret writes are audited without their values (`secret: true` marks a changed value). */
  private async auditSecret(
    manager: EntityManager,
    action: 'create' | 'write' | 'delete',
    user: User,
    id: string,
    name: string,
    diff: NonNullable<AuditEntry['diff']>,
  ): Promise<void> {
    await this.audit?.record(manager, {
      action,
      resourceType: 'user_secret',
      resourceId: id,
      resourceTarget: name,
      diff,
      additionalFields: { owner: user.name },
    });
  }
}
