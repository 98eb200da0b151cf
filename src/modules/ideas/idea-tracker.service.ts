import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import type { DerivedStatus } from './domain/derived-status.js';
import type { ElaborationStatus, IdeaStatus } from './idea.entity.js';
import { loadIdeaStatusView } from './idea-facts.queries.js';
import { iso } from './idea.records.js';
import { IdeaRepository } from './idea.repository.js';

export interface IdeaTrackerItem {
  uuid: string;
  title: string;
  status: IdeaStatus;
  derivedStatus: DerivedStatus;
  elaborationStatus: ElaborationStatus | null;
  proposalCount: number;
  taskCount: number;
  updatedAt: string;
}

/** docs/tool-conventions.md §3: keyed by project uuid, keys in the order of each project's first idea. */
export type IdeaTracker = Record<string, { name: string; ideas: IdeaTrackerItem[] }>;

export interface IdeaTrackerOptions {
  /** Project uuids of the scoping headers; null = every project; an empty array yields an empty tracker. */
  projectScope: string[] | null;
  /** svc_checkin passes 10; svc_get_my_assignments passes nothing. */
  limit?: number;
}

/** The caller's ideas by the assignee identity rule, newest update first. */
@Injectable()
export class IdeaTrackerService {
  constructor(private readonly ideas: IdeaRepository) {}

  async tracker(actor: Actor, options: IdeaTrackerOptions): Promise<IdeaTracker> {
    if (options.projectScope && !options.projectScope.length) return {};
    const rows = await this.ideas.tracked(actor, options.projectScope, options.limit);
    const view = await loadIdeaStatusView(this.ideas, actor.companyUuid, rows.map((r) => r.uuid));
    const tracker: IdeaTracker = {};
    for (const r of rows) {
      const facts = view.facts.get(r.uuid);
      const entry = (tracker[r.project_uuid] ??= { name: r.project_name, ideas: [] });
      entry.ideas.push({
        uuid: r.uuid,
        title: r.title,
        status: r.status,
        derivedStatus: view.derived.get(r.uuid) ?? 'todo',
        elaborationStatus: r.elaboration_status,
        proposalCount: facts?.proposalCount ?? 0,
        taskCount: facts?.taskCount ?? 0,
        updatedAt: iso(r.updated_at),
      });
    }
    return tracker;
  }
}
