import { Injectable } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { AppConfig } from '../../config/config.js';
import { BUS_EVENTS, type SessionEnded } from '../../shared/event-bus/events.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { AuthService } from '../identity/index.js';
import type { StreamKind } from './feed-hub.js';

export type EndReason = 'client' | 'logout' | 'session_expired' | 'shutdown' | 'slow_client';

/** One open stream, as far as who may keep it open is concerned. */
export interface Connection {
  readonly kind: StreamKind;
  readonly sessionUuid: string | null;
  /** Ends the stream (its Observable completes; Nest ends the response). */
  readonly end: () => void;
  ended: EndReason | null;
}

/**
 * Who holds which stream on this instance (docs/sse.md): at most SSE_MAX_STREAMS_PER_USER per user (the stream limit
 * guard reserves a slot, the response's close gives it back), and every stream belongs to the session that opened
 * it — a logout anywhere (a session-ended bus message) ends that session's streams here, and `checkSessions` (at
 * every heartbeat) ends those whose session expired or was deleted, asking identity which are still alive.
 */
@Injectable()
export class StreamConnections {
  private readonly open = new Set<Connection>();
  private readonly bySession = new Map<string, Set<Connection>>();
  private readonly perUser = new Map<string, number>();

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly auth: AuthService,
  ) {}

  /** Reserves one of the user's streams on this instance; false when at the limit. */
  reserve(userUuid: string): boolean {
    const n = this.perUser.get(userUuid) ?? 0;
    if (n >= this.config.sseMaxStreamsPerUser) return false;
    this.perUser.set(userUuid, n + 1);
    return true;
  }

  release(userUuid: string): void {
    const n = (this.perUser.get(userUuid) ?? 1) - 1;
    if (n <= 0) this.perUser.delete(userUuid);
    else this.perUser.set(userUuid, n);
  }

  add(kind: StreamKind, sessionUuid: string | null, end: () => void): Connection {
    const conn: Connection = { kind, sessionUuid, end, ended: null };
    this.open.add(conn);
    if (sessionUuid) {
      let set = this.bySession.get(sessionUuid);
      if (!set) this.bySession.set(sessionUuid, (set = new Set()));
      set.add(conn);
    }
    this.metrics.sseConnections.inc({ stream: kind });
    return conn;
  }

  /** The stream is over; `transport` is how the transport ended it, if it did (a slow client it cut). */
  remove(conn: Connection, transport: EndReason | null): void {
    if (!this.open.delete(conn)) return;
    if (conn.sessionUuid) {
      const set = this.bySession.get(conn.sessionUuid);
      set?.delete(conn);
      if (set?.size === 0) this.bySession.delete(conn.sessionUuid);
    }
    this.metrics.sseConnections.dec({ stream: conn.kind });
    conn.ended ??= transport;
    if (conn.ended === 'slow_client') this.metrics.sseSlowDisconnects.inc({ stream: conn.kind });
    this.metrics.streamsEnded.inc({ stream: conn.kind, reason: conn.ended ?? 'client' });
  }

  get size(): number {
    return this.open.size;
  }

  /** Logout on some instance: that session's streams end here too. */
  @OnEvent(BUS_EVENTS.session)
  onSessionEnded(m: SessionEnded): void {
    this.endSession(m.sessionUuid, 'logout');
  }

  endSession(sessionUuid: string, reason: EndReason): void {
    for (const conn of [...(this.bySession.get(sessionUuid) ?? [])]) this.endOne(conn, reason);
  }

  endAll(reason: EndReason): void {
    for (const conn of [...this.open]) this.endOne(conn, reason);
  }

  /** Streams of sessions that expired or were deleted end (one query for all of them). */
  async checkSessions(): Promise<void> {
    const ids = [...this.bySession.keys()];
    if (!ids.length) return;
    const alive = await this.auth.liveSessions(ids);
    for (const id of ids) if (!alive.has(id)) this.endSession(id, 'session_expired');
  }

  private endOne(conn: Connection, reason: EndReason): void {
    conn.ended ??= reason;
    conn.end();
  }
}
