import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import type { DocumentType } from '../document.entity.js';

/** Queries and bodies of the document routes (svc_get_documents, svc_pm_create/update_document, svc_create_report). */
const TYPES: readonly DocumentType[] = ['prd', 'tech_design', 'adr', 'spec', 'guide', 'report'];
/** Reports are written only through the proposal's report route. */
const AUTHORED_TYPES: readonly DocumentType[] = ['prd', 'tech_design', 'adr', 'spec', 'guide'];

export class ListDocumentsQuery extends PagingQueryDto {
  @ApiPropertyOptional({ enum: TYPES, description: 'Only documents of this type' })
  @IsOptional()
  @IsIn(TYPES)
  type?: DocumentType;
}

export class CreateDocumentDto {
  @ApiProperty({ enum: AUTHORED_TYPES })
  @IsIn(AUTHORED_TYPES)
  type: string;

  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MaxLength(200)
  title: string;

  @ApiPropertyOptional({ maxLength: 100_000, description: 'Markdown (default empty)' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  content?: string;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'A proposal of the same project to link' })
  @IsOptional()
  @IsEntityUuid()
  proposalUuid?: string | null;
}

export class UpdateDocumentDto {
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

export class CreateReportDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MaxLength(200)
  title: string;

  @ApiProperty({ minLength: 1, maxLength: 100_000, description: 'Markdown; expected sections Summary, Decisions, Follow-ups' })
  @IsString()
  @MaxLength(100_000)
  content: string;

  @ApiPropertyOptional({ description: 'Add a report although one exists (default false)' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}
