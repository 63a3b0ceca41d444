import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { Binding, GoStruct, GoType } from '../../../api/gitea/gitea-binding.decorators';

/** Gitea `api.EditAttachmentOptions`: an empty name changes nothing. */
@GoStruct('EditAttachmentOptions')
export class EditAttachmentOptionsDto {
  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  name?: string;
}

/** `?name=` of an attachment upload. */
export class AttachmentNameQueryDto {
  @ApiPropertyOptional({ description: 'the file name (overrides the uploaded file name)' })
  @IsOptional()
  @IsString()
  name?: string;
}
