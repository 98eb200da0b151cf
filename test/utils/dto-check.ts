import { ToolArguments } from '../../src/modules/tool-kit/tool-arguments.js';
import { AppError } from '../../src/shared/errors/app-error.js';
import { createValidationPipe } from '../../src/shared/validation/validation.pipe.js';

type Dto = new () => object;

/** The dotted paths a tool refuses `args` with when they are validated against `dto`; [] when accepted. */
export function toolPaths(dto: Dto, args: unknown): string[] {
  const parsed = new ToolArguments(dto).parse(args);
  return parsed.ok ? [] : parsed.issues.map((i) => i.path);
}

const pipe = createValidationPipe();

/** The `details` fields a REST route refuses `body` with when its body DTO is `dto`; [] when accepted. */
export async function restFields(dto: Dto, body: unknown): Promise<string[]> {
  try {
    await pipe.transform(body, { type: 'body', metatype: dto, data: '' });
    return [];
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
    return [...new Set(((err.extra.details ?? []) as Array<{ field: string }>).map((d) => d.field))];
  }
}
