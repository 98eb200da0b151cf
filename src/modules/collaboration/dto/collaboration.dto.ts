import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';
import { REFERENCE_TYPES } from '../domain/reference-input.js';
import { SEARCH_ENTITY_TYPES } from '../search.service.js';
import { TARGET_TYPES } from '../target.js';

const REFERENCE_TARGETS = ['idea', 'proposal', 'task'] as const;

// Text limits, the URL rule and their messages are the services' (the same as the tools).

export class ListCommentsQueryDto extends PagingQueryDto {
  @ApiProperty({ enum: TARGET_TYPES }) @IsIn(TARGET_TYPES) targetType: string;
  @ApiProperty({ format: 'uuid' }) @IsEntityUuid() targetUuid: string;
}

export class AddCommentDto {
  @ApiProperty({ enum: TARGET_TYPES }) @IsIn(TARGET_TYPES) targetType: string;
  @ApiProperty({ format: 'uuid' }) @IsEntityUuid() targetUuid: string;
  @ApiProperty({ maxLength: 20_000, description: 'May mention @[Name](user:<uuid>) or @[Name](agent:<uuid>)' }) @IsString() content: string;
}

export class AddReferenceDto {
  @ApiProperty({ enum: REFERENCE_TARGETS }) @IsIn(REFERENCE_TARGETS) targetType: string;
  @ApiProperty({ format: 'uuid' }) @IsEntityUuid() targetUuid: string;
  @ApiProperty({ enum: REFERENCE_TYPES }) @IsIn(REFERENCE_TYPES) type: string;
  @ApiProperty({ maxLength: 2048, description: 'http:// or https://; never fetched' }) @IsString() url: string;
  @ApiProperty({ maxLength: 200 }) @IsString() title: string;
  @ApiPropertyOptional({ type: String, maxLength: 500, nullable: true }) @IsOptional() @IsString() notes?: string | null;
}

export class UpdateReferenceDto {
  @ApiPropertyOptional({ enum: REFERENCE_TYPES }) @IsOptional() @IsIn(REFERENCE_TYPES) type?: string;
  @ApiPropertyOptional({ maxLength: 2048 }) @IsOptional() @IsString() url?: string;
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() title?: string;
  @ApiPropertyOptional({ type: String, maxLength: 500, nullable: true, description: 'null clears the notes' }) @IsOptional() @IsString() notes?: string | null;
}

export class ListActivityQueryDto extends PagingQueryDto {
  @ApiPropertyOptional({ enum: TARGET_TYPES }) @IsOptional() @IsIn(TARGET_TYPES) targetType?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Requires targetType' }) @IsOptional() @IsEntityUuid() targetUuid?: string;
}

export class SearchQueryDto extends PagingQueryDto {
  @ApiProperty({ maxLength: 200, description: 'Text, or a uuid (an exact uuid match ranks first)' }) @IsString() q: string;
  @ApiPropertyOptional({ enum: ['global', 'group', 'project'], default: 'global' }) @IsOptional() @IsIn(['global', 'group', 'project']) scope?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Required unless scope is global' }) @IsOptional() @IsEntityUuid() scopeUuid?: string;
  @ApiPropertyOptional({ description: `Comma-separated subset of ${SEARCH_ENTITY_TYPES.join(', ')}`, example: 'task,idea' })
  @IsOptional()
  @IsString()
  entityTypes?: string;
}

export class MentionablesQueryDto extends PagingQueryDto {
  @ApiPropertyOptional({ maxLength: 100, description: 'Matches user names and emails, agent names' }) @IsOptional() @IsString() q?: string;
}
