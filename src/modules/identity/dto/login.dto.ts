import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

export class LoginDto {
  @ApiProperty({ maxLength: 320, example: 'demo@example.com' }) @IsString() @MaxLength(320) email: string;
  @ApiProperty({ maxLength: 1024 }) @IsString() @MaxLength(1024) password: string;
}
