import type { DataSource } from 'typeorm';
import { ActivityRepository } from '../../src/modules/collaboration/activity.repository.js';
import { CommentRepository } from '../../src/modules/collaboration/comment.repository.js';
import { ReferenceRepository } from '../../src/modules/collaboration/reference.repository.js';
import { SearchRepository } from '../../src/modules/collaboration/search.repository.js';
import { ActivityService, CommentService, MentionService, ReferenceService, SearchService } from '../../src/modules/collaboration/index.js';
import { DocumentRepository } from '../../src/modules/documents/document.repository.js';
import { DocumentService } from '../../src/modules/documents/index.js';
import { ElaborationRepository } from '../../src/modules/ideas/elaboration.repository.js';
import { IdeaRepository } from '../../src/modules/ideas/idea.repository.js';
import { ElaborationService, IdeaService, IdeaTrackerService } from '../../src/modules/ideas/index.js';
import { ProjectGroupRepository } from '../../src/modules/projects/project-group.repository.js';
import { ProjectRepository } from '../../src/modules/projects/project.repository.js';
import { ProjectGroupService, ProjectService } from '../../src/modules/projects/index.js';
import { ProposalRepository } from '../../src/modules/proposals/proposal.repository.js';
import { ProposalApprovalService, ProposalRevocationService, ProposalService } from '../../src/modules/proposals/index.js';
import type { TransactionRunner } from '../../src/shared/database/transaction-runner.js';

/*
 * Domain services wired by hand as their Nest modules wire them: each on its repositories over the data source's
 * manager (README "Architecture"), for tests that build a service without booting a module.
 */

export const projectService = (ds: DataSource, runner: TransactionRunner): ProjectService =>
  new ProjectService(new ProjectRepository(ds.manager), new ProjectGroupRepository(ds.manager), runner);

export const projectGroupService = (ds: DataSource, runner: TransactionRunner): ProjectGroupService =>
  new ProjectGroupService(ds, new ProjectGroupRepository(ds.manager), new ProjectRepository(ds.manager), runner);

export const ideaService = (ds: DataSource, runner: TransactionRunner): IdeaService => new IdeaService(ds, new IdeaRepository(ds.manager), runner);

export const elaborationService = (ds: DataSource, runner: TransactionRunner): ElaborationService =>
  new ElaborationService(ds, new IdeaRepository(ds.manager), new ElaborationRepository(ds.manager), runner);

export const ideaTrackerService = (ds: DataSource): IdeaTrackerService => new IdeaTrackerService(new IdeaRepository(ds.manager));

export const proposalService = (ds: DataSource, runner: TransactionRunner): ProposalService => new ProposalService(ds, new ProposalRepository(ds.manager), runner);

export const proposalApprovalService = (ds: DataSource, runner: TransactionRunner): ProposalApprovalService =>
  new ProposalApprovalService(new ProposalRepository(ds.manager), runner);

export const proposalRevocationService = (ds: DataSource, runner: TransactionRunner): ProposalRevocationService =>
  new ProposalRevocationService(new ProposalRepository(ds.manager), runner);

export const documentService = (ds: DataSource, runner: TransactionRunner): DocumentService => new DocumentService(ds, new DocumentRepository(ds.manager), runner);

export const commentService = (ds: DataSource, runner: TransactionRunner): CommentService => new CommentService(ds, new CommentRepository(ds.manager), runner);

export const referenceService = (ds: DataSource, runner: TransactionRunner): ReferenceService => new ReferenceService(new ReferenceRepository(ds.manager), runner);

export const activityService = (ds: DataSource): ActivityService => new ActivityService(ds, new ActivityRepository(ds.manager), new MentionService());

export const searchService = (ds: DataSource): SearchService => new SearchService(new SearchRepository(ds.manager));
