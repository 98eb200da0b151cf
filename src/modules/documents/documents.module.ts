import { Module } from '@nestjs/common';
import { DocumentService } from './document.service.js';

@Module({ providers: [DocumentService], exports: [DocumentService] })
export class DocumentsModule {}
