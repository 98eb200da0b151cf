import { Injectable } from '@nestjs/common';
import { Tool, type ToolContext } from '../tool-kit/index.js';
import { DocumentPageDto, DocumentRecordDto } from './dto/document-record.dto.js';
import { DocumentService } from './document.service.js';
import { CreateDocumentArgsDto, CreateReportArgsDto, DocumentRefDto, ListDocumentsArgsDto, UpdateDocumentArgsDto } from './dto/document.dto.js';

/** MCP tools of docs/tool-conventions.md §5.1 (document reads), §5.7 (document:write) and §5.8 (document:admin). */
@Injectable()
export class DocumentTools {
  constructor(private readonly documents: DocumentService) {}

  @Tool({
    name: 'svc_get_documents',
    title: 'List documents',
    hint: 'R',
    description: "Lists a project's documents without content, optionally by type. Read one with svc_get_document.",
    input: ListDocumentsArgsDto,
    output: DocumentPageDto,
  })
  getDocuments(args: ListDocumentsArgsDto, ctx: ToolContext) {
    return this.documents.list(ctx.actor, args);
  }

  @Tool({
    name: 'svc_get_document',
    title: 'Get document',
    hint: 'R',
    description: 'Returns one document with its content. Change it with svc_pm_update_document.',
    input: DocumentRefDto,
    output: DocumentRecordDto,
  })
  getDocument(args: DocumentRefDto, ctx: ToolContext) {
    return this.documents.get(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_create_document',
    permission: 'document:write',
    title: 'Create document',
    hint: 'W',
    description: 'Creates a document in a project, optionally linked to a proposal. Change it with svc_pm_update_document.',
    input: CreateDocumentArgsDto,
  })
  createDocument(args: CreateDocumentArgsDto, ctx: ToolContext) {
    return this.documents.create(ctx.actor, args);
  }

  @Tool({
    name: 'svc_pm_update_document',
    permission: 'document:write',
    title: 'Update document',
    hint: 'W',
    description: "Changes a document's title or content and raises its version. Read it with svc_get_document.",
    input: UpdateDocumentArgsDto,
  })
  updateDocument(args: UpdateDocumentArgsDto, ctx: ToolContext) {
    return this.documents.update(ctx.actor, args);
  }

  @Tool({
    name: 'svc_create_report',
    permission: 'document:write',
    title: 'Create report',
    hint: 'W',
    description: 'Writes the completion report of an approved proposal as a report document. Read it back with svc_get_document.',
    input: CreateReportArgsDto,
  })
  createReport(args: CreateReportArgsDto, ctx: ToolContext) {
    return this.documents.createReport(ctx.actor, args);
  }

  @Tool({
    name: 'svc_admin_delete_document',
    permission: 'document:admin',
    title: 'Delete document',
    hint: 'D',
    description: 'Deletes a document and its comments. Prefer svc_pm_update_document for corrections.',
    input: DocumentRefDto,
  })
  deleteDocument(args: DocumentRefDto, ctx: ToolContext) {
    return this.documents.delete(ctx.actor, args);
  }
}
