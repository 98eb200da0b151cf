/**
 * An inbox read as REST answers it (docs/notifications.md §2.0, §3), for InboxCacheInterceptor, which writes its headers:
 * a page or a count carries its entity tag and the stream position it was read at, and reads its body only when the
 * caller's tag does not match (a 304 reads nothing more); a delta is never cached.
 */
export type InboxAnswer<T = unknown> = TaggedAnswer<T> | DeltaAnswer<T>;

export interface TaggedAnswer<T> {
  kind: 'tagged';
  tag: string;
  position: string;
  /** `X-Poll-Interval`: lists carry it, counts do not. */
  pollAfterSeconds: number | null;
  body(): Promise<T>;
}

export interface DeltaAnswer<T> {
  kind: 'delta';
  position: string;
  pollAfterSeconds: number;
  body: T;
}
