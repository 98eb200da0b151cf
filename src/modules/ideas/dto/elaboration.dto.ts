import { BooleanField, EnumField, ListField, TextField, UuidField } from '../../../shared/validation/fields.js';
import { ELABORATION_DEPTHS, QUESTION_CATEGORIES } from '../domain/elaboration-input.js';

// Counts (1-15 questions, 2-5 options), lengths, enum values and duplicate ids are checked by
// validateRound/checkAnswers, the same rules and messages as the tools: `limits: 'service'`.
const BY_SERVICE = { limits: 'service' } as const;

export class QuestionOptionDto {
  @TextField({ ...BY_SERVICE, maxLength: 50 }) id: string;
  @TextField({ ...BY_SERVICE, maxLength: 200 }) label: string;
  @TextField({ ...BY_SERVICE, optional: true, nullable: true, maxLength: 2000 }) description?: string | null;
}

export class QuestionDto {
  @TextField({ ...BY_SERVICE, maxLength: 50, description: 'Stored as questionId' }) id: string;
  @TextField({ ...BY_SERVICE, maxLength: 2000 }) text: string;
  @EnumField(QUESTION_CATEGORIES, BY_SERVICE) category: string;
  @ListField(QuestionOptionDto, { ...BY_SERVICE, minItems: 2, maxItems: 5 }) options: QuestionOptionDto[];
  @BooleanField({ optional: true, description: 'Default true' }) required?: boolean;
}

export class StartElaborationDto {
  @EnumField(ELABORATION_DEPTHS, BY_SERVICE) depth: string;
  @ListField(QuestionDto, { ...BY_SERVICE, minItems: 1, maxItems: 15 }) questions: QuestionDto[];
}

export class AnswerDto {
  @TextField() questionId: string;
  @TextField({ optional: true, nullable: true }) selectedOptionId?: string | null;
  @TextField({ ...BY_SERVICE, optional: true, nullable: true, maxLength: 5000 }) customText?: string | null;
}

export class AnswerElaborationDto {
  @UuidField({ optional: true, description: 'Defaults to the round awaiting answers' }) roundUuid?: string;
  @ListField(AnswerDto, { ...BY_SERVICE, minItems: 1, maxItems: 15 }) answers: AnswerDto[];
}

export class SkipElaborationDto {
  @TextField({ ...BY_SERVICE, maxLength: 2000, description: 'Why no questions are needed (a human agreed)' }) reason: string;
}
