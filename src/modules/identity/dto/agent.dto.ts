import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsDateString, IsOptional, IsString, MaxLength } from 'class-validator';

const PRESET = { enum: ['developer_agent', 'pm_agent', 'admin_agent'], description: 'Default developer_agent' };
const PERMISSIONS = { type: [String] as [StringConstructor], description: 'Custom permission bits (e.g. task:claim), added to the preset' };

// Preset and permission values are checked by the service so the messages match platform.md §3 exactly.
export class CreateAgentDto {
  @ApiProperty({ maxLength: 200 }) @IsString() @MaxLength(200) name: string;
  @ApiPropertyOptional(PRESET) @IsOptional() @IsString() preset?: string;
  @ApiPropertyOptional(PERMISSIONS) @IsOptional() @IsArray() @IsString({ each: true }) permissions?: string[];
}

export class UpdateAgentDto {
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() @MaxLength(200) name?: string;
  @ApiPropertyOptional(PRESET) @IsOptional() @IsString() preset?: string;
  @ApiPropertyOptional({ ...PERMISSIONS, description: 'Replaces the custom permission bits' }) @IsOptional() @IsArray() @IsString({ each: true }) permissions?: string[];
}

export class CreateApiKeyDto {
  @ApiPropertyOptional({ maxLength: 100 }) @IsOptional() @IsString() @MaxLength(100) name?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Expiry, in the future' }) @IsOptional() @IsDateString({ strict: true }) expiresAt?: string;
}
