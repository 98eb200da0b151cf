/** The permission model of docs/tool-conventions.md §4: 5 resources × 3 actions, three presets, effective set = preset ∪ custom. */
export const RESOURCES = ['idea', 'proposal', 'document', 'task', 'project'] as const;
export const ACTIONS = ['read', 'write', 'admin'] as const;
export type Resource = (typeof RESOURCES)[number];
export type Action = (typeof ACTIONS)[number];
export type Permission = `${Resource}:${Action}`;

export const ALL_PERMISSIONS: readonly Permission[] = RESOURCES.flatMap((r) => ACTIONS.map((a) => `${r}:${a}` as Permission));
const CANONICAL_INDEX = new Map<string, number>(ALL_PERMISSIONS.map((p, i) => [p, i]));

export const PRESETS = ['developer_agent', 'pm_agent', 'admin_agent'] as const;
export type Preset = (typeof PRESETS)[number];

const READS = RESOURCES.map((r) => `${r}:read` as Permission);
export const PRESET_PERMISSIONS: Record<Preset, readonly Permission[]> = {
  developer_agent: [...READS, 'task:write'],
  pm_agent: [...READS, 'idea:write', 'proposal:write', 'document:write', 'task:write', 'project:write'],
  admin_agent: ALL_PERMISSIONS,
};

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && CANONICAL_INDEX.has(value);
}

export function isPreset(value: unknown): value is Preset {
  return typeof value === 'string' && (PRESETS as readonly string[]).includes(value);
}

/** De-duplicates and sorts into canonical order (resource order, then action order). */
export function canonicalPermissions(perms: Iterable<Permission>): Permission[] {
  return [...new Set(perms)].sort((a, b) => CANONICAL_INDEX.get(a)! - CANONICAL_INDEX.get(b)!);
}

export function effectivePermissions(preset: Preset, custom: readonly Permission[]): Permission[] {
  return canonicalPermissions([...PRESET_PERMISSIONS[preset], ...custom]);
}
