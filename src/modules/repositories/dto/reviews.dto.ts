import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.CreatePullReviewComment`. */
export class CreatePullReviewCommentDto {
  @ApiPropertyOptional()
  @IsString()
  path: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  body?: string;

  @ApiPropertyOptional({ description: 'line in the new file' })
  @IsOptional()
  @IsInt()
  new_position?: number;

  @ApiPropertyOptional({ description: 'line in the old file' })
  @IsOptional()
  @IsInt()
  old_position?: number;
}

/** Gitea `api.CreatePullReviewOptions`. */
@GoStruct('CreatePullReviewOptions')
export class CreatePullReviewOptionsDto {
  @ApiPropertyOptional({ enum: ['APPROVED', 'PENDING', 'COMMENT', 'REQUEST_CHANGES'] })
  @GoType('string')
  @Binding('')
  event?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  body?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('', { name: 'CommitID' })
  commit_id?: string;

  @ApiPropertyOptional({ type: [CreatePullReviewCommentDto] })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => CreatePullReviewCommentDto)
  comments?: CreatePullReviewCommentDto[];
}

/** Gitea `api.DismissPullReviewOptions`. */
@GoStruct('DismissPullReviewOptions')
export class DismissPullReviewOptionsDto {
  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  message?: string;

  @ApiPropertyOptional()
  @GoType('bool')
  @Binding('')
  priors?: boolean;
}
