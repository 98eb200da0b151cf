import type { EntityManager } from 'typeorm';
import { PersonResolver, type Person } from '../../shared/database/person.js';
import { ElaborationRepository } from './elaboration.repository.js';
import type { ElaborationDepth, ElaborationStatus, IdeaEntity, IdeaStatus, QuestionOption } from './idea.entity.js';
import { iso, isoOrNull } from './idea.records.js';

/** ElaborationState of tools.md §5.9. */
export interface ElaborationState {
  ideaUuid: string;
  ideaStatus: IdeaStatus;
  depth: ElaborationDepth | null;
  status: ElaborationStatus | null;
  rounds: Array<{
    uuid: string;
    roundNumber: number;
    status: 'pending_answers' | 'answered';
    depth: ElaborationDepth;
    isAppended: boolean;
    createdBy: Person | null;
    answeredAt: string | null;
    createdAt: string;
    questions: Array<{
      uuid: string;
      questionId: string;
      text: string;
      category: string;
      options: Array<{ id: string; label: string; description: string | null }>;
      required: boolean;
      answer: { selectedOptionId: string | null; customText: string | null; answeredAt: string; answeredBy: Person | null } | null;
    }>;
  }>;
  summary: { totalQuestions: number; answeredQuestions: number; pendingRoundUuid: string | null };
}

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
