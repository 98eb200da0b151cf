import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsOptional, IsString, ValidateNested } from 'class-validator';
import { IsEntityUuid } from '../../../shared/validation/is-entity-uuid.js';
import { ELABORATION_DEPTHS, QUESTION_CATEGORIES } from '../domain/elaboration-input.js';

// Counts (1-15 questions, 2-5 options), lengths and duplicate ids are checked by validateRound/checkAnswers, the
// same rules and messages as the tools.

export class QuestionOptionDto {
  @ApiProperty({ maxLength: 50 }) @IsString() id: string;
  @ApiProperty({ maxLength: 200 }) @IsString() label: string;
  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true }) @IsOptional() @IsString() description?: string | null;
}

export class QuestionDto {
  @ApiProperty({ maxLength: 50, description: 'Stored as questionId' }) @IsString() id: string;
  @ApiProperty({ maxLength: 2000 }) @IsString() text: string;
  @ApiProperty({ enum: QUESTION_CATEGORIES }) @IsString() category: string;
  @ApiProperty({ type: [QuestionOptionDto], minItems: 2, maxItems: 5 })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => QuestionOptionDto)
  options: QuestionOptionDto[];
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() required?: boolean;
}

export class StartElaborationDto {
  @ApiProperty({ enum: ELABORATION_DEPTHS }) @IsString() depth: string;
  @ApiProperty({ type: [QuestionDto], minItems: 1, maxItems: 15 })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => QuestionDto)
  questions: QuestionDto[];
}

export class AnswerDto {
  @ApiProperty() @IsString() questionId: string;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() selectedOptionId?: string | null;
  @ApiPropertyOptional({ type: String, maxLength: 5000, nullable: true }) @IsOptional() @IsString() customText?: string | null;
}

export class AnswerElaborationDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Defaults to the round awaiting answers' }) @IsOptional() @IsEntityUuid() roundUuid?: string;
  @ApiProperty({ type: [AnswerDto], minItems: 1, maxItems: 15 })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => AnswerDto)
  answers: AnswerDto[];
}

export class SkipElaborationDto {
  @ApiProperty({ maxLength: 2000, description: 'Why no questions are needed (a human agreed)' }) @IsString() reason: string;
}
