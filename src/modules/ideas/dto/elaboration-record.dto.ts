import { PersonDto } from '../../../shared/validation/person.dto.js';
import { Prop } from '../../../shared/validation/response-fields.js';
import type { ElaborationDepth, ElaborationStatus, IdeaStatus } from '../idea.entity.js';

// ElaborationState (elaboration.records.ts names it): an idea's rounds of questions with their answers.

export class QuestionOptionRecordDto {
  @Prop.string() id: string;
  @Prop.string() label: string;
  @Prop.string({ nullable: true }) description: string | null;
}

export class QuestionAnswerDto {
  @Prop.string({ nullable: true }) selectedOptionId: string | null;
  @Prop.string({ nullable: true }) customText: string | null;
  @Prop.string() answeredAt: string;
  @Prop.nested(PersonDto, { nullable: true }) answeredBy: PersonDto | null;
}

export class ElaborationQuestionDto {
  @Prop.string() uuid: string;
  @Prop.string({ description: 'The id the round gave it' }) questionId: string;
  @Prop.string() text: string;
  @Prop.string() category: string;
  @Prop.list(QuestionOptionRecordDto) options: QuestionOptionRecordDto[];
  @Prop.boolean() required: boolean;
  @Prop.nested(QuestionAnswerDto, { nullable: true }) answer: QuestionAnswerDto | null;
}

export class ElaborationRoundDto {
  @Prop.string() uuid: string;
  @Prop.integer() roundNumber: number;
  @Prop.string({ description: 'pending_answers or answered' }) status: 'pending_answers' | 'answered';
  @Prop.string() depth: ElaborationDepth;
  @Prop.boolean({ description: 'Started after the idea was elaborated' }) isAppended: boolean;
  @Prop.nested(PersonDto, { nullable: true }) createdBy: PersonDto | null;
  @Prop.string({ nullable: true }) answeredAt: string | null;
  @Prop.string() createdAt: string;
  @Prop.list(ElaborationQuestionDto) questions: ElaborationQuestionDto[];
}

export class ElaborationSummaryDto {
  @Prop.integer() totalQuestions: number;
  @Prop.integer() answeredQuestions: number;
  @Prop.string({ nullable: true }) pendingRoundUuid: string | null;
}

export class ElaborationStateDto {
  @Prop.string() ideaUuid: string;
  @Prop.string() ideaStatus: IdeaStatus;
  @Prop.string({ nullable: true }) depth: ElaborationDepth | null;
  @Prop.string({ nullable: true, description: "The idea's elaborationStatus" }) status: ElaborationStatus | null;
  @Prop.list(ElaborationRoundDto) rounds: ElaborationRoundDto[];
  @Prop.nested(ElaborationSummaryDto) summary: ElaborationSummaryDto;
}
