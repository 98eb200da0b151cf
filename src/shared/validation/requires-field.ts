import { ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * The field, when given, needs `other` as well (e.g. a target uuid needs its target type). Written above the field's
 * own decorator so that it runs after the field's checks.
 */
export const RequiresField = (other: string): PropertyDecorator =>
  ValidateBy({
    name: 'requiresField',
    constraints: [other],
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => value === undefined || (args?.object as Record<string, unknown> | undefined)?.[other] !== undefined,
      defaultMessage: () => `requires ${other}`,
    },
  });
