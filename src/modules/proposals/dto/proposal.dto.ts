import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { IsEntityUuidList } from '../../../shared/validation/is-entity-uuid-list.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { ReferenceInputDto } from '../../collaboration/index.js';
import type { ProposalStatus } from '../proposal.entity.js';
import { PROPOSAL_SECTIONS, type ProposalSection } from '../proposal.records.js';

/**
 * Queries and bodies of the proposal routes: the inputs of the equivalent tools (tools.md §5.6, §5.8) minus the ids
 * carried by the path. Shapes are checked here; text rules and state guards by the services.
 */
const STATUSES: readonly ProposalStatus[] = ['draft', 'pending', 'approved', 'closed'];

export class ListProposalsQuery extends PagingQueryDto {
  @ApiPropertyOptional({ enum: STATUSES, description: 'Only proposals in this status' })
  @IsOptional()
  @IsIn(STATUSES)
  status?: ProposalStatus;
}

export class GetProposalQuery {
  @ApiPropertyOptional({ enum: PROPOSAL_SECTIONS, description: 'basic (draft indexes, default), documents, tasks or full' })
  @IsOptional()
  @IsIn(PROPOSAL_SECTIONS)
  section?: ProposalSection;
}

export class CreateProposalDto {
  @ApiProperty({ maxLength: 200, description: 'Title, 1-200 characters' })
  @IsString()
  @MaxLength(200)
  title: string;

  @ApiPropertyOptional({ maxLength: 100_000 })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  description?: string;

  @ApiProperty({ enum: ['idea', 'document'] })
  @IsIn(['idea', 'document'])
  inputType: string;

  @ApiProperty({ type: [String], description: '1-20 distinct ideas (assigned to you) or documents of the project' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsEntityUuidList()
  inputUuids: string[];

  @ApiPropertyOptional({ type: [ReferenceInputDto], description: 'Up to 10 external links' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => ReferenceInputDto)
  references?: ReferenceInputDto[];
}

export class EditProposalDto {
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
}

export class RequiredReviewDto {
  @ApiProperty({ minLength: 1, maxLength: 2000, description: 'Why; required' })
  @IsString()
  @MaxLength(2000)
  reviewNote: string;
}

export class OptionalReviewDto {
  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reviewNote?: string | null;
}
