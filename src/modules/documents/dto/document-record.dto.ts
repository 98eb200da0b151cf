import { PersonDto } from '../../../shared/validation/person.dto.js';
import { PageOf, Prop } from '../../../shared/validation/response-fields.js';

// The answers of the documents module: DocumentSummary and DocumentRecord (document.records.ts names them).

export class DocumentSummaryDto {
  @Prop.string() uuid: string;
  @Prop.string() projectUuid: string;
  @Prop.string() type: string;
  @Prop.string() title: string;
  @Prop.integer({ description: 'Starts at 1; every real edit raises it' }) version: number;
  @Prop.string({ nullable: true }) proposalUuid: string | null;
  @Prop.nested(PersonDto, { nullable: true }) createdBy: PersonDto | null;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class DocumentRecordDto extends DocumentSummaryDto {
  @Prop.string() content: string;
}

export class DocumentPageDto extends PageOf('documents', DocumentSummaryDto) {}
