import { Body, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCookieAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Actor } from '../../shared/auth/actor.js';
import { CurrentActor } from '../../shared/auth/decorators.js';
import { ApiRoute } from '../../shared/http/api-docs.js';
import { restPaging } from '../../shared/validation/rest-paging.js';
import { UuidParamPipe } from '../../shared/validation/uuid-param.pipe.js';
import { DocumentService } from './document.service.js';
import { CreateDocumentDto, CreateReportDto, ListDocumentsQuery, UpdateDocumentDto } from './dto/document.dto.js';
import { ApiController } from '../../shared/http/api-controller.decorator.js';
import { DocumentPageDto, DocumentRecordDto } from './dto/document-record.dto.js';
import { DeletedDto } from '../../shared/validation/response-fields.js';

const PROJECT = new UuidParamPipe('Project');
const DOCUMENT = new UuidParamPipe('Document');

/** Documents for the web client (docs/platform.md §9), and a proposal's completion report, which is a document. */
@ApiTags('documents')
@ApiCookieAuth('session')
@ApiController('api')
export class DocumentController {
  constructor(private readonly documents: DocumentService) {}

  @Get('projects/:uuid/documents')
  @ApiRoute({
    answer: DocumentPageDto,
    summary: 'List the documents of a project, recently updated first (svc_get_documents)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  list(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Query() q: ListDocumentsQuery) {
    return this.documents.list(actor, { projectUuid, type: q.type, ...restPaging(q) });
  }

  @Post('projects/:uuid/documents')
  @ApiRoute({ answer: DocumentRecordDto, summary: 'Create a document, version 1 (svc_pm_create_document)', errors: ['VALIDATION_ERROR', 'NOT_FOUND'], created: true })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Project' })
  create(@CurrentActor() actor: Actor, @Param('uuid', PROJECT) projectUuid: string, @Body() body: CreateDocumentDto) {
    return this.documents.create(actor, { ...body, projectUuid });
  }

  @Get('documents/:uuid')
  @ApiRoute({ answer: DocumentRecordDto, summary: 'Get a document with its content (svc_get_document)', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Document' })
  get(@CurrentActor() actor: Actor, @Param('uuid', DOCUMENT) documentUuid: string) {
    return this.documents.get(actor, { documentUuid });
  }

  @Patch('documents/:uuid')
  @ApiRoute({ answer: DocumentRecordDto, summary: 'Edit the title or content; a real change raises the version (svc_pm_update_document)', errors: ['VALIDATION_ERROR', 'NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Document' })
  update(@CurrentActor() actor: Actor, @Param('uuid', DOCUMENT) documentUuid: string, @Body() body: UpdateDocumentDto) {
    return this.documents.update(actor, { ...body, documentUuid });
  }

  @Delete('documents/:uuid')
  @ApiRoute({ answer: DeletedDto, summary: 'Delete a document and its comments (svc_admin_delete_document)', errors: ['NOT_FOUND'] })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Document' })
  delete(@CurrentActor() actor: Actor, @Param('uuid', DOCUMENT) documentUuid: string) {
    return this.documents.delete(actor, { documentUuid });
  }

  @Post('proposals/:uuid/reports')
  @ApiRoute({
    answer: DocumentRecordDto,
    summary: 'Write the completion report of an approved proposal; a second one needs force (svc_create_report)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE', 'CONFLICT'],
    created: true,
  })
  @ApiParam({ name: 'uuid', format: 'uuid', description: 'Proposal' })
  createReport(@CurrentActor() actor: Actor, @Param('uuid', new UuidParamPipe('Proposal')) proposalUuid: string, @Body() body: CreateReportDto) {
    return this.documents.createReport(actor, { ...body, proposalUuid });
  }
}
