import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { paging, referenceType, referenceTargetType, targetType, title, Tool, uuid, type ToolContext } from '../tools/index.js';
import { ActivityService, type ListActivityInput } from './activity.service.js';
import { CommentService, MAX_COMMENT_LENGTH, type AddCommentInput, type ListCommentsInput } from './comment.service.js';
import { ReferenceService, type AddReferenceInput, type UpdateReferenceInput } from './reference.service.js';
import { SEARCH_ENTITY_TYPES, SearchService, type SearchEntityType, type SearchInput } from './search.service.js';

const url = z.string().max(2048).describe('http:// or https:// URL, at most 2048 characters; never fetched');
const notes = z.string().max(500).describe('Notes, at most 500 characters');
const referenceUuid = z.strictObject({ referenceUuid: uuid('Reference uuid') });

/** Activity, comments, search and references (tools.md §5.1, §5.2, §5.7): thin adapters over the collaboration services. */
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
    input: z
      .strictObject({
        projectUuid: uuid('Project uuid'),
        targetType: targetType.optional().describe('Only activity on targets of this type'),
        targetUuid: uuid('Only activity on this target; requires targetType').optional(),
        ...paging,
      })
      .superRefine((v, ctx) => {
        if (v.targetUuid !== undefined && v.targetType === undefined) ctx.addIssue({ code: 'custom', path: ['targetUuid'], message: 'requires targetType' });
      }),
  })
  listActivity(args: ListActivityInput, ctx: ToolContext) {
    return this.activity.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_comments',
    title: 'Get comments',
    hint: 'R',
    description: 'Lists the comments on an idea, proposal, task or document, oldest first. Reply with svc_add_comment.',
    input: z.strictObject({ targetType: targetType.describe('Kind of the commented record'), targetUuid: uuid('Commented record uuid'), ...paging }),
  })
  listComments(args: ListCommentsInput, ctx: ToolContext) {
    return this.comments.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_search',
    title: 'Search',
    hint: 'R',
    description: 'Searches tasks, ideas, proposals, documents, projects and groups by text or uuid. Open a hit with the matching svc_get_* tool.',
    input: z.strictObject({
      query: z.string().min(1).max(200).describe('Text (case-insensitive, in titles and texts) or an exact uuid, 1-200 characters'),
      scope: z.enum(['global', 'group', 'project']).optional().describe('Where to search (default global)'),
      scopeUuid: uuid('The group or project searched; required unless scope is global').optional(),
      entityTypes: z
        .array(z.enum(SEARCH_ENTITY_TYPES as [SearchEntityType, ...SearchEntityType[]]))
        .max(SEARCH_ENTITY_TYPES.length)
        .optional()
        .describe('Only these kinds of records (default all)'),
      ...paging,
    }),
  })
  searchAll(args: SearchInput, ctx: ToolContext) {
    return this.search.search(ctx.actor, args);
  }

  @Tool({
    name: 'svc_search_mentionables',
    title: 'Search mentionables',
    hint: 'R',
    description: 'Finds users and agents you can mention as @[Name](user:<uuid>) or @[Name](agent:<uuid>). Use the markup in svc_add_comment.',
    input: z.strictObject({ query: z.string().max(100).optional().describe('Part of a name or email, at most 100 characters (default: everyone)'), ...paging }),
  })
  searchMentionables(args: { query?: string; page?: number; pageSize?: number }, ctx: ToolContext) {
    return this.search.mentionables(ctx.actor, args);
  }

  @Tool({
    name: 'svc_add_comment',
    title: 'Add comment',
    hint: 'W',
    description: 'Adds a comment to an idea, proposal, task or document, notifying anyone it mentions. Read the thread with svc_get_comments.',
    input: z.strictObject({
      targetType: targetType.describe('Kind of the commented record'),
      targetUuid: uuid('Commented record uuid'),
      content: z
        .string()
        .min(1)
        .max(MAX_COMMENT_LENGTH)
        .describe('Comment text (markdown), 1-20000 characters; @[Name](user:<uuid>) or @[Name](agent:<uuid>) mentions notify'),
    }),
  })
  addComment(args: AddCommentInput, ctx: ToolContext) {
    return this.comments.add(ctx.actor, args);
  }

  @Tool({
    name: 'svc_add_reference',
    permission: 'document:write',
    title: 'Add reference',
    hint: 'W',
    description: 'Attaches an external link to an idea, proposal or task; the link is never fetched. Change it with svc_update_reference.',
    input: z.strictObject({
      targetType: referenceTargetType.describe('Kind of the record the link is attached to'),
      targetUuid: uuid('Record uuid'),
      type: referenceType.describe('Kind of link'),
      url,
      title: title('Link title, 1-200 characters'),
      notes: notes.optional(),
    }),
  })
  addReference(args: AddReferenceInput, ctx: ToolContext) {
    return this.references.add(ctx.actor, args);
  }

  @Tool({
    name: 'svc_update_reference',
    permission: 'document:write',
    title: 'Update reference',
    hint: 'WI',
    description: "Changes a reference's type, URL, title or notes. Delete it with svc_remove_reference.",
    input: z.strictObject({
      referenceUuid: uuid('Reference uuid'),
      type: referenceType.optional().describe('Kind of link'),
      url: url.optional(),
      title: title('Link title, 1-200 characters').optional(),
      notes: notes.nullable().optional().describe('Notes, at most 500 characters; null clears them'),
    }),
  })
  updateReference(args: UpdateReferenceInput, ctx: ToolContext) {
    return this.references.update(ctx.actor, args);
  }

  @Tool({
    name: 'svc_remove_reference',
    permission: 'document:write',
    title: 'Remove reference',
    hint: 'D',
    description: 'Deletes a reference. Attach another with svc_add_reference.',
    input: referenceUuid,
  })
  removeReference(args: { referenceUuid: string }, ctx: ToolContext) {
    return this.references.remove(ctx.actor, args);
  }
}
