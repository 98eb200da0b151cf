import { Prop } from '../../../shared/validation/response-fields.js';

// The probes' answers (README "Operations"): plain JSON, not the REST envelope.

export class LiveDto {
  @Prop.string({ description: 'ok' }) status: string;
}

export class ReadyChecksDto {
  @Prop.string({ description: 'up or down' }) database: string;
  @Prop.string({ description: 'up, down or disabled (no NATS)' }) bus: 'up' | 'down' | 'disabled';
}

export class ReadyDto {
  @Prop.string({ description: 'ok, or unavailable (503)' }) status: string;
  @Prop.nested(ReadyChecksDto) checks: ReadyChecksDto;
}
