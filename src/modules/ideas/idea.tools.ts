import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { ElaborationStateDto } from './dto/elaboration-record.dto.js';
import { IdeaPageDto, IdeaRecordDto } from './dto/idea-record.dto.js';
import { AnswerElaborationArgsDto, SkipElaborationArgsDto, StartElaborationArgsDto } from './dto/elaboration.dto.js';
import { AvailableIdeasArgsDto, CreateIdeaArgsDto, EditIdeaArgsDto, IdeaRefDto, ListIdeasArgsDto, MoveIdeaArgsDto } from './dto/idea.dto.js';
import { ElaborationService } from './elaboration.service.js';
import { IdeaService } from './idea.service.js';

/** Ideas and their elaboration (docs/tool-conventions.md §5.1, §5.2, §5.5, §5.8): thin adapters over IdeaService and ElaborationService. */
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
    input: ListIdeasArgsDto,
    output: IdeaPageDto,
  })
  listIdeas(args: ListIdeasArgsDto, ctx: ToolContext) {
    return this.ideas.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_idea',
    title: 'Get idea',
    hint: 'R',
    description: 'Returns one idea with its lineage, proposals, reports and references. Claim it with svc_claim_idea while it is open.',
    input: IdeaRefDto,
    output: IdeaRecordDto,
  })
  getIdea(args: IdeaRefDto, ctx: ToolContext) {
    return this.ideas.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_available_ideas',
    title: 'List available ideas',
    hint: 'R',
    description: "Lists a project's open, unassigned ideas. Claim one with svc_claim_idea (open -> elaborating).",
    input: AvailableIdeasArgsDto,
    output: IdeaPageDto,
  })
  availableIdeas(args: AvailableIdeasArgsDto, ctx: ToolContext) {
    return this.ideas.listAvailable(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_elaboration',
    title: 'Get elaboration',
    hint: 'R',
    description: "Returns an idea's elaboration rounds with questions and answers. Answer open questions with svc_answer_elaboration.",
    input: IdeaRefDto,
    output: ElaborationStateDto,
  })
  getElaboration(args: IdeaRefDto, ctx: ToolContext) {
    return this.elaboration.getState(ctx.actor, args);
  }

  @Tool({
    name: 'svc_answer_elaboration',
    title: 'Answer elaboration',
    hint: 'W',
    description:
      "Answers questions of an idea's pending elaboration round, which closes once every required question is answered (pending_answers -> answered). An admin or a human then resolves the idea (svc_pm_validate_elaboration needs idea:admin).",
    input: AnswerElaborationArgsDto,
  })
  answerElaboration(args: AnswerElaborationArgsDto, ctx: ToolContext) {
    return this.elaboration.answer(ctx.actor, args);
  }

  @Tool({
    name: 'svc_claim_idea',
    permission: 'idea:write',
    title: 'Claim idea',
    hint: 'WI',
    description: 'Claims an open idea for yourself (open -> elaborating). Clarify it with svc_pm_start_elaboration or svc_pm_skip_elaboration.',
    input: IdeaRefDto,
  })
  claimIdea(args: IdeaRefDto, ctx: ToolContext) {
    return this.ideas.claim(ctx.actor, args);
  }

  @Tool({
    name: 'svc_release_idea',
    permission: 'idea:write',
    title: 'Release idea',
    hint: 'W',
    description: 'Gives back an idea you are elaborating (elaborating -> open). Find another with svc_get_available_ideas.',
    input: IdeaRefDto,
  })
  releaseIdea(args: IdeaRefDto, ctx: ToolContext) {
    return this.ideas.release(ctx.actor, args);
  }

  @Tool({
    name: 'svc_move_idea',
    permission: 'idea:write',
    title: 'Move idea',
    hint: 'W',
    description: 'Moves an idea, its descendants and the proposals, tasks and documents built on them to another project. Check the result with svc_get_idea.',
    input: MoveIdeaArgsDto,
  })
  moveIdea(args: MoveIdeaArgsDto, ctx: ToolContext) {
    return this.ideas.move(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_create_idea',
    permission: 'idea:write',
    title: 'Create idea',
    hint: 'W',
    description: 'Creates an idea in a project (-> open), optionally as a theme or as a child of another idea. Claim it with svc_claim_idea.',
    input: CreateIdeaArgsDto,
  })
  createIdea(args: CreateIdeaArgsDto, ctx: ToolContext) {
    return this.ideas.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_edit_idea',
    permission: 'idea:write',
    title: 'Edit idea',
    hint: 'WI',
    description: "Edits an idea's title, content, theme flag or parent. Read it back with svc_get_idea.",
    input: EditIdeaArgsDto,
  })
  editIdea(args: EditIdeaArgsDto, ctx: ToolContext) {
    return this.ideas.edit(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_start_elaboration',
    permission: 'idea:write',
    title: 'Start elaboration',
    hint: 'W',
    description:
      'Asks humans a round of multiple-choice questions about an idea you are elaborating, including decisions already made elsewhere so they are recorded. Wait for svc_answer_elaboration; an admin or a human then resolves the idea.',
    input: StartElaborationArgsDto,
  })
  startElaboration(args: StartElaborationArgsDto, ctx: ToolContext) {
    return this.elaboration.start(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_skip_elaboration',
    permission: 'idea:write',
    title: 'Skip elaboration',
    hint: 'W',
    description: 'Marks an idea clear enough without questions once a human has agreed (elaborating -> elaborated). Then create a proposal with svc_pm_create_proposal.',
    input: SkipElaborationArgsDto,
  })
  skipElaboration(args: SkipElaborationArgsDto, ctx: ToolContext) {
    return this.elaboration.skip(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_validate_elaboration',
    permission: 'idea:admin',
    title: 'Validate elaboration',
    hint: 'W',
    description:
      'Resolves an idea whose elaboration rounds are all answered, after a human confirms (elaborating -> elaborated). Then create a proposal with svc_pm_create_proposal.',
    input: IdeaRefDto,
  })
  validateElaboration(args: IdeaRefDto, ctx: ToolContext) {
    return this.elaboration.validate(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_delete_idea',
    permission: 'idea:admin',
    title: 'Delete idea',
    hint: 'D',
    description: 'Deletes an idea and makes its children top-level ideas. Prefer svc_release_idea when the idea is still wanted.',
    input: IdeaRefDto,
  })
  deleteIdea(args: IdeaRefDto, ctx: ToolContext) {
    return this.ideas.delete(ctx.actor, args);
  }
}
