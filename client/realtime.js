// Browser client for the service's two SSE streams. Dependency-free ES module for the web frontend.
//
//   import { subscribeChanges, subscribeNotifications } from './realtime.js';
//   const changes = subscribeChanges({ projectUuid, onRefresh: () => reloadPageData() });
//   const bell = subscribeNotifications({ onUnreadCount: setBadge, onNotification: showToast });
//   // on unmount: changes.dispose(); bell.dispose();
//
// Behaviour (docs/sse.md, "The client module"). Every frame of both streams carries its position as `id:`
// (`<epoch>-<n>`), and a stream opened with `Last-Event-ID` (header) or `?lastEventId=` (query) replays what followed
// that position, or sends one `event: reset` when it cannot. Both streams are opened with `batch=1`: the service may
// then join consecutive frames into one `event: batch` frame (`id:` the last position, `data:` a JSON array of the
// frames' data, in order), which the module treats as those frames in order. It keeps the last id it saw (of a
// message, a batch or a reset) and:
// - Refreshes (the page's data, or the bell's count) on the first `open` of a stream opened without a known id; not
//   at construction, so the refresh is read after the stream is registered and nothing falls between the two.
// - Refreshes on `reset` (at once; a pending debounce is cancelled, the refresh covers it).
// - Does not refresh after an automatic reconnect when an id is known: the browser resends the last id it saw as
//   `Last-Event-ID` (or the URL carries `lastEventId`) and the server replays what was missed. When no id is known
//   (the stream delivered nothing yet — the connect block's id is recorded by the browser but not readable from
//   script), a reconnect's `open` refreshes, as it cannot be told whether the browser resumed.
// - Change stream: any message or batch (re)starts a 500 ms timer and the page refreshes when it fires, so a burst
//   gives one refresh; frames are not parsed.
// - Tab hidden: the stream is closed (and the timer cancelled). Visible again: a new stream is opened with
//   `?lastEventId=<last id>` and the page does NOT refresh (the server replays or resets); with no id known, the
//   new stream's `open` refreshes.
// - A browser gives up for good when a reconnect is answered with anything but a 200 stream (503 while the database
//   is unreachable, a proxy's 502): then a new stream is opened after `retryMs` (default 5 s, the service's
//   Retry-After), with `lastEventId` when an id is known (no refresh), else refreshing on its open.
// - Bell: badge values are ordered by position. The position of the value shown is kept; a frame's `unreadCount`
//   applies when its id is newer (a batch: its last frame's `unreadCount` at the batch's id; every frame of it still
//   reaches `onFrame`, and each `new_notification` `onNotification`); a `GET /api/notifications/unread-count` answer
//   applies when its
//   `X-Stream-Position` is not older (same epoch: compare n; another epoch: the newer arrival wins and becomes the
//   reference); an answer without that header applies only while no frame has been seen. The count is read on the
//   first open, on reset, and when visible again (besides resuming the stream: ordering makes the read harmless).
// dispose() tears everything down.

const DEFAULT_DEBOUNCE_MS = 500;
const DEFAULT_RETRY_MS = 5000;
const CLOSED = 2; // EventSource.CLOSED

function visibilityWatcher(doc, onHidden, onVisible) {
  if (!doc || typeof doc.addEventListener !== 'function') return () => {};
  const listener = () => (doc.visibilityState === 'hidden' ? onHidden() : onVisible());
  doc.addEventListener('visibilitychange', listener);
  return () => doc.removeEventListener('visibilitychange', listener);
}

/** `url` with `name=value` appended as a query parameter (whether or not the url already has a query). */
function withParam(url, name, value) {
  const hash = url.indexOf('#');
  const base = hash < 0 ? url : url.slice(0, hash);
  const sep = base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?';
  return `${base}${sep}${name}=${encodeURIComponent(value)}`;
}

/** `<epoch>-<n>` → `{ epoch, n }`, or null when malformed. The epoch may itself contain dashes: n follows the last. */
function parsePosition(value) {
  if (typeof value !== 'string') return null;
  const dash = value.lastIndexOf('-');
  if (dash <= 0) return null;
  const digits = value.slice(dash + 1);
  if (!/^\d+$/.test(digits)) return null;
  const n = Number(digits);
  return { epoch: value.slice(0, dash), n: Number.isSafeInteger(n) ? n : BigInt(digits) };
}

/** The `data` values a batch event carries, in order (an unparsable batch carries none). */
function batchFrames(event) {
  try {
    const frames = JSON.parse(event.data);
    return Array.isArray(frames) ? frames : [];
  } catch {
    return [];
  }
}

/**
 * Opens an EventSource with credentials (and `batch=1`) and reopens it per the rules above.
 * `onMessage(event, frames)` for each message (`frames` null: one frame, in `event.data`) and each batch (`frames`:
 * its parsed frames, in order; `event.lastEventId` is the last one's position); `onResync()` when the stream cannot be
 * trusted to have delivered everything (first open without an id, reconnect without an id, reset);
 * `onVisible(resumed)` on becoming visible again.
 */
function managedSource({ url, onMessage, onResync, onVisible = () => {}, onClosed, document: doc, EventSourceImpl, retryMs = DEFAULT_RETRY_MS }) {
  const ES = EventSourceImpl ?? globalThis.EventSource;
  let source = null;
  let lastId = null;
  let disposed = false;
  let retryTimer = null;
  const cancelRetry = () => {
    if (retryTimer !== null) clearTimeout(retryTimer);
    retryTimer = null;
  };
  const remember = (event) => {
    if (typeof event?.lastEventId === 'string' && event.lastEventId !== '') lastId = event.lastEventId;
  };
  let detach = () => {}; // unhooks the current source's listeners

  /** Opens a stream; resumes from the last id when one is known. Returns whether it resumes. */
  const open = () => {
    if (disposed || source) return false;
    const resumes = lastId !== null;
    const s = new ES(resumes ? withParam(url, 'lastEventId', lastId) : url, { withCredentials: true });
    source = s;
    // Refresh on the next open unless this stream resumes; after an error, refresh unless an id is known by then.
    let refreshOnOpen = !resumes;
    s.onmessage = (event) => {
      remember(event);
      onMessage(event, null);
    };
    const onBatch = (event) => {
      if (source !== s) return;
      remember(event);
      onMessage(event, batchFrames(event));
    };
    const onReset = (event) => {
      if (source !== s) return;
      remember(event);
      onResync('reset');
    };
    s.addEventListener('batch', onBatch);
    s.addEventListener('reset', onReset);
    detach = () => {
      s.onmessage = s.onerror = s.onopen = null;
      s.removeEventListener('batch', onBatch);
      s.removeEventListener('reset', onReset);
      detach = () => {};
    };
    s.onerror = () => {
      if (source !== s) return;
      // The browser reconnects by itself, resending the last id it saw: only with no id known must the page refresh.
      refreshOnOpen = lastId === null;
      // The browser gave up (a non-200 answer) and will not reconnect by itself: open a new source later.
      if (s.readyState === CLOSED) {
        detach();
        source = null;
        retryTimer = setTimeout(() => {
          retryTimer = null;
          open();
        }, retryMs);
      }
    };
    s.onopen = () => {
      if (source !== s || !refreshOnOpen) return;
      refreshOnOpen = false;
      onResync('open');
    };
    return resumes;
  };
  const close = () => {
    cancelRetry();
    if (!source) return;
    detach();
    source.close();
    source = null;
    onClosed();
  };
  const stopWatching = visibilityWatcher(
    doc,
    () => close(),
    () => {
      if (disposed || source || retryTimer !== null) return;
      onVisible(open());
    },
  );
  if (!doc || doc.visibilityState !== 'hidden') open();
  return {
    isOpen: () => source !== null,
    lastEventId: () => lastId,
    dispose() {
      disposed = true;
      stopWatching();
      close();
    },
  };
}

/**
 * Keeps a page in sync with `GET /api/events` (optionally one project).
 * A reset refreshes at once (and cancels a pending debounce): the page is known to be stale, and live frames after
 * the reset debounce as usual.
 * @param {{ onRefresh: () => void, projectUuid?: string, baseUrl?: string, debounceMs?: number, retryMs?: number,
 *           document?: Document, EventSourceImpl?: typeof EventSource }} options
 * @returns {{ dispose(): void, isOpen(): boolean, lastEventId(): string | null }}
 */
export function subscribeChanges(options) {
  const { onRefresh, projectUuid, baseUrl = '', debounceMs = DEFAULT_DEBOUNCE_MS } = options;
  if (typeof onRefresh !== 'function') throw new TypeError('subscribeChanges: onRefresh must be a function');
  const url = `${baseUrl}/api/events?batch=1${projectUuid ? `&projectUuid=${encodeURIComponent(projectUuid)}` : ''}`;
  let timer = null;
  const cancelTimer = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  const managed = managedSource({
    url,
    document: options.document ?? globalThis.document,
    EventSourceImpl: options.EventSourceImpl,
    retryMs: options.retryMs,
    onMessage: () => {
      cancelTimer();
      timer = setTimeout(() => {
        timer = null;
        onRefresh();
      }, debounceMs);
    },
    onResync: () => {
      cancelTimer();
      onRefresh();
    },
    onClosed: cancelTimer,
  });
  return {
    isOpen: managed.isOpen,
    lastEventId: managed.lastEventId,
    dispose() {
      cancelTimer();
      managed.dispose();
    },
  };
}

/**
 * Drives a notification bell from `GET /api/events/notifications`: the badge follows the frames' `unreadCount` and the
 * unread-count answers, ordered by position; `onNotification` gets each `new_notification` frame (for a toast),
 * `onFrame` every frame (replayed ones included).
 * @param {{ onUnreadCount?: (n: number) => void, onNotification?: (frame: object) => void,
 *           onFrame?: (frame: object) => void, baseUrl?: string, fetch?: typeof fetch, retryMs?: number,
 *           document?: Document, EventSourceImpl?: typeof EventSource }} options
 * @returns {{ dispose(): void, isOpen(): boolean, lastEventId(): string | null }}
 */
export function subscribeNotifications(options) {
  const { onUnreadCount = () => {}, onNotification = () => {}, onFrame = () => {}, baseUrl = '' } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  let disposed = false;
  // The position of the badge value shown (null: none known), and whether any frame has been seen.
  let shown = null;
  let frameSeen = false;
  /** Whether `next` is not older than the shown position (`strict`: newer). Another epoch: the newer arrival wins. */
  const admits = (next, strict) => {
    if (shown === null) return true;
    if (next.epoch !== shown.epoch) return true;
    return strict ? next.n > shown.n : next.n >= shown.n;
  };
  const readCount = async () => {
    if (!fetchImpl) return;
    try {
      const res = await fetchImpl(`${baseUrl}/api/notifications/unread-count`, { credentials: 'include' });
      if (!res.ok || disposed) return;
      const body = await res.json();
      if (disposed || !body || !body.success || typeof body.data?.count !== 'number') return;
      const header = res.headers?.get?.('X-Stream-Position') ?? null;
      const position = parsePosition(header);
      if (position === null) {
        // Unordered: only good enough while no frame (which may be newer) has been seen.
        if (frameSeen) return;
      } else {
        if (!admits(position, false)) return;
        shown = position;
      }
      onUnreadCount(body.data.count);
    } catch {
      // the stream keeps the badge current; a failed read is not fatal
    }
  };
  const managed = managedSource({
    url: `${baseUrl}/api/events/notifications?batch=1`,
    document: options.document ?? globalThis.document,
    EventSourceImpl: options.EventSourceImpl,
    retryMs: options.retryMs,
    onMessage: (event, batch) => {
      let frames = batch;
      if (frames === null) {
        try {
          frames = [JSON.parse(event.data)];
        } catch {
          return;
        }
      }
      if (!frames.length) return;
      frameSeen = true;
      // The badge: the newest count the message carries, at its position (a batch's id is its last frame's).
      const counted = frames.findLast((f) => typeof f?.unreadCount === 'number');
      if (counted) {
        const position = parsePosition(event.lastEventId);
        if (position === null) {
          onUnreadCount(counted.unreadCount); // a frame without a position (an older server): newest arrival wins
        } else if (admits(position, true)) {
          shown = position;
          onUnreadCount(counted.unreadCount);
        }
      }
      for (const frame of frames) {
        if (frame?.type === 'new_notification') onNotification(frame);
        onFrame(frame);
      }
    },
    onResync: () => void readCount(),
    // Resumed: the stream replays; the count is read as well (the platform's rule), and ordering keeps it harmless.
    onVisible: (resumed) => {
      if (resumed) void readCount();
    },
    onClosed: () => {},
  });
  return {
    isOpen: managed.isOpen,
    lastEventId: managed.lastEventId,
    dispose() {
      disposed = true;
      managed.dispose();
    },
  };
}
