import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsNumber, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';
import { IsEntityUuidList } from '../../../shared/validation/is-entity-uuid-list.js';
import { ReferenceInputDto } from '../../collaboration/index.js';
import type { Priority } from '../task.entity.js';
import { PRIORITIES } from '../task-input.js';
import { CriterionDto } from './criterion.dto.js';

/**
 * Bodies of the task routes: the inputs of the equivalent tools (tools.md §5.2–§5.8) minus the ids carried by the
 * path. Shapes and limits are checked here; domain rules (blank titles, criteria, dependencies) by the service.
 */
const OPERATIONAL = ['in_progress', 'to_verify'] as const;

export class NewTaskDto {
  @ApiProperty({ maxLength: 200, description: 'Title, 1-200 characters' })
  @IsString()
  @MaxLength(200)
  title: string;

  @ApiPropertyOptional({ type: String, maxLength: 100_000, nullable: true, description: 'Markdown description; @mentions notify' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  description?: string | null;

  @ApiPropertyOptional({ enum: PRIORITIES, nullable: true, description: 'Priority (default medium)' })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority | null;

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

  @ApiPropertyOptional({ type: String, minLength: 1, maxLength: 64, nullable: true, description: 'Batch-local id other items of this call can depend on' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  draftUuid?: string | null;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'draftUuids of other items of this call' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  dependsOnDraftUuids?: string[] | null;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Existing tasks this one depends on' })
  @IsOptional()
  @IsArray()
  @IsEntityUuidList()
  dependsOnTaskUuids?: string[] | null;

  @ApiPropertyOptional({ type: [ReferenceInputDto], nullable: true, description: 'Up to 10 external links' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => ReferenceInputDto)
  references?: ReferenceInputDto[] | null;
}

export class CreateTasksDto {
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'An approved proposal of the project the tasks belong to' })
  @IsOptional()
  @IsEntityUuid()
  proposalUuid?: string | null;

  @ApiProperty({ type: [NewTaskDto], description: '1-50 tasks, created all-or-nothing' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => NewTaskDto)
  tasks: NewTaskDto[];
}

export class UpdateTaskDto {
  @ApiPropertyOptional({ enum: OPERATIONAL, nullable: true, description: 'Start, submit or pull back (assignee only)' })
  @IsOptional()
  @IsIn(OPERATIONAL)
  status?: (typeof OPERATIONAL)[number] | null;

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

  @ApiPropertyOptional({ enum: PRIORITIES })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: Priority;

  @ApiPropertyOptional({ type: Number, minimum: 0, maximum: 1000, nullable: true })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1000)
  storyPoints?: number | null;

  @ApiPropertyOptional({ type: [CriterionDto], description: 'Replaces all criteria, discarding their marks' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => CriterionDto)
  acceptanceCriteriaItems?: CriterionDto[];

  @ApiPropertyOptional({ type: [String], description: 'Prerequisite tasks to add' })
  @IsOptional()
  @IsArray()
  @IsEntityUuidList()
  addDependsOn?: string[];

  @ApiPropertyOptional({ type: [String], description: 'Prerequisite tasks to remove' })
  @IsOptional()
  @IsArray()
  @IsEntityUuidList()
  removeDependsOn?: string[];
}

export class AssignTaskDto {
  @ApiProperty({ enum: ['user', 'agent'] })
  @IsIn(['user', 'agent'])
  assigneeType: 'user' | 'agent';

  @ApiProperty({ format: 'uuid', description: 'A user, or a non-archived agent holding task:write, of the company' })
  @IsEntityUuid()
  assigneeUuid: string;
}

export class SubmitTaskDto {
  @ApiPropertyOptional({ type: String, maxLength: 10_000, nullable: true, description: 'What was done' })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  summary?: string | null;
}

export class ReopenTaskDto {
  @ApiPropertyOptional({ description: 'Reopen even while prerequisites are unresolved (default false)' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class CloseTaskDto {
  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string | null;
}

export class VerificationMarkDto {
  @ApiProperty({ format: 'uuid', description: 'A criterion of this task' })
  @IsEntityUuid()
  uuid: string;

  @ApiProperty({ enum: ['passed', 'failed', 'pending'] })
  @IsIn(['passed', 'failed', 'pending'])
  status: 'passed' | 'failed' | 'pending';

  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  evidence?: string | null;
}

export class MarkCriteriaDto {
  @ApiProperty({ type: [VerificationMarkDto], description: '1-50 marks' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => VerificationMarkDto)
  criteria: VerificationMarkDto[];
}

export class SelfCheckMarkDto {
  @ApiProperty({ format: 'uuid', description: 'A criterion of this task' })
  @IsEntityUuid()
  uuid: string;

  @ApiProperty({ enum: ['passed', 'failed'] })
  @IsIn(['passed', 'failed'])
  devStatus: 'passed' | 'failed';

  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  devEvidence?: string | null;
}

export class SelfCheckDto {
  @ApiProperty({ type: [SelfCheckMarkDto], description: '1-50 self-check marks' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => SelfCheckMarkDto)
  criteria: SelfCheckMarkDto[];
}

export class WorkReportDto {
  @ApiProperty({ minLength: 1, maxLength: 20_000, description: 'The report, stored as a comment by the caller' })
  @IsString()
  @MaxLength(20_000)
  report: string;

  @ApiPropertyOptional({ enum: OPERATIONAL, nullable: true, description: 'Optional status move in the same call' })
  @IsOptional()
  @IsIn(OPERATIONAL)
  status?: (typeof OPERATIONAL)[number] | null;
}
