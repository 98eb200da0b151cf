import { IntersectionType } from '@nestjs/swagger';
import { TextField, UuidArgs, UuidField } from '../../../shared/validation/fields.js';
import { MAX_LONG_TEXT, MAX_TITLE } from '../../../shared/validation/text-rules.js';

/**
 * Inputs of the project tools (docs/tool-conventions.md §5.1, §5.8) and routes (docs/platform.md §9). Text limits (names 1-200 after
 * trimming, descriptions up to 100,000) are the service's on REST, so REST answers with the domain's message; the
 * tools check them here.
 */
const BY_SERVICE = { limits: 'service' } as const;
const description = (optional = true) => TextField({ ...BY_SERVICE, optional, maxLength: MAX_LONG_TEXT, description: 'Description' });

export class ProjectRefDto extends UuidArgs('projectUuid', 'Project uuid') {}
export class GroupRefDto extends UuidArgs('groupUuid', 'Project group uuid') {}

export class CreateProjectDto {
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: MAX_TITLE, example: 'Checkout', description: 'Project name, 1-200 characters' }) name: string;
  @description() description?: string;
  @UuidField({ optional: true, description: 'Project group to put the project in' }) groupUuid?: string;
}

/** REST only; svc_admin_move_project_to_group is its `groupUuid` part. */
export class UpdateProjectDto {
  @TextField({ ...BY_SERVICE, optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New name, 1-200 characters' }) name?: string;
  @description() description?: string;
  @UuidField({ optional: true, nullable: true, description: 'null takes the project out of its group' }) groupUuid?: string | null;
}

export class MoveProjectArgsDto extends ProjectRefDto {
  // The key is required: an explicit null is the only way to ungroup.
  @UuidField({ nullable: true, description: 'Target project group uuid, or null to take the project out of every group' }) groupUuid: string | null;
}

export class CreateProjectGroupDto {
  @TextField({ ...BY_SERVICE, minLength: 1, maxLength: MAX_TITLE, description: 'Group name, 1-200 characters' }) name: string;
  @description() description?: string;
}

export class UpdateProjectGroupDto {
  @TextField({ ...BY_SERVICE, optional: true, minLength: 1, maxLength: MAX_TITLE, description: 'New name, 1-200 characters' }) name?: string;
  @description() description?: string;
}

export class UpdateProjectGroupArgsDto extends IntersectionType(GroupRefDto, UpdateProjectGroupDto) {}
