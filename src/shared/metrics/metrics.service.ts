import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry for the process; modules add their metrics here (docs/platform.md §11). */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  /** Streams are not requests: their lifetimes would make the request histogram's percentiles meaningless. */
  readonly sseStreamDuration = new Histogram({
    name: 'svc_sse_stream_duration_seconds',
    help: 'Lifetime of SSE streams by route pattern',
    labelNames: ['route'] as const,
    buckets: [1, 10, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600],
    registers: [this.registry],
  });

  /** Long-polls (notification waits) are not latencies either: they last as long as nothing happens. */
  readonly httpWaitDuration = new Histogram({
    name: 'svc_http_wait_duration_seconds',
    help: 'Duration of long-poll requests (waits) by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 20, 30, 35],
    registers: [this.registry],
  });

  readonly sseConnections = new Gauge({
    name: 'svc_sse_connections',
    help: 'Open SSE streams by stream',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly eventsPublished = new Counter({
    name: 'svc_events_published_total',
    help: 'Events published on the bus by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly eventsDelivered = new Counter({
    name: 'svc_events_delivered_total',
    help: 'Frames written to SSE streams by stream',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly eventsRelayed = new Counter({
    name: 'svc_events_relayed_total',
    help: 'Events received from other instances over the shared channel, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly busPublishFailures = new Counter({
    name: 'svc_bus_publish_failures_total',
    help: 'Publishes to the shared channel that failed or were skipped while it was down',
    registers: [this.registry],
  });

  /** Subjects this instance subscribes to, by kind: change, notification (held by interest), control (always). */
  readonly busSubscriptions = new Gauge({
    name: 'svc_bus_subscriptions',
    help: 'NATS subjects this instance subscribes to, by kind: change and notification (while someone here is interested, plus the linger), control (always)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly busSubscribes = new Counter({
    name: 'svc_bus_subscribes_total',
    help: 'Interest subscriptions made on the shared channel, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly busUnsubscribes = new Counter({
    name: 'svc_bus_unsubscribes_total',
    help: 'Interest subscriptions ended after their linger, by kind',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  /** Everything the bus adapter receives, its own echoes and malformed bodies included: an idle instance shows 0 here. */
  readonly busMessagesReceived = new Counter({
    name: 'svc_bus_messages_received_total',
    help: 'Messages the bus adapter received from the shared channel, by kind (own echoes and malformed bodies included)',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly sseSlowDisconnects = new Counter({
    name: 'svc_sse_slow_client_disconnects_total',
    help: 'SSE clients disconnected because their unsent buffer exceeded 1 MiB',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly streamResumes = new Counter({
    name: 'svc_stream_resume_total',
    help: 'Stream starts by outcome: fresh (no Last-Event-ID), replayed (resumed from memory or the log), reset',
    labelNames: ['stream', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly streamReplayedFrames = new Counter({
    name: 'svc_stream_replayed_frames_total',
    help: 'Frames replayed to resuming streams',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly streamGapsRepaired = new Counter({
    name: 'svc_stream_gaps_repaired_total',
    help: 'Holes in a key\'s positions (out of order, lost in transit, channel outage) filled from the log',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly streamRepairedFrames = new Counter({
    name: 'svc_stream_repaired_frames_total',
    help: 'Frames delivered from the log by gap repairs',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly streamResets = new Counter({
    name: 'svc_stream_resets_total',
    help: 'reset frames sent to every stream of a key whose missed frames were no longer in the log',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly sseResets = new Counter({
    name: 'svc_sse_resets_total',
    help: 'reset frames sent to streams, by reason: lagging (fell more than SSE_LAG_MS behind), resume (a position that cannot be resumed from), log (positions lost from the log)',
    labelNames: ['stream', 'reason'] as const,
    registers: [this.registry],
  });

  readonly streamDuplicates = new Counter({
    name: 'svc_stream_duplicates_dropped_total',
    help: 'Frames dropped by the sequencer as already delivered',
    labelNames: ['stream'] as const,
    registers: [this.registry],
  });

  readonly streamsEnded = new Counter({
    name: 'svc_sse_streams_ended_total',
    help: 'SSE streams ended, by reason: client, logout, session_expired, shutdown, slow_client',
    labelNames: ['stream', 'reason'] as const,
    registers: [this.registry],
  });

  readonly streamLogReads = new Counter({
    name: 'svc_stream_log_reads_total',
    help: 'Queries on the stream log by purpose: head, replay, repair',
    labelNames: ['purpose'] as const,
    registers: [this.registry],
  });

  readonly mcpCalls = new Counter({
    name: 'svc_mcp_calls_total',
    help: 'Tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly mcpDuration = new Histogram({
    name: 'svc_mcp_call_duration_seconds',
    help: 'Tool call duration by tool',
    labelNames: ['tool'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  /** Credentials the tool endpoint turned away (401): none sent, an unknown / revoked key, an invalid OAuth token. */
  readonly mcpAuthRejected = new Counter({
    name: 'svc_mcp_auth_rejected_total',
    help: 'Tool endpoint requests refused for their credential, by kind: missing, key, token',
    labelNames: ['credential'] as const,
    registers: [this.registry],
  });

  readonly oauthClientsRegistered = new Counter({
    name: 'svc_oauth_clients_registered_total',
    help: 'OAuth clients registered dynamically',
    registers: [this.registry],
  });

  readonly oauthTokensIssued = new Counter({
    name: 'svc_oauth_tokens_issued_total',
    help: 'OAuth token endpoint successes by grant type: authorization_code, refresh_token',
    labelNames: ['grant_type'] as const,
    registers: [this.registry],
  });

  readonly oauthErrors = new Counter({
    name: 'svc_oauth_errors_total',
    help: "The authorization server's error events by event (authorization.error, grant.error, server_error, ...)",
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  /** Logins answered 429 (docs/platform.md §2.1), each once, by the broadest rule that refused it. */
  readonly loginThrottled = new Counter({
    name: 'svc_login_throttled_total',
    help: 'Sign-ins (login route and OAuth sign-in form) refused with 429, by rule: address (100 failures from one client address), email (50 failures for one email), pair (10 failures for one email from one address)',
    labelNames: ['rule'] as const,
    registers: [this.registry],
  });

  readonly oauthRegistrationsRefused = new Counter({
    name: 'svc_oauth_registrations_refused_total',
    help: 'Dynamic client registrations refused with 429 (more than 20 per client address per hour, all instances together)',
    registers: [this.registry],
  });

  readonly oauthClientsPruned = new Counter({
    name: 'svc_oauth_clients_pruned_total',
    help: 'Registered OAuth clients deleted in the background, by reason: no_grant (no grant 7 days after registration), unused (every grant unused for 90 days)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_process_' });
  }
}
