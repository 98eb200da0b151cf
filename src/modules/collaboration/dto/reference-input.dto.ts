import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { REFERENCE_TYPES } from '../domain/reference-input.js';

/** One external link given when a record is created (proposals, tasks); the URL rule is the service's. */
export class ReferenceInputDto {
  @ApiProperty({ enum: REFERENCE_TYPES, description: 'Kind of link' })
  @IsIn(REFERENCE_TYPES)
  type: string;

  @ApiProperty({ maxLength: 2048, description: 'http:// or https:// URL; never fetched' })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiProperty({ maxLength: 200, description: 'Link title, 1-200 characters' })
  @IsString()
  @MaxLength(200)
  title: string;

  @ApiPropertyOptional({ type: String, maxLength: 500, nullable: true, description: 'Notes, at most 500 characters' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  notes?: string | null;
}
