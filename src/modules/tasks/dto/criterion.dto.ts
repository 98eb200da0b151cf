import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';

/** One acceptance criterion of a task or task draft (blank ones are dropped by the service, domain.md §2.10). */
export class CriterionDto {
  @ApiProperty({ maxLength: 2000, description: 'What must be true; 1-2000 characters' })
  @IsString()
  @MaxLength(2000)
  description: string;

  @ApiPropertyOptional({ type: Boolean, nullable: true, description: 'Required for verification (default true)' })
  @IsOptional()
  @IsBoolean()
  required?: boolean | null;
}
