import type { ActorType } from '../auth/actor.js';
import type { Person } from '../database/person.js';
import { Prop } from './response-fields.js';

/** A person in a record: `{type, uuid, name}` (shared/database/person.ts renders it). */
export class PersonDto implements Person {
  @Prop.string({ description: 'user or agent' }) type: ActorType;
  @Prop.string() uuid: string;
  @Prop.string({ description: "An agent's name; a user's name, or email when it has none" }) name: string;
}

/** The assignee of an idea or a task: the person, when and by whom. */
export class AssigneeDto extends PersonDto {
  @Prop.string({ nullable: true }) assignedAt: string | null;
  @Prop.nested(PersonDto, { nullable: true }) assignedBy: PersonDto | null;
}
