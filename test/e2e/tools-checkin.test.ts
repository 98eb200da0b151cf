import { HttpClient } from '../utils/http.js';
import { callTool, mcpClient } from '../utils/mcp-client.js';
import { World } from '../utils/world.js';
import type { Client } from '@modelcontextprotocol/client';

describe('svc_checkin and the notification tools (e2e, SDK client)', () => {
  let app: World;
  let http: HttpClient;
  let client: Client;
  let agentUuid: string;
  let owner: { uuid: string; name: string; email: string };
  let projects: string[];
  let ideaUuid: string;

  /** A user comment mentioning the agent: one `mentioned` notification for it. */
  const mention = async (projectIdx = 0) => {
    const res = await http.post('/api/comments', { targetType: 'idea', targetUuid: projectIdx === 0 ? ideaUuid : ideaInSecond, content: `ping @[Bot](agent:${agentUuid})` });
    expect(res.status).toBe(201);
  };
  let ideaInSecond: string;

  beforeAll(async () => {
    app = await World.start();
    const f = app.ids;
    const company = await f.company();
    const user = await f.user(company.uuid, { name: 'Owner Person' });
    owner = { uuid: user.uuid, name: user.name, email: user.email };
    const { agent, key } = await f.agent(company.uuid, user.uuid, { preset: 'pm_agent', name: 'Bot' });
    agentUuid = agent.uuid;
    http = new HttpClient(app.url);
    await http.login(user.email, user.password);
    projects = [];
    for (const name of ['P1', 'P2']) projects.push((await http.post('/api/projects', { name })).body.data.uuid);
    client = await mcpClient(app.url, key, { 'X-Service-Project': projects[1] });
    // 12 ideas claimed by the agent, alternating projects, so the checkin tracker must cut to the newest 10.
    for (let i = 0; i < 12; i++) {
      const created = await callTool(client, 'svc_pm_create_idea', { projectUuid: projects[i % 2], title: `Idea ${i}` });
      expect(created.isError).toBe(false);
      expect((await callTool(client, 'svc_claim_idea', { ideaUuid: created.data.uuid })).isError).toBe(false);
    }
    ideaUuid = (await http.post(`/api/projects/${projects[0]}/ideas`, { title: 'Mention host' })).body.data.uuid;
    ideaInSecond = (await http.post(`/api/projects/${projects[1]}/ideas`, { title: 'Mention host 2' })).body.data.uuid;
  }, 60000);
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('checks in: identity with effective permissions and owner, the ten newest ideas across projects, headers ignored', async () => {
    for (let i = 0; i < 7; i++) await mention();
    const res = await callTool(client, 'svc_checkin');
    expect(res.isError).toBe(false);
    expect(res.data.agent).toEqual({
      uuid: agentUuid,
      name: 'Bot',
      permissions: ['idea:read', 'idea:write', 'proposal:read', 'proposal:write', 'document:read', 'document:write', 'task:read', 'task:write', 'project:read', 'project:write'],
      owner,
    });
    const ideas = Object.values(res.data.ideaTracker as Record<string, { name: string; ideas: Array<{ title: string; updatedAt: string }> }>).flatMap((p) => p.ideas);
    expect(ideas).toHaveLength(10);
    // Both projects appear although the request carried X-Service-Project of the second one only.
    expect(Object.keys(res.data.ideaTracker).sort()).toEqual([...projects].sort());
    const titles = ideas.map((i) => i.title);
    expect(titles).not.toContain('Idea 0');
    expect(titles).not.toContain('Idea 1');
    // The summary: the 5 newest unread, then marked read; `unread` counted after the marking.
    expect(res.data.notifications.recent).toHaveLength(5);
    expect(res.data.notifications.unread).toBe(2);
    expect(res.data.notifications.recent[0]).toEqual({
      uuid: expect.any(String), action: 'mentioned', entityType: 'idea', entityUuid: ideaUuid, entityTitle: 'Mention host',
      projectUuid: projects[0], actorName: 'Owner Person', message: expect.stringContaining('Owner Person mentioned you'), createdAt: expect.any(String),
    });
    const again = await callTool(client, 'svc_checkin');
    expect(again.data.notifications.recent).toHaveLength(2);
    expect(again.data.notifications.unread).toBe(0);
    const agentRecord = await http.get(`/api/agents/${agentUuid}`);
    expect(agentRecord.body.data.lastActiveAt).not.toBeNull();
  });

  it('lists unread notifications and marks the returned ones read unless autoMarkRead is false', async () => {
    await mention();
    await mention(1);
    const peek = await callTool(client, 'svc_get_notifications', { autoMarkRead: false });
    expect(peek.data).toMatchObject({ page: 1, pageSize: 20, total: 2, unreadCount: 2 });
    const onlySecond = await callTool(client, 'svc_get_notifications', { projectUuid: projects[1], autoMarkRead: false });
    expect(onlySecond.data.notifications.map((n: { projectUuid: string }) => n.projectUuid)).toEqual([projects[1]]);
    const got = await callTool(client, 'svc_get_notifications', {});
    expect(got.data.notifications).toHaveLength(2);
    expect(got.data.notifications.every((n: { readAt: string | null }) => n.readAt === null)).toBe(true);
    expect(got.data.unreadCount).toBe(0);
    const read = await callTool(client, 'svc_get_notifications', { status: 'read', pageSize: 100 });
    expect(read.data.total).toBe(9);
    const all = await callTool(client, 'svc_get_notifications', { status: 'all', pageSize: 1, page: 2 });
    expect(all.data).toMatchObject({ page: 2, pageSize: 1, total: 9 });
    const bad = await callTool(client, 'svc_get_notifications', { status: 'unknown' });
    expect(bad.isError).toBe(true);
    expect(bad.data.error.code).toBe('VALIDATION_ERROR');
  });

  it('marks one or all notifications read, with its guards', async () => {
    await mention();
    await mention(1);
    const [first] = (await callTool(client, 'svc_get_notifications', { autoMarkRead: false })).data.notifications;
    const one = await callTool(client, 'svc_mark_notification_read', { notificationUuid: first.uuid });
    expect(one.isError).toBe(false);
    expect(one.data.notification.uuid).toBe(first.uuid);
    expect(one.data.notification.readAt).not.toBeNull();
    const all = await callTool(client, 'svc_mark_notification_read', { all: true, projectUuid: projects[1] });
    expect(all.data).toEqual({ count: first.projectUuid === projects[1] ? 0 : 1 });
    for (const args of [{}, { notificationUuid: first.uuid, all: true }]) {
      const res = await callTool(client, 'svc_mark_notification_read', args);
      expect(res).toEqual({ isError: true, data: { error: { code: 'VALIDATION_ERROR', message: 'notificationUuid or all=true required' } } });
    }
    const missing = await callTool(client, 'svc_mark_notification_read', { notificationUuid: '00000000-0000-4000-8000-000000000000' });
    expect(missing).toEqual({ isError: true, data: { error: { code: 'NOT_FOUND', message: 'Notification not found' } } });
  });
});
