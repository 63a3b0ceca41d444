import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.Identity`. */
export class GiteaIdentityDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  email?: string;
}

/** Gitea `api.CommitDateOptions`. */
export class GiteaCommitDateOptionsDto {
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsString()
  author?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsString()
  committer?: string;
}

/** The fields every file change shares (Gitea `api.FileOptions`). */
export class GiteaFileOptionsDto {
  @ApiPropertyOptional({ description: 'branch to base the commit on (default: the default branch)' })
  @GoType('string')
  @Binding('')
  branch?: string;

  @ApiPropertyOptional({ description: 'create this branch from `branch` and commit there' })
  @GoType('string')
  @Binding('', { name: 'NewBranchName' })
  new_branch?: string;

  @ApiPropertyOptional({ description: 'commit message (default: `Add|Update|Delete <path>`)' })
  @GoType('string')
  @Binding('')
  message?: string;

  @ApiPropertyOptional({ type: GiteaIdentityDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GiteaIdentityDto)
  author?: GiteaIdentityDto;

  @ApiPropertyOptional({ type: GiteaIdentityDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GiteaIdentityDto)
  committer?: GiteaIdentityDto;

  @ApiPropertyOptional({ type: GiteaCommitDateOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GiteaCommitDateOptionsDto)
  dates?: GiteaCommitDateOptionsDto;

  @ApiPropertyOptional({ description: 'add a Signed-off-by trailer (accepted, not applied)' })
  @GoType('bool')
  @Binding('')
  signoff?: boolean;

  @ApiPropertyOptional({ description: 'accepted; a file change never rewrites history here' })
  @GoType('bool')
  @Binding('')
  force_push?: boolean;
}

/** Gitea `api.CreateFileOptions`. */
@GoStruct('CreateFileOptions')
export class CreateFileOptionsDto extends GiteaFileOptionsDto {
  @ApiProperty({ description: 'the content, base64' })
  @GoType('string')
  @Binding('Required', { name: 'ContentBase64' })
  content: string;
}

/** Gitea `api.UpdateFileOptions`. */
@GoStruct('UpdateFileOptions')
export class UpdateFileOptionsDto extends GiteaFileOptionsDto {
  @ApiProperty({ description: 'the content, base64' })
  @GoType('string')
  @Binding('Required', { name: 'ContentBase64' })
  content: string;

  @ApiProperty({ description: 'the blob sha of the file being replaced' })
  @GoType('string')
  @Binding('', { name: 'SHA' })
  sha?: string;

  @ApiPropertyOptional({ description: 'move the file from this path' })
  @GoType('string')
  @Binding('', { name: 'FromPath' })
  from_path?: string;
}

/** Gitea `api.DeleteFileOptions`. */
@GoStruct('DeleteFileOptions')
export class DeleteFileOptionsDto extends GiteaFileOptionsDto {
  @ApiProperty({ description: 'the blob sha of the file being deleted' })
  @GoType('string')
  @Binding('Required', { name: 'SHA' })
  sha: string;
}

/** Gitea `api.ChangeFileOperation`. */
export class ChangeFileOperationDto {
  @ApiProperty({ enum: ['create', 'update', 'delete'] })
  @GoType('string')
  @Binding('Required;In(create,update,delete)')
  operation: 'create' | 'update' | 'delete';

  @ApiProperty()
  @GoType('string')
  @Binding('Required')
  path: string;

  @ApiPropertyOptional({ description: 'base64 (create, update)' })
  @GoType('string')
  @Binding('', { name: 'ContentBase64' })
  content?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('', { name: 'SHA' })
  sha?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('', { name: 'FromPath' })
  from_path?: string;
}

/** Gitea `api.ChangeFilesOptions`. */
@GoStruct('ChangeFilesOptions')
export class ChangeFilesOptionsDto extends GiteaFileOptionsDto {
  @ApiProperty({ type: [ChangeFileOperationDto] })
  @ValidateNested({ each: true })
  @Type(() => ChangeFileOperationDto)
  @Binding('Required')
  files: ChangeFileOperationDto[];
}
