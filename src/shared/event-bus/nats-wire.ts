import type { Deserializer, IncomingEvent, ReadPacket, Serializer } from '@nestjs/microservices';
import type { BusEventKind, BusEvents, NotificationMessage } from './events.js';

/** docs/platform.md §7: the message body on the wire, exactly. */
export interface Envelope {
  origin: string;
  /** The frame's stream position; null for session messages. */
  position: string | null;
  payload: unknown;
}

/** An envelope to send; `payloadJson`, when given, is `payload` already serialized (and goes on the wire as it is). */
export interface OutgoingEnvelope extends Envelope {
  payloadJson?: string;
}

/**
 * The envelope of a published message. `data` is the frame's JSON as the publisher logged it: a change frame is the
 * change event itself (its five fields), a notification frame is the message's `frame` — so neither is serialized
 * again on the way out.
 */
export function outgoingEnvelope<K extends BusEventKind>(kind: K, origin: string, position: string | null, payload: BusEvents[K], data?: string): OutgoingEnvelope {
  if (data === undefined || kind === 'session') return { origin, position, payload };
  if (kind === 'change') return { origin, position, payload, payloadJson: data };
  const m = payload as NotificationMessage;
  return { origin, position, payload, payloadJson: `{"recipientType":${JSON.stringify(m.recipientType)},"recipientUuid":${JSON.stringify(m.recipientUuid)},"frame":${data}}` };
}

/**
 * The microservices client wraps every message as `{pattern, data}`; the subject already carries the pattern, so
 * only `data` (the envelope) goes on the wire. Instances that drive the raw NATS client read and write the same
 * body, which keeps a rolling restart across versions working.
 */
export class EnvelopeSerializer implements Serializer<ReadPacket<OutgoingEnvelope>, { data: string }> {
  serialize(packet: ReadPacket<OutgoingEnvelope>): { data: string } {
    const { origin, position, payload, payloadJson } = packet.data;
    if (payloadJson !== undefined) return { data: `{"origin":${JSON.stringify(origin)},"position":${JSON.stringify(position)},"payload":${payloadJson}}` };
    return { data: JSON.stringify({ origin, position, payload } satisfies Envelope) };
  }
}

/** What the transport's server hands us: the message bytes (a `@nats-io` Msg). */
interface RawMessage {
  data: Uint8Array;
}

const decoder = new TextDecoder();

/**
 * Reads §7's body as an event of the subscription it arrived on (never a request: no `id`, so no reply is
 * attempted). A body that is not a JSON envelope becomes `data: null`, which the bus drops silently, as before.
 */
export class EnvelopeDeserializer implements Deserializer<RawMessage, IncomingEvent> {
  deserialize(msg: RawMessage, options?: Record<string, unknown>): IncomingEvent {
    return { pattern: options?.channel, data: parseEnvelope(msg.data) };
  }
}

export function parseEnvelope(bytes: Uint8Array): Envelope | null {
  let body: unknown;
  try {
    body = JSON.parse(decoder.decode(bytes));
  } catch {
    return null;
  }
  if (!body || typeof body !== 'object' || typeof (body as Envelope).origin !== 'string') return null;
  const position = (body as Envelope).position;
  return { origin: (body as Envelope).origin, position: typeof position === 'string' ? position : null, payload: (body as Envelope).payload };
}
