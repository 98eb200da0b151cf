import type { ActorType } from '../auth/actor.js';
import type { Person } from '../database/person.js';
import { Prop } from './response-fields.js';

/** A person in a record (domain.md §1 "Person rendering"): `{type, uuid, name}`. */
export class PersonDto implements Person {
  @Prop.string({ description: 'user or agent' }) type: ActorType;
  @Prop.string() uuid: string;
  @Prop.string({ description: "An agent's name; a user's name, or email when it has none" }) name: string;
}

/** The assignee of an idea or a task (tools.md §5.9): the person, when and by whom. */
export class AssigneeDto extends PersonDto {
  @Prop.string({ nullable: true }) assignedAt: string | null;
  @Prop.nested(PersonDto, { nullable: true }) assignedBy: PersonDto | null;
}
