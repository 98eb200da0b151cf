import type { ExecutionContext } from '@nestjs/common';
import { REGISTRATION_THROTTLER, RegistrationRoute } from './registration.guard.js';

class Routes {
  @RegistrationRoute()
  register(): void {}

  other(): void {}
}

const on = (handler: () => void) => ({ getHandler: () => handler }) as unknown as ExecutionContext;

describe('the registration throttler', () => {
  it('counts only the route marked as registration, whatever guard runs it (other throttlers may guard other routes)', () => {
    expect(REGISTRATION_THROTTLER.skipIf!(on(Routes.prototype.register))).toBe(false);
    expect(REGISTRATION_THROTTLER.skipIf!(on(Routes.prototype.other))).toBe(true);
  });

  it('is 20 per hour, in the store every instance shares', () => {
    expect(REGISTRATION_THROTTLER).toMatchObject({ name: 'oauth-registration', limit: 20, ttl: 3_600_000, store: 'shared' });
  });
});
