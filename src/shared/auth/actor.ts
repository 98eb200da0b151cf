import type { Permission } from './permissions.js';
import { ALL_PERMISSIONS } from './permissions.js';

export type ActorType = 'user' | 'agent';

/**
 * Who performs an operation. Every application service method takes one; the company always
 * comes from here, never from input.
 */
export interface Actor {
  type: ActorType;
  uuid: string;
  companyUuid: string;
  name: string;
  /** For an agent: its owner user. Null for users. */
  ownerUuid: string | null;
  /** Effective permission set; users hold every bit inside their company. */
  permissions: ReadonlySet<Permission>;
  /** Agent session named by the call, if any (recorded on activities). */
  session?: { uuid: string; name: string } | null;
}

export const USER_PERMISSIONS: ReadonlySet<Permission> = new Set(ALL_PERMISSIONS);

export function hasPermission(actor: Actor, permission: Permission): boolean {
  return actor.permissions.has(permission);
}
