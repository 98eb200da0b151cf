import { Module } from '@nestjs/common';
import { repositoryProvider } from '../../shared/database/repository.js';
import { DocumentController } from './document.controller.js';
import { DocumentRepository } from './document.repository.js';
import { DocumentService } from './document.service.js';
import { DocumentTools } from './document.tools.js';

@Module({ controllers: [DocumentController], providers: [repositoryProvider(DocumentRepository), DocumentService, DocumentTools], exports: [DocumentService] })
export class DocumentsModule {}
