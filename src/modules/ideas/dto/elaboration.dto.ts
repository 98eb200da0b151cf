import { IntersectionType } from '@nestjs/swagger';
import { BooleanField, EnumField, ListField, TextField, UuidField } from '../../../shared/validation/fields.js';
import { ELABORATION_DEPTHS, QUESTION_CATEGORIES, ROUND_LIMITS as L } from '../domain/elaboration.rules.js';
import type { ElaborationDepth } from '../idea.entity.js';
import { IdeaRefDto } from './idea.dto.js';

// Counts, lengths, enum values and duplicate ids are checked on REST by validateRound/checkAnswers, with the
// domain's messages (`limits: 'service'`); the tools check the shapes and limits here first.
const BY_SERVICE = { limits: 'service' } as const;

export class QuestionOptionDto {
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: L.idLength, description: 'Option id, unique in the question, 1-50 characters' }) id: string;
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: L.optionLabel, description: 'Option label, 1-200 characters' }) label: string;
  @TextField({ ...BY_SERVICE, optional: true, maxLength: L.optionDescription, description: 'What choosing this option means, at most 2000 characters' })
  description?: string;
}

export class QuestionDto {
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: L.idLength, description: 'Question id, unique in the round, 1-50 characters (stored as questionId)' }) id: string;
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: L.questionText, description: 'The question, 1-2000 characters' }) text: string;
  @EnumField(QUESTION_CATEGORIES, { ...BY_SERVICE, description: 'Question category' }) category: string;
  @ListField(QuestionOptionDto, { ...BY_SERVICE, minItems: L.options.min, maxItems: L.options.max, description: '2-5 choices; answers may also use customText' })
  options: QuestionOptionDto[];
  @BooleanField({ optional: true, description: 'Must be answered before the round closes (default true)' }) required?: boolean;
}

export class StartElaborationDto {
  @EnumField(ELABORATION_DEPTHS, { ...BY_SERVICE, description: 'How deep this round goes' }) depth: ElaborationDepth;
  @ListField(QuestionDto, { ...BY_SERVICE, minItems: L.questions.min, maxItems: L.questions.max, description: '1-15 questions with unique ids' })
  questions: QuestionDto[];
}

export class StartElaborationArgsDto extends IntersectionType(IdeaRefDto, StartElaborationDto) {}

export class AnswerDto {
  @TextField({ ...BY_SERVICE, maxLength: L.idLength, description: 'The questionId of a question of the round' }) questionId: string;
  @TextField({ ...BY_SERVICE, optional: true, nullable: true, maxLength: L.idLength, description: 'Id of the chosen option, or null' }) selectedOptionId?: string | null;
  @TextField({ ...BY_SERVICE, optional: true, nullable: true, maxLength: L.customText, description: 'Free-text answer, at most 5000 characters, or null' })
  customText?: string | null;
}

export class AnswerElaborationDto {
  @UuidField({ optional: true, description: 'Round to answer (default: the round awaiting answers)' }) roundUuid?: string;
  @ListField(AnswerDto, { ...BY_SERVICE, minItems: L.answers.min, maxItems: L.answers.max, description: '1-15 answers; each needs an option or a non-empty customText' })
  answers: AnswerDto[];
}

export class AnswerElaborationArgsDto extends IntersectionType(IdeaRefDto, AnswerElaborationDto) {}

export class SkipElaborationDto {
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: L.skipReason, description: 'Why no questions are needed and who agreed, 1-2000 characters' }) reason: string;
}

export class SkipElaborationArgsDto extends IntersectionType(IdeaRefDto, SkipElaborationDto) {}
