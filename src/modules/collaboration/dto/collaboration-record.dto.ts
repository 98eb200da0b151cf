import type { EntityType } from '../../../shared/event-bus/events.js';
import { PersonDto } from '../../../shared/validation/person.dto.js';
import { PageOf, Prop } from '../../../shared/validation/response-fields.js';
import type { CommentTargetType, ReferenceTargetType, ReferenceType } from '../collaboration.entity.js';
import type { Mentionable, SearchCounts, SearchEntityType, SearchResult } from '../search.service.js';

// The answers of the collaboration module (README "Agents and the tool endpoint"): comment, reference and activity
// records (collaboration.records.ts names them), search hits and mentionables. A person is `object|null` in the tools'
// schemas, as a person can be unresolvable.

export class CommentRecordDto {
  @Prop.string() uuid: string;
  @Prop.string() targetType: CommentTargetType;
  @Prop.string() targetUuid: string;
  @Prop.string() content: string;
  @Prop.nested(PersonDto, { nullable: true }) author: PersonDto;
  @Prop.string() createdAt: string;
}

export class ReferenceRecordDto {
  @Prop.string() uuid: string;
  @Prop.string() targetType: ReferenceTargetType;
  @Prop.string() targetUuid: string;
  @Prop.string() type: ReferenceType;
  @Prop.string() url: string;
  @Prop.string() title: string;
  @Prop.string({ nullable: true }) notes: string | null;
  @Prop.nested(PersonDto, { nullable: true }) createdBy: PersonDto;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class ActivityRecordDto {
  @Prop.string() uuid: string;
  @Prop.string() projectUuid: string;
  @Prop.string() targetType: EntityType;
  @Prop.string() targetUuid: string;
  @Prop.nested(PersonDto, { nullable: true }) actor: PersonDto;
  @Prop.string() action: string;
  @Prop.object({ nullable: true, description: "The action's details" }) value: Record<string, unknown> | null;
  @Prop.string({ nullable: true }) sessionUuid: string | null;
  @Prop.string({ nullable: true }) sessionName: string | null;
  @Prop.string() createdAt: string;
}

export class SearchResultDto implements SearchResult {
  @Prop.string() entityType: SearchEntityType;
  @Prop.string() uuid: string;
  @Prop.string() title: string;
  @Prop.string() snippet: string;
  @Prop.string({ nullable: true }) status: string | null;
  @Prop.string({ nullable: true }) projectUuid: string | null;
  @Prop.string({ nullable: true }) projectName: string | null;
  @Prop.string() updatedAt: string;
}

export class SearchCountsDto implements SearchCounts {
  @Prop.integer() tasks: number;
  @Prop.integer() ideas: number;
  @Prop.integer() proposals: number;
  @Prop.integer() documents: number;
  @Prop.integer() projects: number;
  @Prop.integer() projectGroups: number;
}

export class MentionableDto implements Mentionable {
  @Prop.string({ description: 'user or agent' }) type: 'user' | 'agent';
  @Prop.string() uuid: string;
  @Prop.string() name: string;
  @Prop.string({ nullable: true }) email: string | null;
}

export class ActivityPageDto extends PageOf('activities', ActivityRecordDto) {}
export class CommentPageDto extends PageOf('comments', CommentRecordDto) {}
export class MentionablePageDto extends PageOf('mentionables', MentionableDto) {}

export class SearchPageDto extends PageOf('results', SearchResultDto) {
  @Prop.nested(SearchCountsDto, { description: 'Matches per entity type' }) counts: SearchCountsDto;
}
