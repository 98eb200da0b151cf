import { BooleanField, EnumField, ListField, TextField, UuidField } from '../../../shared/validation/fields.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { IDEA_STATUSES } from '../domain/idea-input.js';

// Shapes and types are checked here; text limits, reference rules and messages stay the service's (same as tools).
const BY_SERVICE = { limits: 'service' } as const;

export class IdeaReferenceDto {
  @EnumField(['docs', 'repo', 'issue_pr', 'paper_blog'], BY_SERVICE) type: string;
  @TextField({ ...BY_SERVICE, maxLength: 2048, description: 'http:// or https://; never fetched' }) url: string;
  @TextField({ ...BY_SERVICE, maxLength: 200 }) title: string;
  @TextField({ ...BY_SERVICE, optional: true, nullable: true, maxLength: 500 }) notes?: string | null;
}

export class CreateIdeaDto {
  @TextField({ ...BY_SERVICE, maxLength: 200 }) title: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 100_000 }) content?: string;
  @UuidField({ optional: true, description: 'An idea of the same project' }) parentUuid?: string;
  @BooleanField({ optional: true, description: 'A theme grouping other ideas' }) isContainer?: boolean;
  @ListField(IdeaReferenceDto, { optional: true, maxItems: 10 }) references?: IdeaReferenceDto[];
}

export class EditIdeaDto {
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 200 }) title?: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 100_000 }) content?: string;
  @UuidField({ optional: true, nullable: true, description: 'null detaches the idea from its parent' }) parentUuid?: string | null;
  @BooleanField({ optional: true }) isContainer?: boolean;
}

export class MoveIdeaDto {
  @UuidField() targetProjectUuid: string;
}

export class AssignIdeaDto {
  @EnumField(['user', 'agent']) assigneeType: 'user' | 'agent';
  @UuidField() assigneeUuid: string;
}

export class ListIdeasQueryDto extends PagingQueryDto {
  @EnumField(IDEA_STATUSES, { optional: true }) status?: (typeof IDEA_STATUSES)[number];
  @EnumField(['true', 'false'], { optional: true, description: 'true lists the open (claimable) ideas only' }) available?: 'true' | 'false';
}
