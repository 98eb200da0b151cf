import { Module } from '@nestjs/common';
import { DocumentService } from './document.service.js';
import { DocumentTools } from './document.tools.js';

@Module({ providers: [DocumentService, DocumentTools], exports: [DocumentService] })
export class DocumentsModule {}
