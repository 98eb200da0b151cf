/**
 * What notifies whom (docs/notifications.md §4): categories, recipients, the filtering order and the messages. Pure:
 * the generator loads the facts (rows, archived agents, preferences) and hands them in.
 */
import type { DomainEventName } from '../../../shared/events/domain-events.js';

export type RecipientType = 'user' | 'agent';
export type NotifiedEntityType = 'task' | 'idea' | 'proposal' | 'document';

export interface Ref {
  type: RecipientType;
  uuid: string;
}

export const PREFERENCE_FIELDS = [
  'taskAssigned',
  'taskStatusChanged',
  'taskVerified',
  'taskReopened',
  'proposalSubmitted',
  'proposalApproved',
  'proposalRejected',
  'ideaClaimed',
  'commentAdded',
  'elaborationRequested',
  'elaborationAnswered',
  'mentioned',
] as const;

export type PreferenceField = (typeof PREFERENCE_FIELDS)[number];

export type NotificationAction =
  | 'task_assigned'
  | 'task_status_changed'
  | 'task_submitted_for_verify'
  | 'task_verified'
  | 'task_reopened'
  | 'proposal_submitted'
  | 'proposal_approved'
  | 'proposal_rejected'
  | 'idea_claimed'
  | 'comment_added'
  | 'elaboration_requested'
  | 'elaboration_answered'
  | 'elaboration_resolved'
  | 'mentioned';

/** §4.1 preference column of each category. */
export const PREFERENCE_OF: Record<NotificationAction, PreferenceField> = {
  task_assigned: 'taskAssigned',
  task_status_changed: 'taskStatusChanged',
  task_submitted_for_verify: 'taskVerified',
  task_verified: 'taskVerified',
  task_reopened: 'taskReopened',
  proposal_submitted: 'proposalSubmitted',
  proposal_approved: 'proposalApproved',
  proposal_rejected: 'proposalRejected',
  idea_claimed: 'ideaClaimed',
  comment_added: 'commentAdded',
  elaboration_requested: 'elaborationRequested',
  elaboration_answered: 'elaborationAnswered',
  elaboration_resolved: 'elaborationAnswered',
  mentioned: 'mentioned',
};

/**
 * §4.1: the domain events that notify, with their category (every other event notifies nobody; @mentions come as
 * `mention.created`).
 */
export const NOTIFYING_EVENTS: Partial<Record<DomainEventName, Exclude<NotificationAction, 'mentioned'>>> = {
  'task.assigned': 'task_assigned',
  'task.status_changed': 'task_status_changed',
  'task.submitted': 'task_submitted_for_verify',
  'task.verified': 'task_verified',
  'task.reopened': 'task_reopened',
  'proposal.submitted': 'proposal_submitted',
  'proposal.approved': 'proposal_approved',
  'proposal.rejected': 'proposal_rejected',
  'idea.assigned': 'idea_claimed',
  'idea.elaboration_started': 'elaboration_requested',
  'idea.elaboration_answered': 'elaboration_answered',
  'idea.elaboration_resolved': 'elaboration_resolved',
  'idea.elaboration_skipped': 'elaboration_resolved',
  'comment.added': 'comment_added',
};

/** The entity facts recipients depend on, read after the mutation. */
export interface EntityFacts {
  creator: Ref | null;
  assignee: Ref | null;
  /** proposal_submitted: creators of the input ideas. */
  inputIdeaCreators?: Ref[];
}

/** §4.2. `actorOwner` is the owner user of an acting agent (null for a user actor). */
export function recipientsFor(action: Exclude<NotificationAction, 'mentioned'>, entityType: NotifiedEntityType, facts: EntityFacts, actorOwner: Ref | null): Ref[] {
  const list = (...refs: Array<Ref | null | undefined>): Ref[] => refs.filter((r): r is Ref => !!r);
  switch (action) {
    case 'task_assigned':
    case 'task_verified':
    case 'task_reopened':
      return list(facts.assignee);
    case 'task_status_changed':
    case 'idea_claimed':
    case 'elaboration_answered':
    case 'elaboration_resolved':
      return list(facts.assignee, facts.creator);
    case 'task_submitted_for_verify':
    case 'elaboration_requested':
      return list(facts.creator, actorOwner);
    case 'proposal_submitted':
      return list(actorOwner, ...(facts.inputIdeaCreators ?? []));
    case 'proposal_approved':
    case 'proposal_rejected':
      return list(facts.creator);
    case 'comment_added':
      return entityType === 'task' || entityType === 'idea' ? list(facts.assignee, facts.creator) : list(facts.creator);
  }
}

export interface MessageContext {
  actorName: string;
  title: string;
  /** task_status_changed: the new status. */
  status?: string | null;
  /** proposal_approved / proposal_rejected. */
  reviewNote?: string | null;
  /** mentioned: the snippet of the text. */
  snippet?: string;
}

/** §4.4, exactly. */
export function messageFor(action: NotificationAction, c: MessageContext): string {
  const t = `"${c.title}"`;
  switch (action) {
    case 'task_assigned':
      return `${c.actorName} assigned you to task ${t}`;
    case 'task_status_changed':
      return `${c.actorName} moved task ${t} to ${c.status ?? ''}`;
    case 'task_submitted_for_verify':
      return `${c.actorName} submitted task ${t} for verification`;
    case 'task_verified':
      return `Task ${t} has been verified`;
    case 'task_reopened':
      return `Task ${t} has been reopened`;
    case 'proposal_submitted':
      return `${c.actorName} submitted proposal ${t} for review`;
    case 'proposal_approved':
      return c.reviewNote ? `Proposal ${t} has been approved. Note: ${c.reviewNote}` : `Proposal ${t} has been approved`;
    case 'proposal_rejected':
      return `Proposal ${t} was sent back to draft. Reason: ${c.reviewNote ?? ''}`;
    case 'idea_claimed':
      return `${c.actorName} claimed idea ${t}`;
    case 'comment_added':
      return `${c.actorName} commented on ${t}`;
    case 'elaboration_requested':
      return `${c.actorName} asked questions about idea ${t}`;
    case 'elaboration_answered':
      return `${c.actorName} answered questions about idea ${t}`;
    case 'elaboration_resolved':
      return `${c.actorName} resolved the elaboration of idea ${t}`;
    case 'mentioned':
      return `${c.actorName} mentioned you: "${c.snippet ?? ''}"`;
  }
}

export interface NotifiedEntity {
  type: NotifiedEntityType;
  uuid: string;
  title: string;
  projectUuid: string;
}

/** One category occurrence of a mutation, before filtering. */
export interface Candidate {
  action: NotificationAction;
  recipients: Ref[];
  entity: NotifiedEntity;
  message: string;
  /** comment_added: the comment; mentioned: the comment the mention is in (null for task/idea texts). */
  commentUuid: string | null;
}

export interface PlannedNotification {
  recipient: Ref;
  action: NotificationAction;
  entity: NotifiedEntity;
  message: string;
}

export interface FilterFacts {
  actor: Ref;
  isArchivedAgent(ref: Ref): boolean;
  /** The recipient's preference (true when it has no row). */
  wants(ref: Ref, field: PreferenceField): boolean;
}

const key = (r: Ref): string => `${r.type}:${r.uuid.toLowerCase()}`;

/** True when a comment_added candidate and a mentioned candidate are about the same comment. */
function sameComment(comment: Candidate, mention: Candidate): boolean {
  if (mention.commentUuid === null) return false;
  if (comment.commentUuid) return comment.commentUuid === mention.commentUuid;
  return comment.entity.type === mention.entity.type && comment.entity.uuid === mention.entity.uuid;
}

/**
 * §4.3 in order: de-duplicate, drop the actor, drop archived agents, `mentioned` beats `comment_added` for the same
 * comment, then preferences. Each remaining (recipient, category, entity) gives one row, in candidate order.
 */
export function planNotifications(candidates: readonly Candidate[], facts: FilterFacts): PlannedNotification[] {
  const actorKey = key(facts.actor);
  const stage = candidates.map((c) => {
    const seen = new Set<string>();
    const recipients = c.recipients.filter((r) => {
      const k = key(r);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    return { c, recipients: recipients.filter((r) => key(r) !== actorKey && !(r.type === 'agent' && facts.isArchivedAgent(r))) };
  });
  const mentions = stage.filter((s) => s.c.action === 'mentioned');
  const out: PlannedNotification[] = [];
  const emitted = new Set<string>();
  for (const { c, recipients } of stage) {
    let remaining = recipients;
    if (c.action === 'comment_added') {
      const mentioned = new Set(mentions.filter((m) => sameComment(c, m.c)).flatMap((m) => m.recipients.map(key)));
      remaining = remaining.filter((r) => !mentioned.has(key(r)));
    }
    for (const r of remaining) {
      if (!facts.wants(r, PREFERENCE_OF[c.action])) continue;
      const k = `${key(r)}|${c.action}|${c.entity.type}:${c.entity.uuid}`;
      if (emitted.has(k)) continue;
      emitted.add(k);
      out.push({ recipient: r, action: c.action, entity: c.entity, message: c.message });
    }
  }
  return out;
}
