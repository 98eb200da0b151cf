import { ALL_PERMISSIONS, canonicalPermissions, effectivePermissions, isPermission, isPreset } from './permissions.js';

describe('permissions', () => {
  it('has 15 bits in canonical order', () => {
    expect(ALL_PERMISSIONS).toHaveLength(15);
    expect(ALL_PERMISSIONS.slice(0, 4)).toEqual(['idea:read', 'idea:write', 'idea:admin', 'proposal:read']);
  });

  it('computes the three presets', () => {
    expect(effectivePermissions('developer_agent', [])).toEqual([
      'idea:read', 'proposal:read', 'document:read', 'task:read', 'task:write', 'project:read',
    ]);
    expect(effectivePermissions('pm_agent', [])).toHaveLength(10);
    expect(effectivePermissions('pm_agent', [])).not.toContain('task:admin');
    expect(effectivePermissions('admin_agent', [])).toEqual(ALL_PERMISSIONS);
  });

  it('adds custom bits without duplicates', () => {
    const set = effectivePermissions('developer_agent', ['idea:admin', 'task:write']);
    expect(set).toHaveLength(7);
    expect(set.indexOf('idea:admin')).toBe(1);
  });

  it('validates bits and presets', () => {
    expect(isPermission('x:y')).toBe(false);
    expect(isPermission('task:admin')).toBe(true);
    expect(isPreset('pm_agent')).toBe(true);
    expect(isPreset('root')).toBe(false);
    expect(canonicalPermissions(['project:admin', 'idea:read', 'idea:read'])).toEqual(['idea:read', 'project:admin']);
  });
});
