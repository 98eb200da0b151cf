import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { hasPermission, type Actor } from '../../shared/auth/actor.js';
import { ForbiddenError, InvalidStateError, NotFoundError, ValidationError } from '../../shared/errors/app-error.js';
import { TransactionRunner, type Tx } from '../../shared/database/transaction-runner.js';
import { checkAnswers, MAX_ROUNDS, skipReason, validateRound, type AnswerInput, type QuestionInput } from './domain/elaboration.rules.js';
import { matchesActor } from '../identity/index.js';
import { elaborationState, type ElaborationState } from './elaboration.records.js';
import { ElaborationRepository } from './elaboration.repository.js';
import type { ElaborationRoundEntity, IdeaEntity } from './idea.entity.js';
import { IdeaRepository } from './idea.repository.js';

/** Elaboration rounds of an idea (docs/domain.md §4.1): start, answer, validate (resolve), skip. */
@Injectable()
export class ElaborationService {
  constructor(
    private readonly db: DataSource,
    private readonly ideas: IdeaRepository,
    private readonly elaboration: ElaborationRepository,
    private readonly runner: TransactionRunner,
  ) {}

  async getState(actor: Actor, input: { ideaUuid: string }): Promise<ElaborationState> {
    const idea = await this.ideas.get(input.ideaUuid, actor.companyUuid);
    return elaborationState(this.db.manager, idea);
  }

  /** svc_pm_start_elaboration: a new round of questions; on an elaborated idea the round is appended. */
  async start(actor: Actor, input: { ideaUuid: string; depth: string; questions: QuestionInput[] }): Promise<ElaborationState> {
    const round = validateRound(input.depth, input.questions);
    return this.runner.run(actor, async (tx) => {
      const elaboration = this.elaboration.in(tx);
      const idea = await this.lockIdea(tx, input.ideaUuid);
      await this.requireElaborator(tx, idea);
      if (idea.status === 'open') throw new InvalidStateError('Idea is open; start elaboration requires elaborating or elaborated');
      const rounds = await elaboration.rounds(actor.companyUuid, idea.uuid);
      if (rounds.some((r) => r.status === 'pending_answers')) {
        throw new InvalidStateError('Idea has a round awaiting answers; start elaboration requires every round answered');
      }
      if (rounds.length >= MAX_ROUNDS) throw new ValidationError(`Maximum ${MAX_ROUNDS} elaboration rounds per idea`);
      const roundUuid = randomUUID();
      const roundNumber = Math.max(0, ...rounds.map((r) => r.roundNumber)) + 1;
      const isAppended = idea.status === 'elaborated';
      await elaboration.addRound({
        uuid: roundUuid,
        companyUuid: actor.companyUuid,
        ideaUuid: idea.uuid,
        roundNumber,
        status: 'pending_answers',
        depth: round.depth,
        isAppended,
        createdByType: actor.type,
        createdByUuid: actor.uuid,
        answeredAt: null,
      });
      await elaboration.addQuestions(round.questions.map((q, i) => ({ ...q, uuid: randomUUID(), roundUuid, sortOrder: i })));
      // An appended round leaves a resolved idea resolved (and its depth as it was).
      await this.touch(tx, idea, isAppended ? {} : { elaborationStatus: 'pending_answers', elaborationDepth: round.depth });
      tx.record('idea.elaboration_started', { projectUuid: idea.projectUuid, uuid: idea.uuid }, { roundUuid, roundNumber, depth: round.depth, questionCount: round.questions.length, isAppended });
      return this.state(tx, idea.uuid);
    });
  }

  /** svc_answer_elaboration: open to any caller; the round closes once every required question is answered. */
  async answer(actor: Actor, input: { ideaUuid: string; roundUuid?: string | null; answers: AnswerInput[] }): Promise<ElaborationState> {
    return this.runner.run(actor, async (tx) => {
      const elaboration = this.elaboration.in(tx);
      const idea = await this.lockIdea(tx, input.ideaUuid);
      let round: ElaborationRoundEntity | null;
      if (input.roundUuid) {
        round = await elaboration.lockRound(actor.companyUuid, idea.uuid, input.roundUuid);
        if (!round) throw new NotFoundError('Round');
      } else {
        round = await elaboration.lockPendingRound(actor.companyUuid, idea.uuid);
      }
      if (idea.status === 'open') throw new InvalidStateError('Idea is open; answer requires elaborating or elaborated');
      if (!round) throw new InvalidStateError('Idea has no round in pending_answers; answer requires a pending round');
      if (round.status !== 'pending_answers') throw new InvalidStateError(`Round is ${round.status}; answer requires pending_answers`);

      const questions = await elaboration.questions(round.uuid);
      const answers = checkAnswers(questions, input.answers);
      const now = new Date();
      for (const a of answers) {
        await elaboration.answer(a.question.uuid, {
          selectedOptionId: a.selectedOptionId,
          customText: a.customText,
          answeredAt: now,
          answeredByType: actor.type,
          answeredByUuid: actor.uuid,
        });
        a.question.answeredAt = now;
      }
      const complete = questions.filter((q) => q.required).every((q) => q.answeredAt !== null);
      if (complete) await elaboration.close(round.uuid, now);
      await this.touch(tx, idea, complete && idea.elaborationStatus !== 'resolved' ? { elaborationStatus: 'validating' } : {});
      tx.record('idea.elaboration_answered', { projectUuid: idea.projectUuid, uuid: idea.uuid }, { roundUuid: round.uuid, roundNumber: round.roundNumber, questionIds: answers.map((a) => a.question.questionId), roundAnswered: complete });
      return this.state(tx, idea.uuid);
    });
  }

  /** svc_pm_validate_elaboration / REST resolve (elaborating -> elaborated). */
  async validate(actor: Actor, input: { ideaUuid: string }): Promise<ElaborationState> {
    return this.runner.run(actor, async (tx) => {
      const idea = await this.lockIdea(tx, input.ideaUuid);
      if (idea.status !== 'elaborating') throw new InvalidStateError(`Idea is ${idea.status}; validate elaboration requires elaborating`);
      const rounds = await this.elaboration.in(tx).rounds(actor.companyUuid, idea.uuid);
      if (!rounds.length) throw new ValidationError('The idea has no elaboration rounds');
      const waiting = rounds.filter((r) => r.status === 'pending_answers').length;
      if (waiting) throw new ValidationError(`${waiting} round(s) still await answers`);
      await this.touch(tx, idea, { status: 'elaborated', elaborationStatus: 'resolved' });
      tx.record('idea.elaboration_resolved', { projectUuid: idea.projectUuid, uuid: idea.uuid }, { rounds: rounds.length });
      return this.state(tx, idea.uuid);
    });
  }

  /** REST name of validate. */
  resolve(actor: Actor, input: { ideaUuid: string }): Promise<ElaborationState> {
    return this.validate(actor, input);
  }

  /** svc_pm_skip_elaboration (elaborating -> elaborated) once a human agreed; depth minimal. */
  async skip(actor: Actor, input: { ideaUuid: string; reason: string }): Promise<ElaborationState> {
    const reason = skipReason(input.reason);
    return this.runner.run(actor, async (tx) => {
      const idea = await this.lockIdea(tx, input.ideaUuid);
      await this.requireElaborator(tx, idea);
      if (idea.status !== 'elaborating') throw new InvalidStateError(`Idea is ${idea.status}; skip elaboration requires elaborating`);
      await this.touch(tx, idea, { status: 'elaborated', elaborationDepth: 'minimal', elaborationStatus: 'resolved' });
      tx.record('idea.elaboration_skipped', { projectUuid: idea.projectUuid, uuid: idea.uuid }, { reason });
      return this.state(tx, idea.uuid);
    });
  }

  private lockIdea(tx: Tx, uuid: string): Promise<IdeaEntity> {
    return this.ideas.in(tx).lock(uuid, tx.actor.companyUuid);
  }

  /** The assignee, a holder of idea:admin, or any user may ask questions or skip. */
  private async requireElaborator(tx: Tx, idea: IdeaEntity): Promise<void> {
    const actor = tx.actor;
    if (actor.type === 'user' || hasPermission(actor, 'idea:admin')) return;
    if (await matchesActor(tx.manager, actor, { type: idea.assigneeType, uuid: idea.assigneeUuid })) return;
    throw new ForbiddenError('Only the assignee can elaborate this idea');
  }

  /** Every elaboration change is a write to the idea: its updatedAt moves and `idea updated` is published. */
  private async touch(tx: Tx, idea: IdeaEntity, changes: Partial<IdeaEntity>): Promise<void> {
    await this.ideas.in(tx).change(idea.uuid, tx.actor.companyUuid, { ...changes, updatedAt: () => 'now()' });
    tx.change('idea', idea.uuid, idea.projectUuid, 'updated');
  }

  private async state(tx: Tx, ideaUuid: string): Promise<ElaborationState> {
    const idea = await this.ideas.in(tx).get(ideaUuid, tx.actor.companyUuid);
    return elaborationState(tx.manager, idea);
  }
}
