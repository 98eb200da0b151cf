import { changeJson, type NotificationMessage, type RealtimeEvent } from './events.js';
import { EnvelopeDeserializer, EnvelopeSerializer, outgoingEnvelope } from './nats-wire.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('NATS wire format (docs/platform.md §7)', () => {
  it('writes the envelope alone, without the client packet wrapper', () => {
    const payload = { companyUuid: 'c', action: 'created' };
    expect(new EnvelopeSerializer().serialize({ pattern: 'svc.change.c', data: { origin: 'i-1', position: 'e1-3', payload } })).toEqual({
      data: '{"origin":"i-1","position":"e1-3","payload":{"companyUuid":"c","action":"created"}}',
    });
  });

  it('sends a logged frame as it is, and the body is what serializing the message would give', () => {
    const serializer = new EnvelopeSerializer();
    const change: RealtimeEvent = { companyUuid: 'c', projectUuid: 'p', entityType: 'task', entityUuid: 't', action: 'created' };
    const note: NotificationMessage = { recipientType: 'agent', recipientUuid: 'a', frame: { type: 'count_update', unreadCount: 3 } };
    for (const [kind, payload, data] of [
      ['change', change, changeJson(change)],
      ['notification', note, JSON.stringify(note.frame)],
    ] as const) {
      const envelope = outgoingEnvelope(kind, 'i-1', 'e1-3', payload, data);
      expect(envelope.payloadJson).toBeDefined();
      const sent = serializer.serialize({ pattern: 'x', data: envelope }).data;
      expect(JSON.parse(sent)).toEqual({ origin: 'i-1', position: 'e1-3', payload });
      expect(sent).toBe(serializer.serialize({ pattern: 'x', data: outgoingEnvelope(kind, 'i-1', 'e1-3', payload) }).data);
    }
  });

  it('reads a body as an event of the subscription it arrived on, never as a request', () => {
    const packet = new EnvelopeDeserializer().deserialize({ data: bytes('{"origin":"i-2","position":"e1-9","payload":{"x":1},"id":"7"}') }, { channel: 'svc.change.*' });
    expect(packet).toEqual({ pattern: 'svc.change.*', data: { origin: 'i-2', position: 'e1-9', payload: { x: 1 } } });
    expect('id' in packet).toBe(false);
  });

  it('reads a body without a position (an older instance) with position null', () => {
    const packet = new EnvelopeDeserializer().deserialize({ data: bytes('{"origin":"i-3","payload":{"x":1}}') }, { channel: 'svc.change.*' });
    expect(packet.data).toEqual({ origin: 'i-3', position: null, payload: { x: 1 } });
  });

  it.each(['not json', '[]', 'null', '{"pattern":"p","data":{"origin":"i","payload":1}}', '{"origin":7,"payload":1}'])('turns %s into no envelope', (body) => {
    expect(new EnvelopeDeserializer().deserialize({ data: bytes(body) }, { channel: 'svc.change.*' })).toEqual({ pattern: 'svc.change.*', data: null });
  });
});
