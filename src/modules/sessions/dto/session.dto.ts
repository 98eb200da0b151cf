import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';

export class ListSessionsQueryDto extends PagingQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this agent's sessions" }) @IsOptional() @IsEntityUuid() agentUuid?: string;
  @ApiPropertyOptional({ enum: ['active', 'closed'] }) @IsOptional() @IsIn(['active', 'closed']) status?: 'active' | 'closed';
}
