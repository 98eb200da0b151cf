import type { ServerResponse } from 'node:http';
import { Injectable, type MessageEvent } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { finalize, merge, Observable, share, Subject, takeUntil } from 'rxjs';
import { AppConfig } from '../../config/config.js';
import { BUS_EVENTS, type NotificationMessage, type RealtimeEvent } from '../../shared/event-bus/events.js';
import { Lifecycle } from '../../shared/lifecycle.js';
import { MetricsService } from '../../shared/metrics/metrics.service.js';

export type StreamKind = 'changes' | 'notifications';

/** A client whose unsent events pass this many characters is disconnected (platform.md §6.2, `@Sse` option). */
export const MAX_UNSENT_BYTES = 1024 * 1024;

// Comment-only events: Nest writes them as `: <comment>` and gives them no `id:`.
const CONNECTED: MessageEvent = Object.freeze({ comment: 'connected' });
const HEARTBEAT: MessageEvent = Object.freeze({ comment: 'heartbeat' });

/**
 * The hot stream of one key: a company's unfiltered change stream, one project's, or one recipient's notifications.
 * Every connection of the key subscribes to `output`; an event is serialized once and reaches them all.
 */
interface Feed {
  readonly kind: StreamKind;
  readonly input: Subject<MessageEvent>;
  readonly output: Observable<MessageEvent>;
  /** The connections' responses, corked together for the rest of a turn once an event arrives (see `deliver`). */
  readonly responses: Set<ServerResponse>;
  corked: boolean;
}

/**
 * Fan-out for both SSE streams, entirely in observables that the `@Sse` pipeline writes. Per key one hot shared stream
 * (the key's events merged with the app-wide heartbeat, `share()`d): a connection costs one subscription to it, and a
 * key's stream, with its bus side, exists only while it has connections. The heartbeat is one timer for the process,
 * running only while some stream is open.
 */
@Injectable()
export class StreamService {
  private readonly changeFeeds = new Map<string, Feed>();
  private readonly notificationFeeds = new Map<string, Feed>();
  private readonly heartbeat$: Observable<MessageEvent>;
  /** Completes every feed: shutdown, or the shared channel regained (browsers reconnect and refresh). */
  private readonly end$ = new Subject<void>();
  private readonly corked: Feed[] = [];
  private readonly uncorkAll = (): void => this.uncork();
  private closed = false;
  private open = 0;
  private timers = 0;

  constructor(
    config: AppConfig,
    lifecycle: Lifecycle,
    private readonly metrics: MetricsService,
  ) {
    this.heartbeat$ = new Observable<MessageEvent>((subscriber) => {
      const timer = setInterval(() => subscriber.next(HEARTBEAT), config.sseHeartbeatMs);
      timer.unref();
      this.timers++;
      return () => {
        clearInterval(timer);
        this.timers--;
      };
    }).pipe(share());
    lifecycle.onShutdown(() => this.close());
  }

  /** The change stream of a company, or of one of its projects (`project` lower-case, or null for all). */
  changes(companyUuid: string, project: string | null, res: ServerResponse): Observable<MessageEvent> {
    return this.connect(this.changeFeeds, project === null ? companyUuid : `${companyUuid}/${project}`, 'changes', res);
  }

  /** The notification stream of one recipient. */
  notifications(recipientType: 'user' | 'agent', recipientUuid: string, res: ServerResponse): Observable<MessageEvent> {
    return this.connect(this.notificationFeeds, `${recipientType}:${recipientUuid}`, 'notifications', res);
  }

  @OnEvent(BUS_EVENTS.change)
  onChange(e: RealtimeEvent): void {
    const all = this.changeFeeds.get(e.companyUuid);
    const filtered = this.changeFeeds.get(`${e.companyUuid}/${e.projectUuid}`);
    if (!all && !filtered) return;
    // Exactly the five contract fields, in contract order, whatever the payload carried; serialized once.
    const event: MessageEvent = {
      data: JSON.stringify({ companyUuid: e.companyUuid, projectUuid: e.projectUuid, entityType: e.entityType, entityUuid: e.entityUuid, action: e.action }),
    };
    const n = this.deliver(all, event) + this.deliver(filtered, event);
    if (n) this.metrics.eventsDelivered.inc({ stream: 'changes' }, n);
  }

  @OnEvent(BUS_EVENTS.notification)
  onNotification(m: NotificationMessage): void {
    const n = this.deliver(this.notificationFeeds.get(`${m.recipientType}:${m.recipientUuid}`), { data: JSON.stringify(m.frame) });
    if (n) this.metrics.eventsDelivered.inc({ stream: 'notifications' }, n);
  }

  /** The shared channel came back: browsers may have missed events, so their streams end and they refresh. */
  @OnEvent(BUS_EVENTS.resync)
  endAll(): void {
    this.end$.next();
  }

  /** Ends every stream for good: one opened afterwards gets `: connected` and ends at once. */
  close(): void {
    this.closed = true;
    this.endAll();
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.open;
  }

  /** Running timers (the shared heartbeat), for leak tests. */
  get timerCount(): number {
    return this.timers;
  }

  /**
   * A connection: `: connected`, then whatever its key's feed carries. The feed is looked up (or made) at subscription,
   * not when the handler ran, so a feed that ended in between is not joined.
   */
  private connect(feeds: Map<string, Feed>, key: string, kind: StreamKind, res: ServerResponse): Observable<MessageEvent> {
    return new Observable<MessageEvent>((subscriber) => {
      subscriber.next(CONNECTED);
      if (this.closed) {
        subscriber.complete();
        return undefined;
      }
      const feed = feeds.get(key) ?? this.createFeed(feeds, key, kind);
      feed.responses.add(res);
      this.open++;
      this.metrics.sseConnections.inc({ stream: kind });
      // The subscriber itself is the observer: no wrapper per connection, and its teardown ends the subscription.
      feed.output.subscribe(subscriber);
      return () => {
        feed.responses.delete(res);
        this.open--;
        this.metrics.sseConnections.dec({ stream: kind });
        // Nest destroys a response whose client let more than MAX_UNSENT_BYTES of events pile up; a response destroyed
        // with bytes still unsent is that cut (or a client leaving mid-backlog, which amounts to the same). A client
        // that leaves a healthy stream has nothing unsent.
        if (res.destroyed && !res.writableFinished && res.writableLength > 0) this.metrics.sseSlowDisconnects.inc({ stream: kind });
      };
    });
  }

  private createFeed(feeds: Map<string, Feed>, key: string, kind: StreamKind): Feed {
    const input = new Subject<MessageEvent>();
    const feed: Feed = {
      kind,
      input,
      responses: new Set(),
      corked: false,
      output: merge(input, this.heartbeat$).pipe(
        takeUntil(this.end$),
        // Runs when the last connection leaves (or the feed ends): the key's stream goes with it.
        finalize(() => {
          if (feeds.get(key) === feed) feeds.delete(key);
        }),
        share(),
      ),
    };
    feeds.set(key, feed);
    return feed;
  }

  /**
   * Emits on a feed. The first event of a turn corks the feed's responses and one app-wide `setImmediate` uncorks them,
   * so a burst committed in one turn leaves each socket in one write (at thousands of streams one write per event per
   * connection fills the event loop: `npm run bench:soak`). Nest's pipeline still writes every frame; this only
   * batches the syscalls.
   */
  private deliver(feed: Feed | undefined, event: MessageEvent): number {
    if (!feed) return 0;
    if (!feed.corked) {
      feed.corked = true;
      for (const res of feed.responses) res.cork();
      if (this.corked.push(feed) === 1) setImmediate(this.uncorkAll);
    }
    feed.input.next(event);
    return feed.responses.size;
  }

  private uncork(): void {
    for (const feed of this.corked.splice(0)) {
      feed.corked = false;
      for (const res of feed.responses) res.uncork();
    }
  }
}
