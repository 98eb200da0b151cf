import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsNumber, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { IsEntityUuidList } from '../../../shared/validation/is-entity-uuid-list.js';
import { CriterionDto } from '../../tasks/index.js';
import { DOCUMENT_DRAFT_TYPES, PRIORITIES } from '../domain/proposal-drafts.js';

/** Bodies of the draft routes (svc_pm_add/update_document_draft, svc_pm_add/update_task_draft). */
export class DocumentDraftDto {
  @ApiProperty({ enum: DOCUMENT_DRAFT_TYPES })
  @IsIn(DOCUMENT_DRAFT_TYPES)
  type: string;

  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MaxLength(200)
  title: string;

  @ApiProperty({ maxLength: 100_000, description: 'Markdown; at least 100 characters to pass validation' })
  @IsString()
  @MaxLength(100_000)
  content: string;
}

export class UpdateDocumentDraftDto {
  @ApiPropertyOptional({ enum: DOCUMENT_DRAFT_TYPES })
  @IsOptional()
  @IsIn(DOCUMENT_DRAFT_TYPES)
  type?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  title?: string;

  @ApiPropertyOptional({ maxLength: 100_000 })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  content?: string;
}

export class UpdateTaskDraftDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  title?: string;

  @ApiPropertyOptional({ maxLength: 100_000 })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  description?: string;

  @ApiPropertyOptional({ enum: PRIORITIES, nullable: true })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: string | null;

  @ApiPropertyOptional({ type: Number, minimum: 0, maximum: 1000, nullable: true })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1000)
  storyPoints?: number | null;

  @ApiPropertyOptional({ type: [CriterionDto], description: 'Replaces the criteria; 1-50 items' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CriterionDto)
  acceptanceCriteriaItems?: CriterionDto[];

  @ApiPropertyOptional({ type: [String], description: 'Replaces the dependencies; sibling task drafts, no self, no cycle' })
  @IsOptional()
  @IsArray()
  @IsEntityUuidList()
  dependsOnDraftUuids?: string[];
}

export class TaskDraftDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MaxLength(200)
  title: string;

  @ApiPropertyOptional({ maxLength: 100_000 })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  description?: string;

  @ApiPropertyOptional({ enum: PRIORITIES, nullable: true })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: string | null;

  @ApiPropertyOptional({ type: Number, minimum: 0, maximum: 1000, nullable: true })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1000)
  storyPoints?: number | null;

  @ApiProperty({ type: [CriterionDto], description: 'Acceptance criteria, 1-50 items' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CriterionDto)
  acceptanceCriteriaItems: CriterionDto[];

  @ApiPropertyOptional({ type: [String], description: 'Sibling task drafts this one depends on' })
  @IsOptional()
  @IsArray()
  @IsEntityUuidList()
  dependsOnDraftUuids?: string[];
}
