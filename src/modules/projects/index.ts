export { ProjectEntity, ProjectGroupEntity } from './project.entity.js';
