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
  readonly input: Subject<MessageEvent>;
  readonly output: Observable<MessageEvent>;
  /** The connections' responses, corked together for the rest of a turn that brings a burst (see `deliver`). */
  readonly responses: Set<ServerResponse>;
  /** Events delivered in the current turn. */
  turn: number;
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
  /** Feeds that got an event in the current turn. */
  private readonly touched: Feed[] = [];
  private readonly endTurn = (): void => this.endTurnNow();
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
      const feed = feeds.get(key) ?? this.createFeed(feeds, key);
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

  private createFeed(feeds: Map<string, Feed>, key: string): Feed {
    const input = new Subject<MessageEvent>();
    const feed: Feed = {
      input,
      responses: new Set(),
      turn: 0,
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
   * Emits on a feed. Node's http already corks a response for the rest of the tick it writes in, but Nest's pipeline
   * writes each further queued frame in a tick of its own, so a burst committed in one turn would leave each socket in
   * one write per event — at thousands of streams that fills the event loop (`npm run bench:soak`). So the second event
   * of a turn for a feed corks the feed's responses (the first one's write is still corked by http then) and one
   * app-wide `setImmediate` uncorks them: a burst leaves each socket in one write. A lone event costs no corking at all.
   */
  private deliver(feed: Feed | undefined, event: MessageEvent): number {
    if (!feed) return 0;
    if (feed.turn === 0) {
      if (this.touched.push(feed) === 1) setImmediate(this.endTurn);
    } else if (feed.turn === 1) {
      for (const res of feed.responses) res.cork();
    }
    feed.turn++;
    feed.input.next(event);
    return feed.responses.size;
  }

  private endTurnNow(): void {
    for (const feed of this.touched.splice(0)) {
      if (feed.turn > 1) for (const res of feed.responses) res.uncork();
      feed.turn = 0;
    }
  }
}
