import { ValidateBy, type ValidationArguments } from 'class-validator';
import { WAIT_ALONE_MESSAGE } from '../inbox-inputs.js';

/**
 * The check behind a parsing `@Transform`: the transform left null (or nothing, for a required field) where the
 * input did not parse, and that is refused with the field's own message.
 */
export const Parsed = (message: string): PropertyDecorator =>
  ValidateBy({ name: 'parsed', validator: { validate: (v: unknown) => v !== null && v !== undefined, defaultMessage: () => message } });

/** `waitSeconds` only comes with `after` (a wait is a delta's); an unparsed value is refused by its own check. */
export const RequiresAfter = (): PropertyDecorator =>
  ValidateBy({
    name: 'requiresAfter',
    validator: {
      validate: (v: unknown, args?: ValidationArguments) => v === null || (args?.object as { after?: unknown }).after !== undefined,
      defaultMessage: () => WAIT_ALONE_MESSAGE,
    },
  });
