import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsOptional } from 'class-validator';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.CreateLabelOption`. */
@GoStruct('CreateLabelOption')
export class CreateLabelOptionDto {
  @ApiProperty()
  @GoType('string')
  @Binding('Required')
  name: string;

  @ApiProperty({ example: '#00aabb' })
  @GoType('string')
  @Binding('Required')
  color: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  description?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  exclusive?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('', { name: 'IsArchived' })
  is_archived?: boolean;
}

/** Gitea `api.EditLabelOption`. */
@GoStruct('EditLabelOption')
export class EditLabelOptionDto {
  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  name?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  color?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  description?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  exclusive?: boolean;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('', { name: 'IsArchived' })
  is_archived?: boolean;
}

/** Gitea `api.IssueLabelsOption`: label ids, or names of the repository's labels. */
@GoStruct('IssueLabelsOption')
export class IssueLabelsOptionDto {
  @ApiPropertyOptional({ type: 'array', items: {}, description: 'label ids or names' })
  @IsOptional()
  @IsArray()
  labels?: (string | number)[];
}
