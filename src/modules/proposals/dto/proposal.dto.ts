import { EnumField, ListField, TextField, UuidListField } from '../../../shared/validation/fields.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { ReferenceInputDto } from '../../collaboration/index.js';
import type { ProposalStatus } from '../proposal.entity.js';
import { PROPOSAL_SECTIONS, type ProposalSection } from '../proposal.records.js';

/**
 * Queries and bodies of the proposal routes: the inputs of the equivalent tools (tools.md §5.6, §5.8) minus the ids
 * carried by the path. Shapes are checked here; text rules and state guards by the services.
 */
const STATUSES: readonly ProposalStatus[] = ['draft', 'pending', 'approved', 'closed'];

export class ListProposalsQuery extends PagingQueryDto {
  @EnumField(STATUSES, { optional: true, description: 'Only proposals in this status' })
  status?: ProposalStatus;
}

export class GetProposalQuery {
  @EnumField(PROPOSAL_SECTIONS, { optional: true, description: 'basic (draft indexes, default), documents, tasks or full' })
  section?: ProposalSection;
}

export class CreateProposalDto {
  @TextField({ maxLength: 200, description: 'Title, 1-200 characters' })
  title: string;

  @TextField({ optional: true, maxLength: 100_000 })
  description?: string;

  @EnumField(['idea', 'document'])
  inputType: string;

  @UuidListField({ minItems: 1, maxItems: 20, description: '1-20 distinct ideas (assigned to you) or documents of the project' })
  inputUuids: string[];

  @ListField(ReferenceInputDto, { optional: true, maxItems: 10, description: 'Up to 10 external links' })
  references?: ReferenceInputDto[];
}

export class EditProposalDto {
  @TextField({ optional: true, maxLength: 200 })
  title?: string;

  @TextField({ optional: true, maxLength: 100_000 })
  description?: string;
}

export class RequiredReviewDto {
  @TextField({ minLength: 1, maxLength: 2000, description: 'Why; required' })
  reviewNote: string;
}

export class OptionalReviewDto {
  @TextField({ optional: true, nullable: true, maxLength: 2000 })
  reviewNote?: string | null;
}
