import { EnumField, TextField, UuidField } from '../../../shared/validation/fields.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { REFERENCE_TYPES } from '../domain/reference-input.js';
import { SEARCH_ENTITY_TYPES } from '../search.service.js';
import { TARGET_TYPES } from '../target.js';

const REFERENCE_TARGETS = ['idea', 'proposal', 'task'] as const;

// Text limits, the URL rule and their messages are the services' (the same as the tools): `limits: 'service'`.
const BY_SERVICE = { limits: 'service' } as const;

export class ListCommentsQueryDto extends PagingQueryDto {
  @EnumField(TARGET_TYPES) targetType: string;
  @UuidField() targetUuid: string;
}

export class AddCommentDto {
  @EnumField(TARGET_TYPES) targetType: string;
  @UuidField() targetUuid: string;
  @TextField({ ...BY_SERVICE, maxLength: 20_000, description: 'May mention @[Name](user:<uuid>) or @[Name](agent:<uuid>)' }) content: string;
}

export class AddReferenceDto {
  @EnumField(REFERENCE_TARGETS) targetType: string;
  @UuidField() targetUuid: string;
  @EnumField(REFERENCE_TYPES) type: string;
  @TextField({ ...BY_SERVICE, maxLength: 2048, description: 'http:// or https://; never fetched' }) url: string;
  @TextField({ ...BY_SERVICE, maxLength: 200 }) title: string;
  @TextField({ ...BY_SERVICE, optional: true, nullable: true, maxLength: 500 }) notes?: string | null;
}

export class UpdateReferenceDto {
  @EnumField(REFERENCE_TYPES, { optional: true }) type?: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 2048 }) url?: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 200 }) title?: string;
  @TextField({ ...BY_SERVICE, optional: true, nullable: true, maxLength: 500, description: 'null clears the notes' }) notes?: string | null;
}

export class ListActivityQueryDto extends PagingQueryDto {
  @EnumField(TARGET_TYPES, { optional: true }) targetType?: string;
  @UuidField({ optional: true, description: 'Requires targetType' }) targetUuid?: string;
}

export class SearchQueryDto extends PagingQueryDto {
  @TextField({ ...BY_SERVICE, maxLength: 200, description: 'Text, or a uuid (an exact uuid match ranks first)' }) q: string;
  @EnumField(['global', 'group', 'project'], { optional: true, description: 'global (default), group or project' }) scope?: string;
  @UuidField({ optional: true, description: 'Required unless scope is global' }) scopeUuid?: string;
  @TextField({ optional: true, description: `Comma-separated subset of ${SEARCH_ENTITY_TYPES.join(', ')}`, example: 'task,idea' }) entityTypes?: string;
}

export class MentionablesQueryDto extends PagingQueryDto {
  @TextField({ ...BY_SERVICE, optional: true, maxLength: 100, description: 'Matches user names and emails, agent names' }) q?: string;
}
