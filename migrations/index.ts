import { Identity1763780000000 } from './1763780000000-identity.js';
import { Domain1763790000000 } from './1763790000000-domain.js';
import { NotificationIndexes1763795500000 } from './1763795500000-notification-indexes.js';
import { StreamLog1763800000000 } from './1763800000000-stream-log.js';
import { InboxDeltas1763810000000 } from './1763810000000-inbox-deltas.js';
import { OAuth1763820000000 } from './1763820000000-oauth.js';
import { AbuseLimits1763830000000 } from './1763830000000-abuse-limits.js';

/** Every migration, in order. New migrations are appended, never edited once landed. */
export const MIGRATIONS = [Identity1763780000000, Domain1763790000000, NotificationIndexes1763795500000, StreamLog1763800000000, InboxDeltas1763810000000, OAuth1763820000000, AbuseLimits1763830000000];
