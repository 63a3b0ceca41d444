import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { Binding, GoStruct, GoTime, GoType } from '../../../api/gitea/gitea-binding.decorators';
import { GiteaListQueryDto } from '../dto/repositories.dto';

/** Gitea `api.CreateMilestoneOption`. */
@GoStruct('CreateMilestoneOption')
export class CreateMilestoneOptionDto {
  @ApiProperty()
  @GoType('string')
  @Binding('')
  title: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  description?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @GoType('string')
  @GoTime()
  @Binding('', { name: 'Deadline' })
  due_on?: string;

  @ApiPropertyOptional({ enum: ['open', 'closed'] })
  @GoType('string')
  @Binding('')
  state?: string;
}

/** Gitea `api.EditMilestoneOption`. */
@GoStruct('EditMilestoneOption')
export class EditMilestoneOptionDto {
  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  title?: string;

  @ApiPropertyOptional()
  @GoType('string')
  @Binding('')
  description?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @GoType('string')
  @GoTime()
  @Binding('', { name: 'Deadline' })
  due_on?: string;

  @ApiPropertyOptional({ enum: ['open', 'closed'] })
  @GoType('string')
  @Binding('')
  state?: string;
}

/** `GET /repos/{o}/{r}/milestones`. */
export class MilestoneListQueryDto extends GiteaListQueryDto {
  @ApiPropertyOptional({ enum: ['open', 'closed', 'all'], default: 'open' })
  @IsOptional()
  @IsString()
  state?: string;

  @ApiPropertyOptional({ description: 'part of the name' })
  @IsOptional()
  @IsString()
  name?: string;
}
