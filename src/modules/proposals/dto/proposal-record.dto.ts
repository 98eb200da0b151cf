import { PersonDto } from '../../../shared/validation/person.dto.js';
import { PageOf, Prop } from '../../../shared/validation/response-fields.js';
import { ReferenceRecordDto } from '../../collaboration/index.js';
import type { Priority } from '../../tasks/index.js';
import type { IssueLevel, ValidationIssue } from '../domain/proposal-validation.js';
import type { ApprovalResult } from '../proposal-approval.service.js';
import type { RevocationResult } from '../proposal-revocation.service.js';
import type { CriterionItem, DocumentDraft, DocumentDraftType, TaskDraft } from '../proposal.entity.js';
import type { ProposalSection } from '../proposal.records.js';

// The answers of the proposals module: ProposalSummary and ProposalRecord (proposal.records.ts names them) with their
// sections, the proposal list, validation, approval and revocation.

export class ProposalSummaryDto {
  @Prop.string() uuid: string;
  @Prop.string() projectUuid: string;
  @Prop.string() title: string;
  @Prop.string() status: string;
  @Prop.string({ description: 'idea or document' }) inputType: string;
  @Prop.strings() inputUuids: string[];
  @Prop.integer() documentDraftCount: number;
  @Prop.integer() taskDraftCount: number;
  @Prop.nested(PersonDto, { nullable: true }) createdBy: PersonDto | null;
  @Prop.nested(PersonDto, { nullable: true }) reviewedBy: PersonDto | null;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class DocumentDraftIndexDto {
  @Prop.string() uuid: string;
  @Prop.string() type: string;
  @Prop.string() title: string;
  @Prop.integer({ description: 'Characters of content' }) contentLength: number;
}

export class TaskDraftIndexDto {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
  @Prop.string({ nullable: true }) priority: string | null;
  @Prop.number({ nullable: true }) storyPoints: number | null;
  @Prop.integer() acceptanceCriteriaCount: number;
  @Prop.strings() dependsOnDraftUuids: string[];
}

export class DocumentDraftRecordDto implements DocumentDraft {
  @Prop.string() uuid: string;
  @Prop.string() type: DocumentDraftType;
  @Prop.string() title: string;
  @Prop.string() content: string;
}

export class CriterionItemDto implements CriterionItem {
  @Prop.string() description: string;
  @Prop.boolean() required: boolean;
}

export class TaskDraftRecordDto implements TaskDraft {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
  @Prop.string() description: string;
  @Prop.string({ nullable: true }) priority: Priority | null;
  @Prop.number({ nullable: true }) storyPoints: number | null;
  @Prop.list(CriterionItemDto) acceptanceCriteriaItems: CriterionItemDto[];
  @Prop.strings() dependsOnDraftUuids: string[];
}

/** The record with one section (`?section=`): `basic` has the two indexes, `documents` / `tasks` / `full` the drafts. */
export class ProposalRecordDto extends ProposalSummaryDto {
  @Prop.string() description: string;
  @Prop.string({ nullable: true }) submittedAt: string | null;
  @Prop.string({ nullable: true }) reviewNote: string | null;
  @Prop.string({ nullable: true }) reviewedAt: string | null;
  @Prop.list(ReferenceRecordDto) references: ReferenceRecordDto[];
  @Prop.string({ description: 'basic, documents, tasks or full' }) section: ProposalSection;
  @Prop.list(DocumentDraftIndexDto, { optional: true, description: 'Section basic' }) documentDraftIndex?: DocumentDraftIndexDto[];
  @Prop.list(TaskDraftIndexDto, { optional: true, description: 'Section basic' }) taskDraftIndex?: TaskDraftIndexDto[];
  @Prop.list(DocumentDraftRecordDto, { optional: true, description: 'Sections documents and full' }) documentDrafts?: DocumentDraftRecordDto[];
  @Prop.list(TaskDraftRecordDto, { optional: true, description: 'Sections tasks and full' }) taskDrafts?: TaskDraftRecordDto[];
}

/** A new proposal: the record, plus `warnings` about its inputs when there are any. */
export class CreatedProposalDto extends ProposalRecordDto {
  @Prop.strings({ optional: true }) warnings?: string[];
}

/** A draft added: the record and the new draft's uuid. */
export class DraftAddedDto extends ProposalRecordDto {
  @Prop.string() draftUuid: string;
}

export class ProposalPageDto extends PageOf('proposals', ProposalSummaryDto) {}

export class ValidationIssueDto implements ValidationIssue {
  @Prop.string() id: string;
  @Prop.string({ description: 'error, warning or info' }) level: IssueLevel;
  @Prop.string() message: string;
  @Prop.string({ optional: true }) field?: string;
}

export class ProposalValidationDto {
  @Prop.boolean({ description: 'No issue of level error' }) valid: boolean;
  @Prop.list(ValidationIssueDto) issues: ValidationIssueDto[];
}

export class MaterializedTaskDto {
  @Prop.string() draftUuid: string;
  @Prop.string() taskUuid: string;
  @Prop.string() title: string;
}

export class MaterializedDocumentDto {
  @Prop.string() draftUuid: string;
  @Prop.string() documentUuid: string;
  @Prop.string() title: string;
}

export class ApprovalResultDto implements ApprovalResult {
  @Prop.nested(ProposalRecordDto) proposal: ProposalRecordDto;
  @Prop.list(MaterializedTaskDto) materializedTasks: MaterializedTaskDto[];
  @Prop.list(MaterializedDocumentDto) materializedDocuments: MaterializedDocumentDto[];
}

export class RemovedItemDto {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
}

export class RevocationResultDto implements RevocationResult {
  @Prop.nested(ProposalRecordDto) proposal: ProposalRecordDto;
  @Prop.list(RemovedItemDto) closedTasks: RemovedItemDto[];
  @Prop.list(RemovedItemDto) deletedDocuments: RemovedItemDto[];
}
