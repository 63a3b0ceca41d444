import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** A pointer: `{oid, size}`. */
export class LfsPointerDto {
  @ApiProperty({ description: 'SHA-256 of the content, 64 lowercase hex digits' })
  @IsString()
  @MaxLength(128)
  oid: string;

  @ApiProperty()
  @IsInt()
  @Min(0)
  size: number;
}

export class LfsRefDto {
  @ApiProperty()
  @IsString()
  @MaxLength(1024)
  name: string;
}

/** The Git LFS batch request (`application/vnd.git-lfs+json`). */
export class LfsBatchRequestDto {
  @ApiProperty({ enum: ['download', 'upload'] })
  @IsIn(['download', 'upload'])
  operation: 'download' | 'upload';

  @ApiPropertyOptional({
    type: [String],
    description: 'transfer adapters the client knows; devplane speaks `basic`',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  transfers?: string[];

  @ApiPropertyOptional({ type: LfsRefDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => LfsRefDto)
  ref?: LfsRefDto;

  @ApiProperty({ type: [LfsPointerDto] })
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => LfsPointerDto)
  objects: LfsPointerDto[];

  @ApiPropertyOptional({ description: '`sha256` (the only one)' })
  @IsOptional()
  @IsString()
  hash_algo?: string;
}
