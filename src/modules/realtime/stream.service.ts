import { Inject, Injectable, type BeforeApplicationShutdown, type MessageEvent } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { Logger } from 'pino';
import { Observable, type Subscriber } from 'rxjs';
import { AppConfig } from '../../config/config.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';
import { formatPosition, recipientKey, type StreamName } from '../../shared/stream-log/position.js';
import { FeedHub, type Member, type StreamKind } from './feed-hub.js';
import { asMessages, CONNECTED, framesOf, isReset, type PositionedEvent } from './frames.js';
import type { KeyState } from './key-state.js';
import { errText, PositionSequencer } from './position-sequencer.js';
import { StreamConnections, type EndReason } from './stream-connections.js';
import { StreamReplayer, type Start } from './stream-replayer.js';

/** A client whose unsent events pass this many characters is disconnected (docs/sse.md, `@Sse` option). */
export const MAX_UNSENT_BYTES = 1024 * 1024;

export type { EndReason } from './stream-connections.js';

/** The scheduler's name of the streams' heartbeat (a comment to every stream, the sessions and heads audit). */
const HEARTBEAT_INTERVAL = 'sse-heartbeat';

/** Who opened a stream, from where it resumes, and how it wants its frames. */
export interface StreamRequest {
  sessionUuid: string | null;
  /** `Last-Event-ID` (header, else `lastEventId` query), or null. */
  lastEventId: string | null;
  /** `batch=1`: consecutive frames may arrive joined as one `event: batch` frame. */
  batch: boolean;
  /** Read when the stream ends: how the transport ended it, if it did (a client it cut for not reading). */
  endedBy?: () => EndReason | null;
}

/**
 * Both SSE streams (docs/sse.md), as the Observables their `@Sse` handlers return. A stream is one member of a
 * subscriber set of the feed hub, on a key of the position sequencer, registered with the connections; one that
 * resumes (or arrives before its key's head is known) first gets its start from the replayer. One heartbeat timer
 * runs while streams are open: a comment to every stream, and the audit — sessions re-checked, every open key's head
 * compared with the log (so a frame lost in transit is repaired within a heartbeat even when nothing follows it).
 */
@Injectable()
export class StreamService implements BeforeApplicationShutdown {
  private auditing = false;
  private closed = false;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly connections: StreamConnections,
    private readonly hub: FeedHub,
    private readonly sequencer: PositionSequencer,
    private readonly replayer: StreamReplayer,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  /** Shutdown begins (before the HTTP server closes): every stream ends, clients reconnect elsewhere and resume. */
  beforeApplicationShutdown(): void {
    this.close();
  }

  /** The change stream of a company, or of one of its projects (`project` lower-case, or null for all). */
  changes(companyUuid: string, project: string | null, req: StreamRequest): Observable<MessageEvent> {
    return this.connect('changes', 'c', companyUuid, project, req);
  }

  /** The notification stream of one recipient. */
  notifications(recipientType: 'user' | 'agent', recipientUuid: string, req: StreamRequest): Observable<MessageEvent> {
    return this.connect('notifications', 'n', recipientKey(recipientType, recipientUuid), null, req);
  }

  /** Ends every stream (tests, and shutdown through `close`): clients reconnect and resume. */
  endAll(reason: EndReason = 'shutdown'): void {
    this.connections.endAll(reason);
  }

  /** Ends every stream for good: one opened afterwards gets `: connected` and ends at once. */
  close(): void {
    this.closed = true;
    this.sequencer.close();
    this.endAll('shutdown');
    this.hub.close();
    this.stopHeartbeat();
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.connections.size;
  }

  /** Running heartbeat timers (one while streams are open), for leak tests. */
  get timerCount(): number {
    return this.scheduler.doesExist('interval', HEARTBEAT_INTERVAL) ? 1 : 0;
  }

  /** Sequencers alive (keys with streams, or lingering after their last one). */
  get keyCount(): number {
    return this.sequencer.size;
  }

  private connect(kind: StreamKind, stream: StreamName, key: string, project: string | null, req: StreamRequest): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      subscriber.next(CONNECTED);
      if (this.closed) {
        subscriber.complete();
        return undefined;
      }
      const keyId = `${stream}:${key}`;
      const state = this.sequencer.acquire(stream, key);
      const conn = this.connections.add(kind, req.sessionUuid, () => subscriber.complete());
      this.startHeartbeat();
      const epoch = this.sequencer.knownEpoch;
      let member: Member;
      if (state.isReady && req.lastEventId === null && epoch !== null) {
        // Fresh and ready: the connect block where the hub starts it, then its set's messages carry what follows.
        subscriber.next({ id: formatPosition(epoch, this.hub.startAfter(keyId, state.delivered)), retry: this.retryMs() });
        this.metrics.streamResumes.inc({ stream: kind, outcome: 'fresh' });
        member = subscriber;
      } else {
        member = this.startLater(kind, keyId, state, project, req, subscriber);
      }
      const set = this.hub.join(keyId, project, req.batch, member);
      return () => {
        this.hub.leave(set, member);
        this.connections.remove(conn, req.endedBy?.() ?? null);
        this.sequencer.release(state);
        if (!this.connections.size) this.stopHeartbeat();
      };
    });
  }

  /**
   * A stream that resumes, or whose key is not ready yet: its set's messages wait until the replayer knows where it
   * starts; then the connect block, the replay, and from there on only what lies after the replay.
   */
  private startLater(kind: StreamKind, keyId: string, state: KeyState, project: string | null, req: StreamRequest, out: Subscriber<MessageEvent>): Member {
    const member = new LateStart(out, req.batch);
    const liveFrom = (): number => {
      const first = member.firstWaitingFrame();
      return first ? first.n - 1 : this.hub.startAfter(keyId, state.delivered);
    };
    this.replayer
      .startOf(state, project, req.lastEventId, liveFrom)
      .then((start) => {
        if (out.closed) return;
        member.begin(start, this.retryMs());
        this.metrics.streamResumes.inc({ stream: kind, outcome: start.outcome });
        if (start.outcome === 'replayed') this.metrics.streamReplayedFrames.inc({ stream: kind }, start.replay.length);
        if (start.outcome === 'reset') this.metrics.sseResets.inc({ stream: kind, reason: 'resume' });
      })
      .catch((err: unknown) => {
        // The database did not answer: the stream ends and the client's reconnect tries again.
        this.logger.warn({ stream: kind, err: errText(err) }, 'stream start failed');
        out.complete();
      });
    return member;
  }

  /** The heartbeat, on the framework's scheduler while streams are open (a dynamic interval: SSE_HEARTBEAT_MS). */
  private startHeartbeat(): void {
    if (this.scheduler.doesExist('interval', HEARTBEAT_INTERVAL)) return;
    const timer = setInterval(() => {
      this.hub.heartbeat();
      void this.audit();
    }, this.config.sseHeartbeatMs);
    timer.unref();
    this.scheduler.addInterval(HEARTBEAT_INTERVAL, timer);
  }

  private stopHeartbeat(): void {
    if (this.scheduler.doesExist('interval', HEARTBEAT_INTERVAL)) this.scheduler.deleteInterval(HEARTBEAT_INTERVAL);
  }

  /** At each heartbeat: streams of ended sessions end; keys behind the log catch up. One query each. */
  private async audit(): Promise<void> {
    if (this.auditing || this.closed) return;
    this.auditing = true;
    try {
      await Promise.all([this.connections.checkSessions(), this.sequencer.probeHeads()]);
    } catch (err) {
      this.logger.warn({ err: errText(err) }, 'stream audit failed');
    } finally {
      this.auditing = false;
    }
  }

  /** `retry:` of one stream: between SSE_RETRY_MS and twice it, so reconnects after an instance dies spread out. */
  private retryMs(): number {
    return this.config.sseRetryMs + Math.floor(Math.random() * this.config.sseRetryMs);
  }
}

/**
 * The hub member of a stream that waits for its start: messages queue until `begin`, then pass on, without what
 * the replay covered (a batch keeps the frames after it).
 */
class LateStart implements Member {
  private waiting: MessageEvent[] | null = [];
  private coveredUpTo = Infinity;

  constructor(
    private readonly out: Subscriber<MessageEvent>,
    private readonly batch: boolean,
  ) {}

  get closed(): boolean {
    return this.out.closed;
  }

  next(m: MessageEvent): void {
    if (this.waiting) this.waiting.push(m);
    else this.forward(m);
  }

  /** The first data frame that waited (everything before it is what the replay must cover). */
  firstWaitingFrame(): PositionedEvent | null {
    for (const m of this.waiting ?? []) {
      const frames = framesOf(m);
      if (frames?.length) return frames[0];
    }
    return null;
  }

  begin(start: Start, retry: number): void {
    this.out.next({ id: start.connectId, retry });
    const frames = start.replay.filter((m): m is PositionedEvent => !isReset(m));
    for (const m of start.replay) if (isReset(m)) this.out.next(m);
    for (const m of asMessages(frames, this.batch)) this.out.next(m);
    this.coveredUpTo = start.coveredUpTo;
    const waited = this.waiting ?? [];
    this.waiting = null;
    for (const m of waited) this.forward(m);
  }

  private forward(m: MessageEvent): void {
    const frames = framesOf(m);
    if (!frames) return this.out.next(m);
    if (frames[0].n > this.coveredUpTo) return this.out.next(m);
    const rest = frames.filter((f) => f.n > this.coveredUpTo);
    for (const r of asMessages(rest, this.batch)) this.out.next(r);
  }
}
