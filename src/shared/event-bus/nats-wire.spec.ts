import { EnvelopeDeserializer, EnvelopeSerializer } from './nats-wire.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('NATS wire format (platform.md §7)', () => {
  it('writes the envelope alone, without the client packet wrapper', () => {
    const payload = { companyUuid: 'c', action: 'created' };
    expect(new EnvelopeSerializer().serialize({ pattern: 'svc.change.c', data: { origin: 'i-1', position: 'e1-3', payload } })).toEqual({
      data: '{"origin":"i-1","position":"e1-3","payload":{"companyUuid":"c","action":"created"}}',
    });
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
