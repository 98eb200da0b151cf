export { OAuthModule } from './oauth.module.js';
export { OAuthGrants, type GrantRecord } from './oauth-grants.js';
export { OAUTH_TEST_OPTIONS } from './oauth-server.js';
export { REGISTRATION_THROTTLER } from './registration.guard.js';
