import { ValidationPipe, type ArgumentMetadata, type ValidationError as ClassValidatorError } from '@nestjs/common';
import { ValidationError, type FieldIssue } from '../errors/app-error.js';
import { cacheValidationMetadata } from './metadata-cache.js';
import { findUnstorableText } from './storable-text.js';
import { REST_CHECKS } from './surfaces.js';

function flatten(errors: ClassValidatorError[], prefix = ''): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const e of errors) {
    const field = e.property ? (prefix ? `${prefix}.${e.property}` : e.property) : prefix;
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

const options = (forbidUnknown: boolean) => ({
  ...REST_CHECKS,
  whitelist: true,
  forbidNonWhitelisted: forbidUnknown,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  validationError: { target: false, value: false },
  exceptionFactory: (errors: ClassValidatorError[]) => new ValidationError('Invalid input', flatten(errors)),
});

/**
 * The global REST pipe: whitelist, transform, VALIDATION_ERROR with dotted `details` (every failed check, except the
 * tools-only ones of surfaces.ts, whose limits the services check with the domain's message). Unknown body fields are
 * refused; unknown query parameters are dropped (cache-busters and tracking parameters must not break a page).
 * A body or query string PostgreSQL cannot store (U+0000, unpaired surrogates) is refused first, whatever the DTO.
 */
const REST_PARAM_TYPES = new Set<unknown>(['body', 'query', 'param', 'custom']);

class RestValidationPipe extends ValidationPipe {
  private readonly queryPipe = new ValidationPipe(options(false));

  constructor() {
    super(options(true));
  }

  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Route parameters only: a tool's arguments (Nest's external context, tool.metadata.ts) have the tool's own pipe.
    if (!REST_PARAM_TYPES.has(metadata.type)) return Promise.resolve(value);
    if (metadata.type === 'body' || metadata.type === 'query') {
      const bad = findUnstorableText(value);
      if (bad) throw new ValidationError('Invalid input', [{ field: metadata.data ? (bad.path ? `${metadata.data}.${bad.path}` : metadata.data) : bad.path, message: bad.message }]);
    }
    return metadata.type === 'query' ? this.queryPipe.transform(value, metadata) : super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  cacheValidationMetadata();
  return new RestValidationPipe();
}
