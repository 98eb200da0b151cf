import type { EntityManager } from 'typeorm';
import { PersonResolver } from '../../shared/database/person.js';
import type { ElaborationStateDto } from './dto/elaboration-record.dto.js';
import { ElaborationRepository } from './elaboration.repository.js';
import type { IdeaEntity, QuestionOption } from './idea.entity.js';
import { iso, isoOrNull } from './idea.records.js';

/** An idea's elaboration, defined once by its response DTO (dto/elaboration-record.dto.ts). */
export type ElaborationState = ElaborationStateDto;

const renderOptions = (options: QuestionOption[]): Array<{ id: string; label: string; description: string | null }> =>
  options.map((o) => ({ id: o.id, label: o.label, description: o.description ?? null }));

export async function elaborationState(em: EntityManager, idea: IdeaEntity): Promise<ElaborationState> {
  const elaboration = new ElaborationRepository(em);
  const rounds = await elaboration.roundsInOrder(idea.companyUuid, idea.uuid);
  const questions = rounds.length ? await elaboration.questionsOf(rounds.map((r) => r.uuid)) : [];
  const people = await PersonResolver.load(em, [
    ...rounds.map((r) => ({ type: r.createdByType, uuid: r.createdByUuid })),
    ...questions.map((q) => ({ type: q.answeredByType, uuid: q.answeredByUuid })),
  ]);
  const answered = questions.filter((q) => q.answeredAt !== null).length;
  return {
    ideaUuid: idea.uuid,
    ideaStatus: idea.status,
    depth: idea.elaborationDepth,
    status: idea.elaborationStatus,
    rounds: rounds.map((r) => ({
      uuid: r.uuid,
      roundNumber: r.roundNumber,
      status: r.status,
      depth: r.depth,
      isAppended: r.isAppended,
      createdBy: people.person({ type: r.createdByType, uuid: r.createdByUuid }),
      answeredAt: isoOrNull(r.answeredAt),
      createdAt: iso(r.createdAt),
      questions: questions
        .filter((q) => q.roundUuid === r.uuid)
        .map((q) => ({
          uuid: q.uuid,
          questionId: q.questionId,
          text: q.text,
          category: q.category,
          options: renderOptions(q.options),
          required: q.required,
          answer: q.answeredAt
            ? { selectedOptionId: q.selectedOptionId, customText: q.customText, answeredAt: iso(q.answeredAt), answeredBy: people.person({ type: q.answeredByType, uuid: q.answeredByUuid }) }
            : null,
        })),
    })),
    summary: {
      totalQuestions: questions.length,
      answeredQuestions: answered,
      pendingRoundUuid: rounds.find((r) => r.status === 'pending_answers')?.uuid ?? null,
    },
  };
}
