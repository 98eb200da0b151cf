import type { EntityManager } from 'typeorm';
import type { SessionRecordDto } from './dto/session-record.dto.js';
import type { AgentSessionEntity } from './session.entity.js';

/** A session with its open check-ins, defined once by its response DTO (dto/session-record.dto.ts). */
export type SessionRecord = SessionRecordDto;

export async function toSessionRecords(em: EntityManager, sessions: AgentSessionEntity[]): Promise<SessionRecord[]> {
  if (!sessions.length) return [];
  const rows: Array<{ session_uuid: string; task_uuid: string; title: string; checkin_at: Date }> = await em.query(
    `SELECT c.session_uuid, c.task_uuid, t.title, c.checkin_at FROM session_task_checkin c JOIN task t ON t.uuid = c.task_uuid
      WHERE c.session_uuid = ANY($1::uuid[]) AND c.checkout_at IS NULL ORDER BY c.checkin_at, c.task_uuid`,
    [sessions.map((s) => s.uuid)],
  );
  return sessions.map((s) => ({
    uuid: s.uuid,
    agentUuid: s.agentUuid,
    name: s.name,
    description: s.description,
    status: s.status,
    lastActiveAt: s.lastActiveAt.toISOString(),
    closedAt: s.closedAt ? s.closedAt.toISOString() : null,
    checkins: rows
      .filter((r) => r.session_uuid === s.uuid)
      .map((r) => ({ taskUuid: r.task_uuid, taskTitle: r.title, checkinAt: r.checkin_at.toISOString() })),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  }));
}
