import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { Repository } from '../../shared/database/repository.js';
import { ElaborationQuestionEntity, ElaborationRoundEntity } from './idea.entity.js';

/**
 * The `elaboration_round` and `elaboration_question` tables of an idea (README "Table ownership": ideas own them).
 * Rounds are scoped by company and idea; questions by their round.
 */
export class ElaborationRepository extends Repository {
  /** The idea's rounds, in no particular order. */
  rounds(companyUuid: string, ideaUuid: string): Promise<ElaborationRoundEntity[]> {
    return this.em.find(ElaborationRoundEntity, { where: { ideaUuid, companyUuid } });
  }

  /** The idea's rounds by number. */
  roundsInOrder(companyUuid: string, ideaUuid: string): Promise<ElaborationRoundEntity[]> {
    return this.em.find(ElaborationRoundEntity, { where: { ideaUuid, companyUuid }, order: { roundNumber: 'ASC' } });
  }

  /** One round of the idea, locked FOR UPDATE; null when it has no such round. */
  lockRound(companyUuid: string, ideaUuid: string, roundUuid: string): Promise<ElaborationRoundEntity | null> {
    return this.em.findOne(ElaborationRoundEntity, { where: { uuid: roundUuid, ideaUuid, companyUuid }, lock: { mode: 'pessimistic_write' } });
  }

  /** The idea's round awaiting answers, locked FOR UPDATE; null when there is none. */
  lockPendingRound(companyUuid: string, ideaUuid: string): Promise<ElaborationRoundEntity | null> {
    return this.em.findOne(ElaborationRoundEntity, { where: { ideaUuid, companyUuid, status: 'pending_answers' }, lock: { mode: 'pessimistic_write' } });
  }

  /** A round's questions in their order. */
  questions(roundUuid: string): Promise<ElaborationQuestionEntity[]> {
    return this.em.find(ElaborationQuestionEntity, { where: { roundUuid }, order: { sortOrder: 'ASC' } });
  }

  /** The questions of several rounds, each round's in order. */
  questionsOf(roundUuids: string[]): Promise<ElaborationQuestionEntity[]> {
    return this.em
      .createQueryBuilder(ElaborationQuestionEntity, 'q')
      .where('q.roundUuid IN (:...rounds)', { rounds: roundUuids })
      .orderBy('q.sortOrder', 'ASC')
      .addOrderBy('q.uuid', 'ASC')
      .getMany();
  }

  async addRound(round: Omit<ElaborationRoundEntity, 'createdAt' | 'updatedAt'>): Promise<void> {
    await this.em.insert(ElaborationRoundEntity, round);
  }

  async addQuestions(questions: Array<QueryDeepPartialEntity<ElaborationQuestionEntity>>): Promise<void> {
    await this.em.insert(ElaborationQuestionEntity, questions);
  }

  async answer(questionUuid: string, answer: Pick<ElaborationQuestionEntity, 'selectedOptionId' | 'customText' | 'answeredAt' | 'answeredByType' | 'answeredByUuid'>): Promise<void> {
    await this.em.update(ElaborationQuestionEntity, { uuid: questionUuid }, answer);
  }

  /** Marks the round answered. */
  async close(roundUuid: string, answeredAt: Date): Promise<void> {
    await this.em.update(ElaborationRoundEntity, { uuid: roundUuid }, { status: 'answered', answeredAt });
  }
}
