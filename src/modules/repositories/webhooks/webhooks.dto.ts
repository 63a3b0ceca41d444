import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ValidateBy, type ValidationArguments } from 'class-validator';
import {
  Binding,
  GITEA_CONTEXT,
  GoStruct,
  GoType,
  type GiteaRuleContext,
} from '../../../api/gitea/gitea-binding.decorators';
import { GiteaListQueryDto } from '../../../api/gitea/gitea-list-query.dto';
import { compileBranchFilter } from './branch-filter';

function jsonKindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

const decode = (): { context: Record<string, unknown> } => ({
  context: { [GITEA_CONTEXT]: { phase: 'decode' } satisfies GiteaRuleContext },
});

/** A `map[string]string` field (Go's decoder: an object whose values are strings). */
function GoStringMap(struct: string, field: string, goType: string): PropertyDecorator {
  return ValidateBy(
    {
      name: 'goStringMap',
      validator: {
        validate: (value: unknown) =>
          value === undefined ||
          value === null ||
          (typeof value === 'object' &&
            !Array.isArray(value) &&
            Object.values(value as object).every((item) => typeof item === 'string' || item === null)),
        defaultMessage: (args?: ValidationArguments) => {
          const value = args?.value;
          if (value && typeof value === 'object' && !Array.isArray(value)) {
            const bad = Object.values(value as object).find((item) => typeof item !== 'string');
            return `json: cannot unmarshal ${jsonKindOf(bad)} into Go struct field ${struct}.${field} of type string`;
          }
          return `json: cannot unmarshal ${jsonKindOf(value)} into Go struct field ${struct}.${field} of type ${goType}`;
        },
      },
    },
    decode(),
  ) as PropertyDecorator;
}

/** Gitea's `binding:"GlobPattern"` on branch_filter: the pattern must compile. */
function GlobPattern(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'GlobPattern',
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' || value === '' || compileBranchFilter(value) !== null,
        defaultMessage: () => 'GlobPattern',
      },
    },
    { context: { [GITEA_CONTEXT]: { phase: 'bind', rule: 'GlobPattern' } satisfies GiteaRuleContext } },
  ) as PropertyDecorator;
}

/** A non-empty map (Gitea's `Required` on a map). */
function RequiredMap(): PropertyDecorator {
  return ValidateBy(
    {
      name: 'Required',
      validator: {
        validate: (value: unknown) =>
          value !== undefined &&
          value !== null &&
          (typeof value !== 'object' || Array.isArray(value) || Object.keys(value as object).length > 0),
        defaultMessage: () => 'Required',
      },
    },
    { context: { [GITEA_CONTEXT]: { phase: 'bind', rule: 'Required' } satisfies GiteaRuleContext } },
  ) as PropertyDecorator;
}

/** Gitea `api.CreateHookOption`. */
@GoStruct('CreateHookOption')
export class CreateHookOptionDto {
  @ApiProperty({
    enum: [
      'dingtalk',
      'discord',
      'gitea',
      'gogs',
      'msteams',
      'slack',
      'telegram',
      'feishu',
      'wechatwork',
      'packagist',
    ],
  })
  @GoType('string')
  @Binding('Required')
  type: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'required: `url`, `content_type` (`json` or `form`); optional `secret`',
  })
  @GoStringMap('CreateHookOption', 'config', 'api.CreateHookOptionConfig')
  @RequiredMap()
  config: Record<string, string>;

  @ApiPropertyOptional({ type: [String], description: 'default `["push"]`' })
  @GoType('[]string')
  @Binding('')
  events?: string[];

  @ApiPropertyOptional({ description: 'glob of the branches push, create and delete events fire for' })
  @GoType('string')
  @GlobPattern()
  branch_filter?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  authorization_header?: string;

  @ApiPropertyOptional({ default: false })
  @GoType('bool')
  @Binding('')
  active?: boolean;

  @ApiPropertyOptional({ description: 'accepted and ignored (devplane has no system webhooks)' })
  @GoType('bool')
  @Binding('')
  is_system_webhook?: boolean;
}

/** Gitea `api.EditHookOption`. */
@GoStruct('EditHookOption')
export class EditHookOptionDto {
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @GoStringMap('EditHookOption', 'config', 'map[string]string')
  config?: Record<string, string>;

  @ApiPropertyOptional({ type: [String] })
  @GoType('[]string')
  @Binding('')
  events?: string[];

  @ApiPropertyOptional()
  @GoType('string')
  @GlobPattern()
  branch_filter?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  authorization_header?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  active?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  is_system_webhook?: boolean;
}

export class HookListQueryDto extends GiteaListQueryDto {}
