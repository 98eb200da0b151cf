import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';

// Text limits (1-200 after trimming, descriptions up to 100,000) are the service's, so REST and tools answer alike.

export class CreateProjectDto {
  @ApiProperty({ maxLength: 200, example: 'Checkout' }) @IsString() name: string;
  @ApiPropertyOptional({ maxLength: 100_000 }) @IsOptional() @IsString() description?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsEntityUuid() groupUuid?: string;
}

export class UpdateProjectDto {
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ maxLength: 100_000 }) @IsOptional() @IsString() description?: string;
  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'null takes the project out of its group' })
  @IsOptional()
  @IsEntityUuid()
  groupUuid?: string | null;
}

export class CreateProjectGroupDto {
  @ApiProperty({ maxLength: 200 }) @IsString() name: string;
  @ApiPropertyOptional({ maxLength: 100_000 }) @IsOptional() @IsString() description?: string;
}

export class UpdateProjectGroupDto {
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() name?: string;
  @ApiPropertyOptional({ maxLength: 100_000 }) @IsOptional() @IsString() description?: string;
}
