import type { ActivityRecord } from '../collaboration/index.js';
import type { TaskStatus } from '../tasks/index.js';

/** Record shapes of tools.md §5.9 for projects and groups. */
export interface ProjectCounts {
  ideas: number;
  proposals: number;
  documents: number;
  tasks: number;
}

export interface ProjectSummary {
  uuid: string;
  name: string;
  description: string;
  groupUuid: string | null;
  counts: ProjectCounts;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectRecord extends ProjectSummary {
  group: { uuid: string; name: string } | null;
  taskStatusCounts: Record<TaskStatus, number>;
}

export interface GroupSummary {
  uuid: string;
  name: string;
  description: string;
  projectCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface GroupRecord extends GroupSummary {
  projects: Array<{ uuid: string; name: string; description: string }>;
}

export interface GroupDashboard {
  group: GroupSummary;
  stats: {
    projectCount: number;
    totalTasks: number;
    completedTasks: number;
    completionRate: number;
    openIdeas: number;
    activeProposals: number;
  };
  projects: Array<{ uuid: string; name: string; taskCount: number; completionRate: number }>;
  recentActivity: ActivityRecord[];
}

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
