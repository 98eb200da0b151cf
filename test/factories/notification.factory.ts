import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { NotificationEntity } from '../../src/entities.js';

export interface Inbox {
  type: 'user' | 'agent';
  uuid: string;
  companyUuid: string;
}

/** Notification rows inserted directly (the generator is tested on its own), with controllable timestamps. */
export class NotificationFactory {
  private clock = Date.parse('2030-01-01T00:00:00Z');

  constructor(private readonly db: DataSource) {}

  async insert(to: Inbox, o: Partial<NotificationEntity> = {}): Promise<NotificationEntity> {
    this.clock += 1000;
    const row: Partial<NotificationEntity> = {
      uuid: randomUUID(),
      companyUuid: to.companyUuid,
      projectUuid: o.projectUuid ?? randomUUID(),
      projectName: 'Project',
      recipientType: to.type,
      recipientUuid: to.uuid,
      entityType: 'task',
      entityUuid: randomUUID(),
      entityTitle: 'Title',
      action: 'task_assigned',
      message: 'Someone assigned you to task "Title"',
      actorType: 'user',
      actorUuid: randomUUID(),
      actorName: 'Someone',
      readAt: null,
      archivedAt: null,
      createdAt: new Date(this.clock),
      ...o,
    };
    await this.db.getRepository(NotificationEntity).insert(row);
    return this.db.getRepository(NotificationEntity).findOneByOrFail({ uuid: row.uuid! });
  }

  async many(to: Inbox, n: number, o: Partial<NotificationEntity> = {}): Promise<NotificationEntity[]> {
    const out: NotificationEntity[] = [];
    for (let i = 0; i < n; i++) out.push(await this.insert(to, o));
    return out;
  }
}
