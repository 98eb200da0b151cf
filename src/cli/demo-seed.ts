import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { ActorType } from '../shared/auth/actor.js';
import { PRESETS, type Preset } from '../shared/auth/permissions.js';
import { ConflictError } from '../shared/errors/app-error.js';
import { generatePassword } from '../modules/identity/domain/credentials.js';
import type { CliCommand } from './cli-command.js';
import { identityServices } from './cli-services.js';
import { AcceptanceCriterionEntity, CompanyEntity, IdeaEntity, ProjectEntity, TaskDependencyEntity, TaskEntity } from '../entities.js';

/**
 * `demo seed` (docs/platform.md §10). Identity goes through the real services; the project content is inserted as rows in
 * one transaction because the domain services are built in parallel — switch this file to them once they exist.
 */
export const DEMO_EMAIL = 'demo@example.com';

const AGENT_NAMES: Record<Preset, string> = {
  developer_agent: 'Demo Developer Agent',
  pm_agent: 'Demo PM Agent',
  admin_agent: 'Demo Admin Agent',
};

export interface DemoSeedResult {
  company: { uuid: string; name: string };
  user: { email: string; password: string };
  agents: Array<{ preset: Preset; uuid: string; name: string; key: string }>;
  project: { uuid: string; name: string };
}

export async function demoSeed(ds: DataSource): Promise<DemoSeedResult> {
  const { admin, agents: agentService } = await identityServices(ds);
  if (await admin.userExists(DEMO_EMAIL)) throw new ConflictError(`A user with email ${DEMO_EMAIL} already exists`);
  const company = await admin.createCompany('Demo Company');
  try {
    const password = generatePassword();
    const user = await admin.createUser({ companyUuid: company.uuid, email: DEMO_EMAIL, name: 'Demo User', password });
    const scope = { companyUuid: company.uuid, userUuid: user.uuid };
    const agents: DemoSeedResult['agents'] = [];
    for (const preset of PRESETS) {
      const agent = await agentService.create(scope, user.uuid, { name: AGENT_NAMES[preset], preset });
      const { key } = await agentService.createKey(scope, agent.uuid, { name: 'demo' });
      agents.push({ preset, uuid: agent.uuid, name: agent.name, key });
    }
    const byPreset = (p: Preset): string => agents.find((a) => a.preset === p)!.uuid;
    const project = await ds.transaction((em) =>
      seedProject(em, company.uuid, { user: user.uuid, developer: byPreset('developer_agent'), pm: byPreset('pm_agent') }),
    );
    return { company, user: { email: user.email, password }, agents, project };
  } catch (err) {
    // Leave nothing half-seeded behind; the company cascades to everything created above.
    await ds.getRepository(CompanyEntity).delete({ uuid: company.uuid }).catch(() => undefined);
    throw err;
  }
}

interface Cast {
  user: string;
  developer: string;
  pm: string;
}

type CriterionSeed = { description: string; required?: boolean; passed?: boolean; selfChecked?: boolean };

async function seedProject(em: EntityManager, companyUuid: string, who: Cast): Promise<{ uuid: string; name: string }> {
  const now = new Date();
  const project = await em.save(
    em.create(ProjectEntity, {
      uuid: randomUUID(),
      companyUuid,
      groupUuid: null,
      name: 'Demo Project',
      description: 'A small sample project: ideas in several states and tasks with acceptance criteria and a dependency.',
    }),
  );
  const byUser = { createdByType: 'user' as ActorType, createdByUuid: who.user };
  const idea = (fields: Partial<IdeaEntity>): IdeaEntity =>
    em.create(IdeaEntity, {
      uuid: randomUUID(), companyUuid, projectUuid: project.uuid, content: '', status: 'open', isContainer: false, parentUuid: null,
      assigneeType: null, assigneeUuid: null, assignedAt: null, assignedByType: null, assignedByUuid: null,
      elaborationDepth: null, elaborationStatus: null, ...byUser, ...fields,
    });
  const claimedByPm = { assigneeType: 'agent' as ActorType, assigneeUuid: who.pm, assignedAt: now, assignedByType: 'agent' as ActorType, assignedByUuid: who.pm };
  await em.save([
    idea({ title: 'Dark mode for the dashboard', content: 'Offer a dark colour scheme that follows the system setting.' }),
    idea({ title: 'Weekly email digest', content: 'Summarise the week\'s finished tasks for every user.', status: 'elaborating', ...claimedByPm }),
    idea({
      title: 'Guided onboarding checklist', content: 'New users get a checklist of first steps.', status: 'elaborated',
      elaborationDepth: 'minimal', elaborationStatus: 'resolved', ...claimedByPm,
    }),
  ]);

  const assignedToDev = { assigneeType: 'agent' as ActorType, assigneeUuid: who.developer, assignedAt: now, assignedByType: 'user' as ActorType, assignedByUuid: who.user };
  const task = async (fields: Partial<TaskEntity>, criteria: CriterionSeed[]): Promise<TaskEntity> => {
    const t = await em.save(
      em.create(TaskEntity, {
        uuid: randomUUID(), companyUuid, projectUuid: project.uuid, proposalUuid: null, description: '', status: 'open', priority: 'medium',
        storyPoints: null, assigneeType: null, assigneeUuid: null, assignedAt: null, assignedByType: null, assignedByUuid: null, ...byUser, ...fields,
      }),
    );
    await em.save(
      criteria.map((c, i) =>
        em.create(AcceptanceCriterionEntity, {
          uuid: randomUUID(), taskUuid: t.uuid, description: c.description, required: c.required ?? true, sortOrder: i,
          devStatus: c.selfChecked || c.passed ? 'passed' : 'pending', devEvidence: null,
          devMarkedByType: c.selfChecked || c.passed ? 'agent' : null, devMarkedByUuid: c.selfChecked || c.passed ? who.developer : null,
          devMarkedAt: c.selfChecked || c.passed ? now : null,
          status: c.passed ? 'passed' : 'pending', evidence: null,
          markedByType: c.passed ? 'user' : null, markedByUuid: c.passed ? who.user : null, markedAt: c.passed ? now : null,
        }),
      ),
    );
    return t;
  };
  const steps = await task(
    { title: 'Define the onboarding checklist steps', status: 'done', priority: 'high', storyPoints: 2, ...assignedToDev },
    [{ description: 'The steps are listed in the project documents', passed: true }, { description: 'Each step has a short help text', passed: true }],
  );
  const api = await task(
    { title: 'Build the onboarding checklist API', description: 'Store progress per user.', status: 'in_progress', priority: 'high', storyPoints: 5, ...assignedToDev },
    [{ description: 'Progress is stored per user' }, { description: 'Completed steps can be reset', required: false }],
  );
  const ui = await task(
    { title: 'Show the checklist on first login', storyPoints: 3 },
    [{ description: 'The checklist appears until every step is done' }],
  );
  await task(
    { title: 'Write the onboarding user guide', status: 'to_verify', priority: 'low', storyPoints: 1, ...assignedToDev },
    [{ description: 'The guide covers every checklist step', selfChecked: true }],
  );
  await em.save([
    em.create(TaskDependencyEntity, { taskUuid: api.uuid, dependsOnUuid: steps.uuid }),
    em.create(TaskDependencyEntity, { taskUuid: ui.uuid, dependsOnUuid: api.uuid }),
  ]);
  return { uuid: project.uuid, name: project.name };
}

export const DEMO_SEED_COMMAND: CliCommand = {
  path: ['demo', 'seed'],
  synopsis: '',
  options: {},
  run: ({ dataSource }) => demoSeed(dataSource),
};
