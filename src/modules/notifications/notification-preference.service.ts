import { Injectable } from '@nestjs/common';
import type { Actor } from '../../shared/auth/actor.js';
import type { PreferenceField } from './domain/notification.rules.js';
import { NotificationPreferenceRepository } from './notification-preference.repository.js';
import type { NotificationPreferences } from './notification.records.js';
import { recipientOf } from './notification.repository.js';

/** The caller's notification preferences (docs/notifications.md §6): created on first read, any subset updated. */
@Injectable()
export class NotificationPreferenceService {
  constructor(private readonly preferences: NotificationPreferenceRepository) {}

  async get(actor: Actor): Promise<NotificationPreferences> {
    const r = recipientOf(actor);
    const existing = await this.preferences.find(r);
    if (existing) return existing;
    await this.preferences.createDefault(r);
    return (await this.preferences.find(r))!;
  }

  /** Updates the given booleans; `{}` changes nothing (and creates the row like a read). */
  async update(actor: Actor, patch: Partial<Record<PreferenceField, boolean>>): Promise<NotificationPreferences> {
    if (!Object.values(patch).some((v) => v !== undefined)) return this.get(actor);
    return this.preferences.update(recipientOf(actor), patch);
  }
}
