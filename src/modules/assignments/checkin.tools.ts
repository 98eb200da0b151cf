import { Injectable } from '@nestjs/common';
import { AgentService } from '../identity/index.js';
import { IdeaTrackerService, type IdeaTracker } from '../ideas/index.js';
import { NotificationService, type CheckinNotification } from '../notifications/index.js';
import { NoArgsDto } from '../../shared/validation/no-args.dto.js';
import { Tool, type ToolContext } from '../tool-kit/index.js';

/** The checkin's idea tracker holds the ten most recently updated ideas, across all projects (headers ignored). */
const CHECKIN_IDEAS = 10;

export interface CheckinResult {
  agent: { uuid: string; name: string; permissions: string[]; owner: { uuid: string; name: string; email: string } };
  ideaTracker: IdeaTracker;
  notifications: { unread: number; recent: CheckinNotification[] };
}

/** svc_checkin (docs/tool-conventions.md §5.1): identity, the capped idea tracker and the notification summary. */
@Injectable()
export class CheckinTools {
  constructor(
    private readonly agents: AgentService,
    private readonly ideas: IdeaTrackerService,
    private readonly notifications: NotificationService,
  ) {}

  @Tool({
    name: 'svc_checkin',
    title: 'Check in',
    hint: 'W',
    description:
      'Start here: returns your identity, permissions, your ten most recently updated ideas and your unread notifications (the ones listed are marked read). Call svc_get_my_assignments next for your full trackers.',
    input: NoArgsDto,
  })
  async checkin(_args: NoArgsDto, ctx: ToolContext): Promise<CheckinResult> {
    const agent = await this.agents.checkin(ctx.actor.companyUuid, ctx.actor.uuid);
    const ideaTracker = await this.ideas.tracker(ctx.actor, { projectScope: null, limit: CHECKIN_IDEAS });
    const notifications = await this.notifications.checkinSummary(ctx.actor);
    return { agent, ideaTracker, notifications };
  }
}
