import type { SessionRecordDto } from './dto/session-record.dto.js';
import type { AgentSessionEntity } from './session.entity.js';
import type { SessionRepository } from './session.repository.js';

/** A session with its open check-ins, defined once by its response DTO (dto/session-record.dto.ts). */
export type SessionRecord = SessionRecordDto;

/** The records of sessions with their open check-ins (read through `repo`: the pool's, or a mutation's). */
export async function toSessionRecords(repo: SessionRepository, sessions: AgentSessionEntity[]): Promise<SessionRecord[]> {
  if (!sessions.length) return [];
  const rows = await repo.openCheckins(sessions.map((s) => s.uuid));
  return sessions.map((s) => ({
    uuid: s.uuid,
    agentUuid: s.agentUuid,
    name: s.name,
    description: s.description,
    status: s.status,
    lastActiveAt: s.lastActiveAt.toISOString(),
    closedAt: s.closedAt ? s.closedAt.toISOString() : null,
    checkins: rows
      .filter((r) => r.sessionUuid === s.uuid)
      .map((r) => ({ taskUuid: r.taskUuid, taskTitle: r.taskTitle, checkinAt: r.checkinAt.toISOString() })),
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  }));
}
