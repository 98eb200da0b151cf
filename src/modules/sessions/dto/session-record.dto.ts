import { PageOf, Prop } from '../../../shared/validation/response-fields.js';
import type { SessionList } from '../session.service.js';

// The answers of the sessions module: SessionRecord (session.records.ts names it) and the session list.

export class SessionCheckinDto {
  @Prop.string() taskUuid: string;
  @Prop.string() taskTitle: string;
  @Prop.string() checkinAt: string;
}

export class SessionRecordDto {
  @Prop.string() uuid: string;
  @Prop.string() agentUuid: string;
  @Prop.string() name: string;
  @Prop.string() description: string;
  @Prop.string({ description: 'active or closed' }) status: 'active' | 'closed';
  @Prop.string() lastActiveAt: string;
  @Prop.string({ nullable: true }) closedAt: string | null;
  @Prop.list(SessionCheckinDto, { description: 'The open check-ins' }) checkins: SessionCheckinDto[];
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class SessionPageDto extends PageOf('sessions', SessionRecordDto) implements SessionList {}
