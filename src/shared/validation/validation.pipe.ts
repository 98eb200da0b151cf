import { ValidationPipe, type ValidationError as ClassValidatorError } from '@nestjs/common';
import { ValidationError, type FieldIssue } from '../errors/app-error.js';

function flatten(errors: ClassValidatorError[], prefix = ''): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    for (const msg of Object.values(e.constraints ?? {})) {
      // class-validator messages start with the property name; the field already says it.
      const message = msg.startsWith(`property ${e.property} `)
        ? msg.slice(`property ${e.property} `.length)
        : msg.startsWith(`${e.property} `)
          ? msg.slice(e.property.length + 1)
          : msg;
      out.push({ field, message });
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/** The global REST pipe: whitelist, reject unknown fields, transform, and VALIDATION_ERROR with dotted `details`. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationError('Invalid input', flatten(errors)),
  });
}
