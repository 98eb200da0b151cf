import { IntersectionType } from '@nestjs/swagger';
import { EnumField, EnumListField, TextField, UuidArgs, UuidField } from '../../../shared/validation/fields.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { RequiresField } from '../../../shared/validation/requires-field.js';
import { MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { MAX_COMMENT_LENGTH } from '../comment.service.js';
import { MAX_REFERENCE_NOTES, MAX_URL_LENGTH, REFERENCE_TYPES } from '../domain/reference.rules.js';
import { REFERENCE_TARGET_TYPES } from '../reference.service.js';
import { SEARCH_ENTITY_TYPES, SEARCH_SCOPES, MAX_MENTIONABLES_QUERY, MAX_SEARCH_QUERY } from '../search.service.js';
import { TARGET_TYPES } from '../target.js';

/**
 * Inputs of the collaboration tools (docs/tool-conventions.md §5.1, §5.2, §5.7) and routes (docs/platform.md §9): a tool's arguments are
 * the route's body plus the ids its path carries. Text limits, the URL rule and their messages are the services' on
 * REST (`limits: 'service'`); the tools check them here.
 */
const BY_SERVICE = { limits: 'service' } as const;

/** The record a comment list or a new comment is about. */
export class CommentTargetDto {
  @EnumField(TARGET_TYPES, { description: 'Kind of the commented record' }) targetType: string;
  @UuidField({ description: 'Commented record uuid' }) targetUuid: string;
}

export class AddCommentDto extends CommentTargetDto {
  @TextField({
    ...BY_SERVICE,
    minLength: 1,
    maxLength: MAX_COMMENT_LENGTH,
    description: `Comment text (markdown), 1-${MAX_COMMENT_LENGTH} characters; @[Name](user:<uuid>) or @[Name](agent:<uuid>) mentions notify`,
  })
  content: string;
}

export class ListCommentsArgsDto extends IntersectionType(CommentTargetDto, PagingArgsDto) {}
export class ListCommentsQueryDto extends IntersectionType(CommentTargetDto, PagingQueryDto) {}

const url = (optional: boolean) =>
  TextField({ ...BY_SERVICE, optional, maxLength: MAX_URL_LENGTH, description: `http:// or https:// URL, at most ${MAX_URL_LENGTH} characters; never fetched` });

export class AddReferenceDto {
  @EnumField(REFERENCE_TARGET_TYPES, { description: 'Kind of the record the link is attached to' }) targetType: string;
  @UuidField({ description: 'Record uuid' }) targetUuid: string;
  @EnumField(REFERENCE_TYPES, { description: 'Kind of link' }) type: string;
  @url(false) url: string;
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: MAX_TITLE, description: 'Link title, 1-200 characters' }) title: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: MAX_REFERENCE_NOTES, description: `Notes, at most ${MAX_REFERENCE_NOTES} characters` }) notes?: string;
}

export class UpdateReferenceDto {
  @EnumField(REFERENCE_TYPES, { optional: true, description: 'Kind of link' }) type?: string;
  @url(true) url?: string;
  @TextField({ ...BY_SERVICE, optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'Link title, 1-200 characters' }) title?: string;
  @TextField({
    ...BY_SERVICE,
    optional: true,
    nullable: true,
    maxLength: MAX_REFERENCE_NOTES,
    description: `Notes, at most ${MAX_REFERENCE_NOTES} characters; null clears them`,
  })
  notes?: string | null;
}

export class ReferenceRefDto extends UuidArgs('referenceUuid', 'Reference uuid') {}
export class UpdateReferenceArgsDto extends IntersectionType(ReferenceRefDto, UpdateReferenceDto) {}

class ActivityFilterDto {
  @EnumField(TARGET_TYPES, { optional: true, description: 'Only activity on targets of this type' }) targetType?: string;
}

class ActivityTargetDto {
  // Above the field's own checks, so it runs after them (the service checks the same pair for REST).
  @RequiresField('targetType')
  @UuidField({ optional: true, description: 'Only activity on this target; requires targetType' })
  targetUuid?: string;
}

export class ListActivityArgsDto extends IntersectionType(UuidArgs('projectUuid', 'Project uuid'), ActivityFilterDto, ActivityTargetDto, PagingArgsDto) {}

export class ListActivityQueryDto extends IntersectionType(ActivityFilterDto, PagingQueryDto) {
  @UuidField({ optional: true, description: 'Requires targetType' }) targetUuid?: string;
}

class SearchFieldsDto {
  @TextField({ minLength: 1, maxLength: MAX_SEARCH_QUERY, description: 'Text (case-insensitive, in titles and texts) or an exact uuid, 1-200 characters' })
  query: string;

  @EnumField(SEARCH_SCOPES, { optional: true, description: 'Where to search (default global)' }) scope?: string;
  @UuidField({ optional: true, description: 'The group or project searched; required unless scope is global' }) scopeUuid?: string;
  @EnumListField(SEARCH_ENTITY_TYPES, { optional: true, maxItems: SEARCH_ENTITY_TYPES.length, description: 'Only these kinds of records (default all)' })
  entityTypes?: string[];
}

export class SearchArgsDto extends IntersectionType(SearchFieldsDto, PagingArgsDto) {}

export class SearchQueryDto extends PagingQueryDto {
  @TextField({ ...BY_SERVICE, maxLength: MAX_SEARCH_QUERY, description: 'Text, or a uuid (an exact uuid match ranks first)' }) q: string;
  @EnumField(SEARCH_SCOPES, { optional: true, description: 'global (default), group or project' }) scope?: string;
  @UuidField({ optional: true, description: 'Required unless scope is global' }) scopeUuid?: string;
  @TextField({ optional: true, description: `Comma-separated subset of ${SEARCH_ENTITY_TYPES.join(', ')}`, example: 'task,idea' }) entityTypes?: string;
}

class MentionablesFieldsDto {
  @TextField({ optional: true, maxLength: MAX_MENTIONABLES_QUERY, description: 'Part of a name or email, at most 100 characters (default: everyone)' })
  query?: string;
}

export class MentionablesArgsDto extends IntersectionType(MentionablesFieldsDto, PagingArgsDto) {}

export class MentionablesQueryDto extends PagingQueryDto {
  @TextField({ ...BY_SERVICE, optional: true, maxLength: MAX_MENTIONABLES_QUERY, description: 'Matches user names and emails, agent names' }) q?: string;
}
