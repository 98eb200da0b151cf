import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { ActivityService } from './activity.service.js';
import { CommentService } from './comment.service.js';
import {
  AddCommentDto,
  AddReferenceDto,
  ListActivityArgsDto,
  ListCommentsArgsDto,
  MentionablesArgsDto,
  ReferenceRefDto,
  SearchArgsDto,
  UpdateReferenceArgsDto,
} from './dto/collaboration.dto.js';
import { ActivityPageDto, CommentPageDto, MentionablePageDto, SearchPageDto } from './dto/collaboration-record.dto.js';
import { ReferenceService } from './reference.service.js';
import { SearchService } from './search.service.js';

/** Activity, comments, search and references (docs/tool-conventions.md §5.1, §5.2, §5.7): thin adapters over the collaboration services. */
@Injectable()
export class CollaborationTools {
  constructor(
    private readonly activity: ActivityService,
    private readonly comments: CommentService,
    private readonly search: SearchService,
    private readonly references: ReferenceService,
  ) {}

  @Tool({
    name: 'svc_get_activity',
    title: 'Get activity',
    hint: 'R',
    description: "Lists a project's activity, newest first, optionally for one target. Open a target with the matching svc_get_* tool.",
    input: ListActivityArgsDto,
    output: ActivityPageDto,
  })
  listActivity(args: ListActivityArgsDto, ctx: ToolContext) {
    return this.activity.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_comments',
    title: 'Get comments',
    hint: 'R',
    description: 'Lists the comments on an idea, proposal, task or document, oldest first. Reply with svc_add_comment.',
    input: ListCommentsArgsDto,
    output: CommentPageDto,
  })
  listComments(args: ListCommentsArgsDto, ctx: ToolContext) {
    return this.comments.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_search',
    title: 'Search',
    hint: 'R',
    description: 'Searches tasks, ideas, proposals, documents, projects and groups by text or uuid. Open a hit with the matching svc_get_* tool.',
    input: SearchArgsDto,
    output: SearchPageDto,
  })
  searchAll(args: SearchArgsDto, ctx: ToolContext) {
    return this.search.search(ctx.actor, args);
  }

  @Tool({
    name: 'svc_search_mentionables',
    title: 'Search mentionables',
    hint: 'R',
    description: 'Finds users and agents you can mention as @[Name](user:<uuid>) or @[Name](agent:<uuid>). Use the markup in svc_add_comment.',
    input: MentionablesArgsDto,
    output: MentionablePageDto,
  })
  searchMentionables(args: MentionablesArgsDto, ctx: ToolContext) {
    return this.search.mentionables(ctx.actor, args);
  }

  @Tool({
    name: 'svc_add_comment',
    title: 'Add comment',
    hint: 'W',
    description: 'Adds a comment to an idea, proposal, task or document, notifying anyone it mentions. Read the thread with svc_get_comments.',
    input: AddCommentDto,
  })
  addComment(args: AddCommentDto, ctx: ToolContext) {
    return this.comments.add(ctx.actor, args);
  }

  @Tool({
    name: 'svc_add_reference',
    permission: 'document:write',
    title: 'Add reference',
    hint: 'W',
    description: 'Attaches an external link to an idea, proposal or task; the link is never fetched. Change it with svc_update_reference.',
    input: AddReferenceDto,
  })
  addReference(args: AddReferenceDto, ctx: ToolContext) {
    return this.references.add(ctx.actor, args);
  }

  @Tool({
    name: 'svc_update_reference',
    permission: 'document:write',
    title: 'Update reference',
    hint: 'WI',
    description: "Changes a reference's type, URL, title or notes. Delete it with svc_remove_reference.",
    input: UpdateReferenceArgsDto,
  })
  updateReference(args: UpdateReferenceArgsDto, ctx: ToolContext) {
    return this.references.update(ctx.actor, args);
  }

  @Tool({
    name: 'svc_remove_reference',
    permission: 'document:write',
    title: 'Remove reference',
    hint: 'D',
    description: 'Deletes a reference. Attach another with svc_add_reference.',
    input: ReferenceRefDto,
  })
  removeReference(args: ReferenceRefDto, ctx: ToolContext) {
    return this.references.remove(ctx.actor, args);
  }
}
