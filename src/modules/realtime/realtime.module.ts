import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/index.js';
import { FeedHub } from './feed-hub.js';
import { PositionSequencer } from './position-sequencer.js';
import { RealtimeController } from './realtime.controller.js';
import { StreamConnections } from './stream-connections.js';
import { StreamLimitGuard } from './stream-limit.guard.js';
import { StreamReplayer } from './stream-replayer.js';
import { StreamService } from './stream.service.js';

/**
 * The change and notification streams (docs/sse.md): connections (who holds which stream), the position sequencer
 * (order, duplicates, repairs from the log), the feed hub (fan-out in slices, batches) and the replayer (resume),
 * put together by the stream service behind the `@Sse` controller.
 */
@Module({
  imports: [IdentityModule],
  controllers: [RealtimeController],
  providers: [StreamService, StreamConnections, FeedHub, PositionSequencer, StreamReplayer, StreamLimitGuard],
  exports: [StreamService],
})
export class RealtimeModule {}
