// Browser client for the service's two SSE streams. Dependency-free ES module for the web frontend.
//
//   import { subscribeChanges, subscribeNotifications } from './realtime.js';
//   const changes = subscribeChanges({ projectUuid, onRefresh: () => reloadPageData() });
//   const bell = subscribeNotifications({ onUnreadCount: setBadge, onNotification: showToast });
//   // on unmount: changes.dispose(); bell.dispose();
//
// Behaviour (platform.md §8): any change event (re)starts a 500 ms timer and the page refreshes when it fires, so a
// burst gives one refresh; frames are not parsed. While the tab is hidden the stream is closed; when it becomes
// visible again a new stream is opened and the page refreshes at once. After an automatic reconnect (an `open` that
// follows an error) the page refreshes, since events may have been missed. A browser gives up for good when a
// reconnect is answered with anything but a 200 stream (503 while the database is unreachable, a proxy's 502): then
// a new stream is opened after `retryMs` (default 5 s, the service's Retry-After), and its open refreshes the page
// like an automatic reconnect. dispose() tears everything down.

const DEFAULT_DEBOUNCE_MS = 500;
const DEFAULT_RETRY_MS = 5000;
const CLOSED = 2; // EventSource.CLOSED

function visibilityWatcher(doc, onHidden, onVisible) {
  if (!doc || typeof doc.addEventListener !== 'function') return () => {};
  const listener = () => (doc.visibilityState === 'hidden' ? onHidden() : onVisible());
  doc.addEventListener('visibilitychange', listener);
  return () => doc.removeEventListener('visibilitychange', listener);
}

/**
 * Opens an EventSource with credentials, and reopens it per the hidden/visible rules.
 * `onMessage(event)` for each message; `onResync()` after a reconnect or on becoming visible.
 */
function managedSource({ url, onMessage, onResync, onClosed, document: doc, EventSourceImpl, retryMs = DEFAULT_RETRY_MS }) {
  const ES = EventSourceImpl ?? globalThis.EventSource;
  let source = null;
  let hadError = false;
  let disposed = false;
  let retryTimer = null;
  const cancelRetry = () => {
    if (retryTimer !== null) clearTimeout(retryTimer);
    retryTimer = null;
  };

  const open = () => {
    if (disposed || source) return;
    const s = new ES(url, { withCredentials: true });
    source = s;
    s.onmessage = (event) => onMessage(event);
    s.onerror = () => {
      hadError = true;
      // The browser gave up (a non-200 answer) and will not reconnect by itself: open a new source later.
      if (s.readyState === CLOSED && source === s) {
        s.onmessage = s.onerror = s.onopen = null;
        source = null;
        retryTimer = setTimeout(() => {
          retryTimer = null;
          open();
        }, retryMs);
      }
    };
    s.onopen = () => {
      if (hadError) {
        hadError = false;
        onResync();
      }
    };
  };
  const close = () => {
    cancelRetry();
    if (!source) {
      hadError = false;
      return;
    }
    source.onmessage = source.onerror = source.onopen = null;
    source.close();
    source = null;
    hadError = false;
    onClosed();
  };
  const stopWatching = visibilityWatcher(
    doc,
    () => close(),
    () => {
      if (disposed || source) return;
      open();
      onResync();
    },
  );
  if (!doc || doc.visibilityState !== 'hidden') open();
  return {
    isOpen: () => source !== null,
    dispose() {
      disposed = true;
      stopWatching();
      close();
    },
  };
}

/**
 * Keeps a page in sync with `GET /api/events` (optionally one project).
 * @param {{ onRefresh: () => void, projectUuid?: string, baseUrl?: string, debounceMs?: number, retryMs?: number,
 *           document?: Document, EventSourceImpl?: typeof EventSource }} options
 * @returns {{ dispose(): void, isOpen(): boolean }}
 */
export function subscribeChanges(options) {
  const { onRefresh, projectUuid, baseUrl = '', debounceMs = DEFAULT_DEBOUNCE_MS } = options;
  if (typeof onRefresh !== 'function') throw new TypeError('subscribeChanges: onRefresh must be a function');
  const url = `${baseUrl}/api/events${projectUuid ? `?projectUuid=${encodeURIComponent(projectUuid)}` : ''}`;
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
    dispose() {
      cancelTimer();
      managed.dispose();
    },
  };
}

/**
 * Drives a notification bell from `GET /api/events/notifications`: the badge follows every frame's `unreadCount`,
 * `onNotification` gets each `new_notification` frame (for a toast), `onFrame` every frame. The initial count (and
 * the count after becoming visible again) is read from `GET /api/notifications/unread-count`.
 * @param {{ onUnreadCount?: (n: number) => void, onNotification?: (frame: object) => void,
 *           onFrame?: (frame: object) => void, baseUrl?: string, fetch?: typeof fetch, retryMs?: number,
 *           document?: Document, EventSourceImpl?: typeof EventSource }} options
 * @returns {{ dispose(): void, isOpen(): boolean }}
 */
export function subscribeNotifications(options) {
  const { onUnreadCount = () => {}, onNotification = () => {}, onFrame = () => {}, baseUrl = '' } = options;
  const fetchImpl = options.fetch ?? globalThis.fetch?.bind(globalThis);
  let disposed = false;
  const readCount = async () => {
    if (!fetchImpl) return;
    try {
      const res = await fetchImpl(`${baseUrl}/api/notifications/unread-count`, { credentials: 'include' });
      if (!res.ok || disposed) return;
      const body = await res.json();
      if (body && body.success && typeof body.data?.count === 'number') onUnreadCount(body.data.count);
    } catch {
      // the stream keeps the badge current; a failed initial read is not fatal
    }
  };
  const managed = managedSource({
    url: `${baseUrl}/api/events/notifications`,
    document: options.document ?? globalThis.document,
    EventSourceImpl: options.EventSourceImpl,
    retryMs: options.retryMs,
    onMessage: (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (typeof frame?.unreadCount === 'number') onUnreadCount(frame.unreadCount);
      if (frame?.type === 'new_notification') onNotification(frame);
      onFrame(frame);
    },
    onResync: () => void readCount(),
    onClosed: () => {},
  });
  void readCount();
  return {
    isOpen: managed.isOpen,
    dispose() {
      disposed = true;
      managed.dispose();
    },
  };
}
