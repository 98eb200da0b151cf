import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { longText, paging, references, title, Tool, uuid, type ToolContext } from '../tools/index.js';
import { ELABORATION_DEPTHS, QUESTION_CATEGORIES } from './domain/elaboration-input.js';
import { IDEA_STATUSES } from './domain/idea-input.js';
import { ElaborationService } from './elaboration.service.js';
import { IdeaService, type CreateIdeaInput, type EditIdeaInput } from './idea.service.js';
import type { IdeaStatus } from './idea.entity.js';
import type { AnswerInput, QuestionInput } from './domain/elaboration-input.js';

const ideaUuid = uuid('Idea uuid');
const byIdea = z.strictObject({ ideaUuid });
const content = longText('Idea content (markdown, may @mention), at most 100000 characters');

const optionId = z.string().min(1).max(50);
const question = z.strictObject({
  id: optionId.describe('Question id, unique in the round, 1-50 characters (stored as questionId)'),
  text: z.string().min(1).max(2000).describe('The question, 1-2000 characters'),
  category: z.enum(QUESTION_CATEGORIES).describe('Question category'),
  options: z
    .array(
      z.strictObject({
        id: optionId.describe('Option id, unique in the question, 1-50 characters'),
        label: title('Option label, 1-200 characters'),
        description: z.string().max(2000).optional().describe('What choosing this option means, at most 2000 characters'),
      }),
    )
    .min(2)
    .max(5)
    .describe('2-5 choices; answers may also use customText'),
  required: z.boolean().optional().describe('Must be answered before the round closes (default true)'),
});

const answer = z.strictObject({
  questionId: z.string().max(50).describe('The questionId of a question of the round'),
  selectedOptionId: z.string().max(50).nullable().optional().describe('Id of the chosen option, or null'),
  customText: z.string().max(5000).nullable().optional().describe('Free-text answer, at most 5000 characters, or null'),
});

type Paged = { page?: number; pageSize?: number };

/** Ideas and their elaboration (tools.md §5.1, §5.2, §5.5, §5.8): thin adapters over IdeaService and ElaborationService. */
@Injectable()
export class IdeaTools {
  constructor(
    private readonly ideas: IdeaService,
    private readonly elaboration: ElaborationService,
  ) {}

  @Tool({
    name: 'svc_get_ideas',
    title: 'List ideas',
    hint: 'R',
    description: "Lists a project's ideas, optionally by status. Open one with svc_get_idea.",
    input: z.strictObject({
      projectUuid: uuid('Project uuid'),
      status: z.enum(IDEA_STATUSES as [IdeaStatus, ...IdeaStatus[]]).optional().describe('Only ideas in this status'),
      ...paging,
    }),
  })
  listIdeas(args: { projectUuid: string; status?: IdeaStatus } & Paged, ctx: ToolContext) {
    return this.ideas.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_idea',
    title: 'Get idea',
    hint: 'R',
    description: 'Returns one idea with its lineage, proposals, reports and references. Claim it with svc_claim_idea while it is open.',
    input: byIdea,
  })
  getIdea(args: { ideaUuid: string }, ctx: ToolContext) {
    return this.ideas.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_available_ideas',
    title: 'List available ideas',
    hint: 'R',
    description: "Lists a project's open, unassigned ideas. Claim one with svc_claim_idea (open -> elaborating).",
    input: z.strictObject({ projectUuid: uuid('Project uuid'), ...paging }),
  })
  availableIdeas(args: { projectUuid: string } & Paged, ctx: ToolContext) {
    return this.ideas.listAvailable(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_elaboration',
    title: 'Get elaboration',
    hint: 'R',
    description: "Returns an idea's elaboration rounds with questions and answers. Answer open questions with svc_answer_elaboration.",
    input: byIdea,
  })
  getElaboration(args: { ideaUuid: string }, ctx: ToolContext) {
    return this.elaboration.getState(ctx.actor, args);
  }

  @Tool({
    name: 'svc_answer_elaboration',
    title: 'Answer elaboration',
    hint: 'W',
    description:
      "Answers questions of an idea's pending elaboration round, which closes once every required question is answered (pending_answers -> answered). The idea is then resolved with svc_pm_validate_elaboration.",
    input: z.strictObject({
      ideaUuid,
      roundUuid: uuid('Round to answer (default: the round awaiting answers)').optional(),
      answers: z.array(answer).min(1).max(15).describe('1-15 answers; each needs an option or a non-empty customText'),
    }),
  })
  answerElaboration(args: { ideaUuid: string; roundUuid?: string; answers: AnswerInput[] }, ctx: ToolContext) {
    return this.elaboration.answer(ctx.actor, args);
  }

  @Tool({
    name: 'svc_claim_idea',
    permission: 'idea:write',
    title: 'Claim idea',
    hint: 'WI',
    description: 'Claims an open idea for yourself (open -> elaborating). Clarify it with svc_pm_start_elaboration or svc_pm_skip_elaboration.',
    input: byIdea,
  })
  claimIdea(args: { ideaUuid: string }, ctx: ToolContext) {
    return this.ideas.claim(ctx.actor, args);
  }

  @Tool({
    name: 'svc_release_idea',
    permission: 'idea:write',
    title: 'Release idea',
    hint: 'W',
    description: 'Gives back an idea you are elaborating (elaborating -> open). Find another with svc_get_available_ideas.',
    input: byIdea,
  })
  releaseIdea(args: { ideaUuid: string }, ctx: ToolContext) {
    return this.ideas.release(ctx.actor, args);
  }

  @Tool({
    name: 'svc_move_idea',
    permission: 'idea:write',
    title: 'Move idea',
    hint: 'W',
    description: 'Moves an idea, its descendants and the proposals, tasks and documents built on them to another project. Check the result with svc_get_idea.',
    input: z.strictObject({ ideaUuid, targetProjectUuid: uuid('Project to move the idea to') }),
  })
  moveIdea(args: { ideaUuid: string; targetProjectUuid: string }, ctx: ToolContext) {
    return this.ideas.move(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_create_idea',
    permission: 'idea:write',
    title: 'Create idea',
    hint: 'W',
    description: 'Creates an idea in a project (-> open), optionally as a theme or as a child of another idea. Claim it with svc_claim_idea.',
    input: z.strictObject({
      projectUuid: uuid('Project uuid'),
      title: title('Idea title, 1-200 characters'),
      content: content.optional(),
      parentUuid: uuid('Parent idea in the same project').optional(),
      isContainer: z.boolean().optional().describe('A theme grouping child ideas; themes cannot be proposal inputs (default false)'),
      references,
    }),
  })
  createIdea(args: CreateIdeaInput, ctx: ToolContext) {
    return this.ideas.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_edit_idea',
    permission: 'idea:write',
    title: 'Edit idea',
    hint: 'WI',
    description: "Edits an idea's title, content, theme flag or parent. Read it back with svc_get_idea.",
    input: z.strictObject({
      ideaUuid,
      title: title('New title, 1-200 characters').optional(),
      content: content.optional(),
      parentUuid: uuid().nullable().optional().describe('New parent idea in the same project, or null to make it top-level'),
      isContainer: z.boolean().optional().describe('Theme flag'),
    }),
  })
  editIdea(args: EditIdeaInput, ctx: ToolContext) {
    return this.ideas.edit(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_start_elaboration',
    permission: 'idea:write',
    title: 'Start elaboration',
    hint: 'W',
    description:
      'Asks humans a round of multiple-choice questions about an idea you are elaborating, including decisions already made elsewhere so they are recorded. Wait for svc_answer_elaboration, then call svc_pm_validate_elaboration.',
    input: z.strictObject({
      ideaUuid,
      depth: z.enum(ELABORATION_DEPTHS as [string, ...string[]]).describe('How deep this round goes'),
      questions: z.array(question).min(1).max(15).describe('1-15 questions with unique ids'),
    }),
  })
  startElaboration(args: { ideaUuid: string; depth: string; questions: QuestionInput[] }, ctx: ToolContext) {
    return this.elaboration.start(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_skip_elaboration',
    permission: 'idea:write',
    title: 'Skip elaboration',
    hint: 'W',
    description: 'Marks an idea clear enough without questions once a human has agreed (elaborating -> elaborated). Then create a proposal with svc_pm_create_proposal.',
    input: z.strictObject({ ideaUuid, reason: z.string().min(1).max(2000).describe('Why no questions are needed and who agreed, 1-2000 characters') }),
  })
  skipElaboration(args: { ideaUuid: string; reason: string }, ctx: ToolContext) {
    return this.elaboration.skip(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_validate_elaboration',
    permission: 'idea:admin',
    title: 'Validate elaboration',
    hint: 'W',
    description:
      'Resolves an idea whose elaboration rounds are all answered, after a human confirms (elaborating -> elaborated). Then create a proposal with svc_pm_create_proposal.',
    input: byIdea,
  })
  validateElaboration(args: { ideaUuid: string }, ctx: ToolContext) {
    return this.elaboration.validate(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_delete_idea',
    permission: 'idea:admin',
    title: 'Delete idea',
    hint: 'D',
    description: 'Deletes an idea and makes its children top-level ideas. Prefer svc_release_idea when the idea is still wanted.',
    input: byIdea,
  })
  deleteIdea(args: { ideaUuid: string }, ctx: ToolContext) {
    return this.ideas.delete(ctx.actor, args);
  }
}
