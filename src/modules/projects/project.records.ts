import type {
  GroupDashboardDto,
  GroupRecordDto,
  GroupSummaryDto,
  ProjectCountsDto,
  ProjectRecordDto,
  ProjectSummaryDto,
} from './dto/project-record.dto.js';

/** The record shapes of projects and groups, defined once by their response DTOs (dto/project-record.dto.ts). */
export type ProjectCounts = ProjectCountsDto;
export type ProjectSummary = ProjectSummaryDto;
export type ProjectRecord = ProjectRecordDto;
export type GroupSummary = GroupSummaryDto;
export type GroupRecord = GroupRecordDto;
export type GroupDashboard = GroupDashboardDto;

export const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString();
export const isoOrNull = (d: Date | string | null): string | null => (d === null ? null : iso(d));

/** A `project` row with its counts, as ProjectRepository reads it. */
export interface ProjectSummaryRow {
  uuid: string;
  name: string;
  description: string;
  group_uuid: string | null;
  created_at: Date;
  updated_at: Date;
  idea_count: number;
  proposal_count: number;
  document_count: number;
  task_count: number;
}

export function toProjectSummary(r: ProjectSummaryRow): ProjectSummary {
  return {
    uuid: r.uuid,
    name: r.name,
    description: r.description,
    groupUuid: r.group_uuid,
    counts: { ideas: r.idea_count, proposals: r.proposal_count, documents: r.document_count, tasks: r.task_count },
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}
