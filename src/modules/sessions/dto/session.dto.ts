import { EnumField, UuidField } from '../../../shared/validation/fields.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';

export class ListSessionsQueryDto extends PagingQueryDto {
  @UuidField({ optional: true, description: "Only this agent's sessions" }) agentUuid?: string;
  @EnumField(['active', 'closed'], { optional: true }) status?: 'active' | 'closed';
}
