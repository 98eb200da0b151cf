import { IntersectionType } from '@nestjs/swagger';
import { BooleanField, EnumField, ListField, TextField, UuidArgs, UuidField } from '../../../shared/validation/fields.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { MAX_REFERENCES_ON_CREATE, ReferenceInputDto } from '../../collaboration/index.js';
import { IDEA_STATUSES } from '../domain/idea.rules.js';
import type { IdeaStatus } from '../idea.entity.js';

/**
 * Inputs of the idea tools (docs/tool-conventions.md §5.1, §5.5, §5.8) and routes (docs/platform.md §9): a tool's arguments are the
 * route's body (or query) plus the ids its path carries. Text limits and messages stay the service's on REST
 * (`limits: 'service'`); the tools check them here.
 */
const BY_SERVICE = { limits: 'service' } as const;
const content = (): PropertyDecorator =>
  TextField({ ...BY_SERVICE, optional: true, maxLength: MAX_LONG_TEXT, description: 'Idea content (markdown, may @mention)' });

export class IdeaRefDto extends UuidArgs('ideaUuid', 'Idea uuid') {}

class IdeaStatusFilterDto {
  @EnumField(IDEA_STATUSES, { optional: true, description: 'Only ideas in this status' }) status?: IdeaStatus;
}

export class AvailableIdeasArgsDto extends IntersectionType(UuidArgs('projectUuid', 'Project uuid'), PagingArgsDto) {}
export class ListIdeasArgsDto extends IntersectionType(UuidArgs('projectUuid', 'Project uuid'), IdeaStatusFilterDto, PagingArgsDto) {}

export class ListIdeasQueryDto extends IntersectionType(IdeaStatusFilterDto, PagingQueryDto) {
  @EnumField(['true', 'false'], { optional: true, description: 'true lists the open (claimable) ideas only' }) available?: 'true' | 'false';
}

export class CreateIdeaDto {
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: MAX_TITLE, description: 'Idea title, 1-200 characters' }) title: string;
  @content() content?: string;
  @UuidField({ optional: true, description: 'Parent idea in the same project' }) parentUuid?: string;
  @BooleanField({ optional: true, description: 'A theme grouping child ideas; themes cannot be proposal inputs (default false)' }) isContainer?: boolean;
  @ListField(ReferenceInputDto, { optional: true, maxItems: MAX_REFERENCES_ON_CREATE, description: 'Up to 10 external links to attach' })
  references?: ReferenceInputDto[];
}

export class CreateIdeaArgsDto extends IntersectionType(UuidArgs('projectUuid', 'Project uuid'), CreateIdeaDto) {}

export class EditIdeaDto {
  @TextField({ ...BY_SERVICE, optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New title, 1-200 characters' }) title?: string;
  @content() content?: string;
  @UuidField({ optional: true, nullable: true, description: 'New parent idea in the same project, or null to make it top-level' }) parentUuid?: string | null;
  @BooleanField({ optional: true, description: 'Theme flag' }) isContainer?: boolean;
}

export class EditIdeaArgsDto extends IntersectionType(IdeaRefDto, EditIdeaDto) {}

export class MoveIdeaDto {
  @UuidField({ description: 'Project to move the idea to' }) targetProjectUuid: string;
}

export class MoveIdeaArgsDto extends IntersectionType(IdeaRefDto, MoveIdeaDto) {}

/** REST only (docs/domain.md §4.1). */
export class AssignIdeaDto {
  @EnumField(['user', 'agent'], { description: 'Who is assigned' }) assigneeType: 'user' | 'agent';
  @UuidField({ description: 'A user, or a non-archived agent holding idea:write, of the company' }) assigneeUuid: string;
}
