import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow, ValidateIf } from 'class-validator';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';
import { isUuid } from '../../../shared/validation/uuid-param.pipe.js';
import { DEFAULT_LIMIT, MAX_LIMIT, MAX_WAIT_SECONDS, type PositionInput } from '../domain/inbox.rules.js';
import { CURSOR_MESSAGE, cursorOf, POSITION_MESSAGE, positionOf, WAIT_MESSAGE, waitSecondsOf, type Cursor } from '../inbox-inputs.js';
import { Parsed, RequiresAfter } from './parsed.js';

/** docs/notifications.md §2.1 integer test: an optional minus and digits parse (huge values stay finite); else null. */
function integerOf(v: unknown): number | null {
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) return null;
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(v)));
}

const lowerCased = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

/**
 * `GET /api/notifications` (docs/notifications.md §2.1, §2.0): a page — by offset, or by `cursor` — or, with `after`, a
 * delta (then the list parameters are ignored, not even checked). `limit`, `offset` and `unreadOnly` are lenient:
 * clamped or defaulted, never refused. The others refuse one field at a time, in the order the spec's parser checked
 * them — `after`, `waitSeconds`, `projectUuid`, `cursor` — so a field is only checked while the ones before it
 * passed. Other parameters are dropped by the REST pipe. A value a `@Transform` cannot parse becomes null, which its
 * check refuses.
 */
export class ListNotificationsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Clamped to 1-100' })
  @Transform(({ value }) => {
    const n = integerOf(value);
    return n === null ? DEFAULT_LIMIT : Math.min(MAX_LIMIT, Math.max(1, n));
  })
  @Allow()
  limit: number = DEFAULT_LIMIT;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'Floored at 0' })
  @Transform(({ value }) => Math.max(0, integerOf(value) ?? 0))
  @Allow()
  offset: number = 0;

  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'Only the exact string true filters' })
  @Transform(({ value }) => value === 'true')
  @Allow()
  unreadOnly: boolean = false;

  @ApiPropertyOptional({ type: 'string', format: 'uuid', description: 'Only notifications of this project' })
  @Transform(lowerCased)
  @ValidateIf((q: ListNotificationsQuery) => q.after === undefined && q.waitSeconds === undefined && q.projectUuid !== undefined)
  @IsEntityUuid()
  projectUuid?: string;

  @ApiPropertyOptional({ type: 'string', description: 'Keyset paging: empty for the first page, then the previous nextCursor' })
  @Transform(({ value }) => cursorOf(value))
  @ValidateIf(
    (q: ListNotificationsQuery) =>
      q.after === undefined && q.waitSeconds === undefined && (q.projectUuid === undefined || isUuid(q.projectUuid)) && q.cursor !== undefined,
  )
  @Parsed(CURSOR_MESSAGE)
  cursor?: Cursor;

  @ApiPropertyOptional({ type: 'string', description: 'A delta: the records changed after this stream position (filters and paging ignored)' })
  @Transform(({ value }) => positionOf(value))
  @ValidateIf((q: ListNotificationsQuery) => q.after !== undefined)
  @Parsed(POSITION_MESSAGE)
  after?: PositionInput;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_WAIT_SECONDS, description: 'With after: wait up to this long for a change' })
  @Transform(({ value }) => waitSecondsOf(value))
  @ValidateIf((q: ListNotificationsQuery) => q.waitSeconds !== undefined && q.after !== null)
  @Parsed(WAIT_MESSAGE)
  @RequiresAfter()
  waitSeconds?: number;
}
