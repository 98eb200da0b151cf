import { Module } from '@nestjs/common';
import { DocumentController } from './document.controller.js';
import { DocumentService } from './document.service.js';
import { DocumentTools } from './document.tools.js';

@Module({ controllers: [DocumentController], providers: [DocumentService, DocumentTools], exports: [DocumentService] })
export class DocumentsModule {}
