import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, ValidateIf, ValidateNested } from 'class-validator';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';
import { IDEA_STATUSES } from '../domain/idea-input.js';

// Shapes and types are checked here; text limits, reference rules and messages stay the service's (same as tools).

/** May be omitted, but not null (IsOptional would let null through to a NOT NULL column; the tools refuse it too). */
const Omittable = () => ValidateIf((_o: object, v: unknown) => v !== undefined);

export class IdeaReferenceDto {
  @ApiProperty({ enum: ['docs', 'repo', 'issue_pr', 'paper_blog'] }) @IsString() type: string;
  @ApiProperty({ maxLength: 2048, description: 'http:// or https://; never fetched' }) @IsString() url: string;
  @ApiProperty({ maxLength: 200 }) @IsString() title: string;
  @ApiPropertyOptional({ type: String, maxLength: 500, nullable: true }) @IsOptional() @IsString() notes?: string | null;
}

export class CreateIdeaDto {
  @ApiProperty({ maxLength: 200 }) @IsString() title: string;
  @ApiPropertyOptional({ maxLength: 100_000 }) @IsOptional() @IsString() content?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'An idea of the same project' }) @IsOptional() @IsEntityUuid() parentUuid?: string;
  @ApiPropertyOptional({ description: 'A theme grouping other ideas' }) @Omittable() @IsBoolean() isContainer?: boolean;
  @ApiPropertyOptional({ type: [IdeaReferenceDto], maxItems: 10 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => IdeaReferenceDto)
  references?: IdeaReferenceDto[];
}

export class EditIdeaDto {
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() title?: string;
  @ApiPropertyOptional({ maxLength: 100_000 }) @IsOptional() @IsString() content?: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'null detaches the idea from its parent' })
  @IsOptional()
  @IsEntityUuid()
  parentUuid?: string | null;
  @ApiPropertyOptional() @Omittable() @IsBoolean() isContainer?: boolean;
}

export class MoveIdeaDto {
  @ApiProperty({ format: 'uuid' }) @IsEntityUuid() targetProjectUuid: string;
}

export class AssignIdeaDto {
  @ApiProperty({ enum: ['user', 'agent'] }) @IsIn(['user', 'agent']) assigneeType: 'user' | 'agent';
  @ApiProperty({ format: 'uuid' }) @IsEntityUuid() assigneeUuid: string;
}

export class ListIdeasQueryDto extends PagingQueryDto {
  @ApiPropertyOptional({ enum: IDEA_STATUSES }) @IsOptional() @IsIn(IDEA_STATUSES) status?: (typeof IDEA_STATUSES)[number];
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'true lists the open (claimable) ideas only' })
  @IsOptional()
  @IsIn(['true', 'false'])
  available?: 'true' | 'false';
}
