import { IntersectionType } from '@nestjs/swagger';
import { EnumField, TextField, UuidArgs, UuidField } from '../../../shared/validation/fields.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { SESSION_STATUSES, type SessionStatus } from '../session.entity.js';

/** Inputs of the session tools (docs/tool-conventions.md §5.3) and of the web's read-only session list (docs/platform.md §9). */
export class SessionRefDto extends UuidArgs('sessionUuid', 'One of your sessions') {}
export class SessionTaskDto extends IntersectionType(UuidArgs('sessionUuid', 'One of your active sessions'), UuidArgs('taskUuid', 'The task')) {}

export class CreateSessionDto {
  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Session name, 1-200 characters' })
  name: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'What this worker does' })
  description?: string;
}

class SessionStatusFilterDto {
  @EnumField(SESSION_STATUSES, { optional: true, description: 'Only sessions in this status' })
  status?: SessionStatus;
}

export class ListSessionsArgsDto extends IntersectionType(SessionStatusFilterDto, PagingArgsDto) {}

export class ListSessionsQueryDto extends IntersectionType(SessionStatusFilterDto, PagingQueryDto) {
  @UuidField({ optional: true, description: "Only this agent's sessions" }) agentUuid?: string;
}
