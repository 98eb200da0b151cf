import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { Tool, documentDraftType, documentType, longText, paging, title, uuid, type ToolContext } from '../tools/index.js';
import { DocumentService } from './document.service.js';

/** MCP tools of tools.md §5.1 (document reads), §5.7 (document:write) and §5.8 (document:admin). */
const documentUuid = uuid('The document');
const ref = z.strictObject({ documentUuid });

const list = z.strictObject({
  projectUuid: uuid('The project'),
  type: documentType.optional().describe('Only documents of this type'),
  ...paging,
});
const create = z.strictObject({
  projectUuid: uuid('The project the document belongs to'),
  type: documentDraftType.describe('Document type (reports are written with svc_create_report)'),
  title: title('Document title, 1-200 characters'),
  content: longText('Markdown content, at most 100000 characters (default empty)').optional(),
  proposalUuid: uuid('A proposal of the same project to link the document to').optional(),
});
const update = z.strictObject({
  documentUuid,
  title: title('New title, 1-200 characters').optional(),
  content: longText('New markdown content, at most 100000 characters').optional(),
});
const report = z.strictObject({
  proposalUuid: uuid('The approved proposal the report is about'),
  title: title('Report title, 1-200 characters'),
  content: z.string().min(1).max(100_000).describe('Markdown, 1-100000 characters; expected sections Summary, Decisions, Follow-ups'),
  force: z.boolean().optional().describe('Add another report when one already exists (default false)'),
});

@Injectable()
export class DocumentTools {
  constructor(private readonly documents: DocumentService) {}

  @Tool({
    name: 'svc_get_documents',
    title: 'List documents',
    hint: 'R',
    description: "Lists a project's documents without content, optionally by type. Read one with svc_get_document.",
    input: list,
  })
  getDocuments(args: z.infer<typeof list>, ctx: ToolContext) {
    return this.documents.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_document',
    title: 'Get document',
    hint: 'R',
    description: 'Returns one document with its content. Change it with svc_pm_update_document.',
    input: ref,
  })
  getDocument(args: z.infer<typeof ref>, ctx: ToolContext) {
    return this.documents.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_create_document',
    permission: 'document:write',
    title: 'Create document',
    hint: 'W',
    description: 'Creates a document in a project, optionally linked to a proposal. Change it with svc_pm_update_document.',
    input: create,
  })
  createDocument(args: z.infer<typeof create>, ctx: ToolContext) {
    return this.documents.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_update_document',
    permission: 'document:write',
    title: 'Update document',
    hint: 'W',
    description: "Changes a document's title or content and raises its version. Read it with svc_get_document.",
    input: update,
  })
  updateDocument(args: z.infer<typeof update>, ctx: ToolContext) {
    return this.documents.update(ctx.actor, args);
  }

  @Tool({
    name: 'svc_create_report',
    permission: 'document:write',
    title: 'Create report',
    hint: 'W',
    description: 'Writes the completion report of an approved proposal as a report document. Read it back with svc_get_document.',
    input: report,
  })
  createReport(args: z.infer<typeof report>, ctx: ToolContext) {
    return this.documents.createReport(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_delete_document',
    permission: 'document:admin',
    title: 'Delete document',
    hint: 'D',
    description: 'Deletes a document and its comments. Prefer svc_pm_update_document for corrections.',
    input: ref,
  })
  deleteDocument(args: z.infer<typeof ref>, ctx: ToolContext) {
    return this.documents.delete(ctx.actor, args);
  }
}
