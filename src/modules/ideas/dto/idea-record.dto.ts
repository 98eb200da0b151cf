import { AssigneeDto, PersonDto } from '../../../shared/validation/person.dto.js';
import { PageOf, Prop } from '../../../shared/validation/response-fields.js';
import { ReferenceRecordDto } from '../../collaboration/index.js';
import type { DerivedStatus } from '../domain/derived-status.js';
import type { MovedCounts } from '../idea-move.steps.js';
import type { ElaborationDepth, ElaborationStatus, IdeaStatus } from '../idea.entity.js';

// The answers of the ideas module: IdeaSummary, IdeaRecord (idea.records.ts names them), the idea list and a move.

export class IdeaSummaryDto {
  @Prop.string() uuid: string;
  @Prop.string() projectUuid: string;
  @Prop.string() title: string;
  @Prop.string() status: IdeaStatus;
  @Prop.string({ description: 'From its own status and its descendants' }) derivedStatus: DerivedStatus;
  @Prop.boolean({ description: 'A theme grouping other ideas' }) isContainer: boolean;
  @Prop.string({ nullable: true }) parentUuid: string | null;
  @Prop.nested(AssigneeDto, { nullable: true }) assignee: AssigneeDto | null;
  @Prop.string({ nullable: true }) elaborationStatus: ElaborationStatus | null;
  @Prop.integer() childCount: number;
  @Prop.nested(PersonDto, { nullable: true }) createdBy: PersonDto | null;
  @Prop.string() createdAt: string;
  @Prop.string() updatedAt: string;
}

export class IdeaParentDto {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
}

export class IdeaChildDto {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
  @Prop.string() status: IdeaStatus;
  @Prop.string() derivedStatus: DerivedStatus;
}

export class IdeaProposalDto {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
  @Prop.string() status: string;
}

export class IdeaReportDto {
  @Prop.string() uuid: string;
  @Prop.string() title: string;
  @Prop.string() proposalUuid: string;
  @Prop.string() createdAt: string;
}

export class IdeaRecordDto extends IdeaSummaryDto {
  @Prop.string() content: string;
  @Prop.string({ nullable: true }) elaborationDepth: ElaborationDepth | null;
  @Prop.nested(IdeaParentDto, { nullable: true }) parent: IdeaParentDto | null;
  @Prop.list(IdeaChildDto) children: IdeaChildDto[];
  @Prop.list(IdeaProposalDto, { description: 'The proposals listing it as input' }) proposals: IdeaProposalDto[];
  @Prop.list(IdeaReportDto, { description: 'Report documents of those proposals, newest first' }) reports: IdeaReportDto[];
  @Prop.list(ReferenceRecordDto) references: ReferenceRecordDto[];
}

export class IdeaPageDto extends PageOf('ideas', IdeaSummaryDto) {}

export class MovedCountsDto implements MovedCounts {
  @Prop.integer() ideas: number;
  @Prop.integer() proposals: number;
  @Prop.integer() documents: number;
  @Prop.integer() tasks: number;
}

export class IdeaMoveDto {
  @Prop.nested(IdeaRecordDto) idea: IdeaRecordDto;
  @Prop.nested(MovedCountsDto, { description: 'What moved along' }) moved: MovedCountsDto;
}
