/**
 * The domain events of a mutation (docs/architecture.md "Events"): what happened to a task, idea, proposal or
 * document, named and typed by the module that did it. A mutation records them on its transaction (`tx.record`);
 * before commit the collaboration module writes the activity log from them (one row per changed target) and the
 * mentions of the texts they carry; after commit they reach their `@OnEvent(MUTATION_EVENTS.committed)` reactions
 * (notifications) in one batch per mutation. A wrong payload for a name fails to compile.
 *
 * The names are `<entity>.<verb>`; the verb is what the activity log shows as `action` (docs/domain.md §2.18), so the log
 * keeps its vocabulary while nobody matches on strings any more.
 */
import type { EntityType } from '../event-bus/events.js';

/** A user or an agent. */
export interface PartyRef {
  type: 'user' | 'agent';
  uuid: string;
}

/** A task's status move (docs/architecture.md: the task lifecycle): what the transition step records. */
export interface TaskTransition {
  from?: string;
  to?: string;
  assignee?: { type: string | null; uuid: string | null };
  /** Sessions checked out because the task closed. */
  checkedOutSessions?: string[];
  summary?: string | null;
  force?: boolean;
  reason?: string | null;
  proposalUuid?: string;
}

/** An idea moved to another project carries its proposals, tasks and documents along. */
interface ProjectMove {
  fromProjectUuid: string;
  toProjectUuid: string;
}

/** Reference events name their reference; the target is any work item. */
interface ReferenceChange {
  referenceUuid: string;
}

/** A text a mutation wrote that may carry @mentions (notifications: only mentions new to it count). */
export interface MentionSource {
  sourceType: 'comment' | 'task' | 'idea';
  sourceUuid: string;
  /** The notification's entity: the comment's target, else the task or idea itself. */
  entityType: EntityType;
  entityUuid: string;
  entityTitle: string;
  projectUuid: string;
  /** The previous text (null on creation): only mentions absent from it count. */
  before: string | null;
  after: string;
}

export interface MentionedParty {
  type: 'user' | 'agent';
  uuid: string;
}

export interface DomainEventMap {
  'task.created': { title?: string; proposalUuid?: string };
  'task.edited': { fields: string[] };
  'task.deleted': { title: string };
  'task.dependency_added': { dependsOnUuid: string };
  'task.dependency_removed': { dependsOnUuid: string };
  'task.assigned': TaskTransition;
  'task.released': TaskTransition;
  'task.status_changed': TaskTransition;
  'task.submitted': TaskTransition;
  'task.verified': TaskTransition;
  'task.reopened': TaskTransition;
  'task.closed': TaskTransition;
  'task.criteria_marked': { criteria: unknown[] };
  'task.criteria_self_checked': { criteria: unknown[] };
  'task.session_checkin': { sessionUuid: string; sessionName: string };
  'task.session_checkout': { sessionUuid: string; sessionName: string };

  'idea.created': { title: string };
  'idea.edited': { fields: string[] };
  'idea.reparented': { fromParentUuid: string | null; toParentUuid?: string | null };
  'idea.assigned': { assignee: PartyRef };
  'idea.released': { assignee: { type: string | null; uuid: string | null } };
  'idea.deleted': { title: string };
  /** The moved idea (with what moved along), or an idea that moved with it (`withIdeaUuid`). */
  'idea.moved': ProjectMove & { detachedFromParentUuid?: string | null; moved?: unknown; withIdeaUuid?: string };
  'idea.elaboration_started': { roundUuid: string; roundNumber: number; depth: string; questionCount: number; isAppended: boolean };
  'idea.elaboration_answered': { roundUuid: string; roundNumber: number; questionIds: string[]; roundAnswered: boolean };
  'idea.elaboration_resolved': { rounds: number };
  'idea.elaboration_skipped': { reason: string };

  'proposal.created': { title: string };
  'proposal.edited': Record<string, unknown>;
  'proposal.deleted': { title: string };
  'proposal.submitted': { inputType: string; inputUuids: string[] | null };
  'proposal.approved': { reviewNote: string | null };
  'proposal.rejected': { reviewNote: string | null };
  'proposal.closed': { reviewNote: string | null };
  'proposal.revoked': { reviewNote: string | null };
  'proposal.moved': ProjectMove & { withIdeaUuid: string };

  'document.created': { type?: string; title?: string; proposalUuid?: string };
  'document.edited': { fields: string[]; version: number };
  'document.deleted': { title: string; proposalUuid?: string };
  'document.report_created': { proposalUuid: string; title: string };
  'document.moved': ProjectMove & { withIdeaUuid: string };

  'task.moved': ProjectMove & { withIdeaUuid: string };

  /** A comment on a work item (the target is the commented item). */
  'comment.added': { commentUuid: string };
  'reference.added': ReferenceChange & { type: string; title: string; url: string };
  'reference.updated': ReferenceChange & { fields: string[] };
  'reference.removed': ReferenceChange & { title: string; url: string };

  /** A text written by the mutation (its @mentions are found before commit). Not an activity. */
  'text.written': MentionSource;
  /** The new, valid mentions of one text, as written to the mention table (recorded before commit). Not an activity. */
  'mention.created': { source: MentionSource; mentioned: MentionedParty[] };
}

export type DomainEventName = keyof DomainEventMap;

/** One recorded event: its name, the work item it is about (and that item's project), its payload. */
export interface DomainEvent<K extends DomainEventName = DomainEventName> {
  name: K;
  projectUuid: string;
  target: { type: EntityType; uuid: string };
  payload: DomainEventMap[K];
  /** Unique per event (the activity row it becomes keeps it). */
  uuid: string;
}

/** Any recorded event, narrowed by its `name`. */
export type AnyDomainEvent = { [K in DomainEventName]: DomainEvent<K> }[DomainEventName];

/** Events that are not entries of the activity log. */
export const NOT_ACTIVITIES: ReadonlySet<DomainEventName> = new Set(['text.written', 'mention.created']);

/** `<entity>.<verb>` → the activity log's action: the verb, or `comment_added` / `reference_<verb>` for those. */
export function activityAction(name: DomainEventName): string {
  const [subject, verb] = name.split('.') as [string, string];
  return subject === 'comment' || subject === 'reference' ? `${subject}_${verb}` : verb;
}
