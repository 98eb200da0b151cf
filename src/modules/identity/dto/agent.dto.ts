import { IsArray, IsDateString, IsOptional, IsString, MaxLength } from 'class-validator';

// Preset and permission values are checked by the service so the messages match platform.md §3 exactly.
export class CreateAgentDto {
  @IsString() @MaxLength(200) name: string;
  @IsOptional() @IsString() preset?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) permissions?: string[];
}

export class UpdateAgentDto {
  @IsOptional() @IsString() @MaxLength(200) name?: string;
  @IsOptional() @IsString() preset?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) permissions?: string[];
}

export class CreateApiKeyDto {
  @IsOptional() @IsString() @MaxLength(100) name?: string;
  @IsOptional() @IsDateString({ strict: true }) expiresAt?: string;
}
