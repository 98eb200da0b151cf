import { IntersectionType } from '@nestjs/swagger';
import { EnumField, ListField, TextField, UuidArgs, UuidListField } from '../../../shared/validation/fields.js';
import { PagingArgsDto } from '../../../shared/validation/paging-args.dto.js';
import { PagingQueryDto } from '../../../shared/validation/paging-query.dto.js';
import { MAX_LONG_TEXT, MAX_NOTE, MAX_TITLE } from '../../../shared/validation/text-rules.js';
import { MAX_REFERENCES_ON_CREATE, ReferenceInputDto } from '../../collaboration/index.js';
import { PROPOSAL_INPUT_TYPES, MAX_PROPOSAL_INPUTS } from '../domain/proposal-drafts.js';
import { PROPOSAL_STATUSES, type ProposalStatus } from '../domain/proposal-statuses.js';
import { PROPOSAL_SECTIONS, type ProposalSection } from '../proposal.records.js';

/**
 * Inputs of the proposal tools (docs/tool-conventions.md §5.1, §5.6, §5.8) and routes (docs/platform.md §9): a tool's arguments are the
 * route's body (or query) plus the ids its path carries. Text rules after trimming and state guards are the services'.
 */
export class ProposalRefDto extends UuidArgs('proposalUuid', 'The proposal') {}

class ProposalStatusFilterDto {
  @EnumField(PROPOSAL_STATUSES, { optional: true, description: 'Only proposals in this status' })
  status?: ProposalStatus;
}

export class ListProposalsArgsDto extends IntersectionType(UuidArgs('projectUuid', 'The project'), ProposalStatusFilterDto, PagingArgsDto) {}
export class ListProposalsQuery extends IntersectionType(ProposalStatusFilterDto, PagingQueryDto) {}

export class GetProposalQuery {
  @EnumField(PROPOSAL_SECTIONS, { optional: true, description: 'basic (default): draft indexes; documents: full document drafts; tasks: full task drafts; full: both' })
  section?: ProposalSection;
}

export class GetProposalArgsDto extends IntersectionType(ProposalRefDto, GetProposalQuery) {}

export class CreateProposalDto {
  @TextField({ minLength: 1, maxLength: MAX_TITLE, description: 'Proposal title, 1-200 characters' })
  title: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'Why and what' })
  description?: string;

  @EnumField(PROPOSAL_INPUT_TYPES, { description: 'What the inputs are: resolved deliverable ideas assigned to you, or documents' })
  inputType: (typeof PROPOSAL_INPUT_TYPES)[number];

  @UuidListField({ minItems: 1, maxItems: MAX_PROPOSAL_INPUTS, description: '1-20 distinct ideas or documents of the same project' })
  inputUuids: string[];

  @ListField(ReferenceInputDto, { optional: true, maxItems: MAX_REFERENCES_ON_CREATE, description: 'Up to 10 external links to attach' })
  references?: ReferenceInputDto[];
}

export class CreateProposalArgsDto extends IntersectionType(UuidArgs('projectUuid', 'The project the proposal belongs to'), CreateProposalDto) {}

/** REST only: a draft's title and description. */
export class EditProposalDto {
  @TextField({ optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New title, 1-200 characters' })
  title?: string;

  @TextField({ optional: true, maxLength: MAX_LONG_TEXT, description: 'New description' })
  description?: string;
}

export class RequiredReviewDto {
  @TextField({ minLength: 1, maxLength: MAX_NOTE, description: 'Review note, 1-2000 characters' })
  reviewNote: string;
}

export class RequiredReviewArgsDto extends IntersectionType(ProposalRefDto, RequiredReviewDto) {}

export class OptionalReviewDto {
  @TextField({ optional: true, maxLength: MAX_NOTE, description: 'Review note, at most 2000 characters' })
  reviewNote?: string;
}

export class OptionalReviewArgsDto extends IntersectionType(ProposalRefDto, OptionalReviewDto) {}
