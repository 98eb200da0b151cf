import { Body, Catch, Controller, Get, Inject, Injectable, Param, Post, Req, Res, UseFilters, UseGuards, type ArgumentsHost, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { InteractionResults } from 'oidc-provider';
import type { Logger } from 'pino';
import { AppConfig } from '../../config/config.js';
import { CredentialResolver } from '../../shared/auth/auth-context.js';
import { Public } from '../../shared/auth/decorators.js';
import type { EntityManager } from 'typeorm';
import { AppError, ForbiddenError, RateLimitedError } from '../../shared/errors/app-error.js';
import { HttpExceptionFilter } from '../../shared/errors/http-exception.filter.js';
import { LOGGER } from '../../shared/logging/logger.js';
import { clientAddress } from '../../shared/http/client-address.js';
import { readCookie, SESSION_COOKIE } from '../../shared/http/cookies.js';
import { originAllowed } from '../../shared/http/origin.js';
import { AgentService, AuthService } from '../identity/index.js';
import { consentPage, loginPage, messagePage, type ConsentAgent } from './interaction-pages.js';
import { OAuthGrants } from './oauth-grants.js';
import { OAuthServer } from './oauth-server.js';

/**
 * The pages' own policy: the forms post to this origin; the answer to a consent is a redirect chain ending at the
 * client's registered redirect URI (any origin), which `form-action 'self'` would block in browsers.
 */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

/**
 * The pages' referrer policy. The app-wide `no-referrer` makes browsers send `Origin: null` with a form post (Fetch
 * "serializing a request origin"), which the Origin guard below refuses; `same-origin` sends the real Origin to this
 * origin and still no Referer to any other (the client's redirect_uri included).
 */
const PAGE_REFERRER_POLICY = 'same-origin';

/** The cross-site rule of the cookie routes (docs/platform.md §2.2) for the pages' form posts: a foreign Origin is refused. */
@Injectable()
export class InteractionOriginGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    if (originAllowed(req, this.config.publicOrigin, this.config.corsOrigins)) return true;
    throw new ForbiddenError('Cross-site request refused'); // a page, by the controller's InteractionPageFilter
  }
}

/** The pages' answer: their own policy headers, never cached. */
function sendPage(res: Response, status: number, body: string): void {
  res.status(status).setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Referrer-Policy', PAGE_REFERRER_POLICY);
  res.setHeader('Cache-Control', 'no-store');
  res.type('html').send(body);
}

/**
 * The pages' errors as pages: a browser in the middle of a sign-in gets HTML, not the API's JSON envelope. The
 * classification and logging are the app-wide filter's (a lost database is 503, anything unknown 500 with a logged
 * `errorId`, which the page shows so a user can quote it).
 */
@Catch()
export class InteractionPageFilter extends HttpExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    // oidc-provider's own refusals (an expired or unknown interaction, a session gone): its errors carry an OAuth
    // `error` code and a 4xx `statusCode` (the library is loaded lazily, so no instanceof on its error classes).
    const provider = exception as { error?: unknown; statusCode?: unknown } | null;
    const status = typeof provider?.error === 'string' ? provider.statusCode : undefined;
    const res = host.switchToHttp().getResponse<Response>();
    if (typeof status === 'number' && status >= 400 && status < 500 && !res.headersSent) {
      sendPage(res, status, messagePage('Sign-in expired', 'This sign-in has expired or is unknown. Start again from your app.'));
      return;
    }
    super.catch(exception, host);
  }

  protected override send(res: Response, status: number, error: { code: string; message: string; errorId?: unknown }): void {
    const body =
      status >= 500
        ? messagePage(
            status === 503 ? 'Service unavailable' : 'Something went wrong',
            status === 503
              ? 'The service cannot finish this step right now. Wait a moment, then start again from your app.'
              : `The service could not finish this step (error ${String(error.errorId ?? 'unknown')}). Start again from your app.`,
          )
        : messagePage('Request refused', error.message);
    sendPage(res, status, body);
  }
}

type Form = Record<string, string | undefined>;

/**
 * Sign-in and consent of the authorization flow (docs/platform.md §2.5). Sign-in is a form-encoded post checked like the
 * login route (same credential check and throttling); a valid session cookie skips it. Consent binds the grant to one
 * of the user's agents or to a new one created here with any preset.
 */
@Controller('oauth/interaction')
@Public()
@UseFilters(InteractionPageFilter)
@ApiTags('oauth')
export class InteractionController {
  constructor(
    private readonly server: OAuthServer,
    private readonly auth: AuthService,
    private readonly credentials: CredentialResolver,
    private readonly agents: AgentService,
    private readonly grants: OAuthGrants,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Get(':uid')
  async show(@Param('uid') uid: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const provider = this.provider();
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      const token = readCookie(req.headers.cookie, SESSION_COOKIE);
      const session = token ? await this.credentials.resolveSession(token) : null;
      if (session?.context.user) {
        await provider.interactionFinished(req, res, { login: { accountId: session.context.user.uuid } }, { mergeWithLastSubmission: false });
        return;
      }
      sendPage(res, 200, loginPage(uid, await this.clientName(String(details.params.client_id)), null));
      return;
    }
    sendPage(res, 200, await this.consent(uid, details, null));
  }

  @Post(':uid/login')
  @UseGuards(InteractionOriginGuard)
  async login(@Param('uid') uid: string, @Body() body: Form, @Req() req: Request, @Res() res: Response): Promise<void> {
    const provider = this.provider();
    const details = await provider.interactionDetails(req, res);
    const email = String(body?.email ?? '');
    try {
      const user = await this.auth.verifyCredentials(email, String(body?.password ?? ''), clientAddress(req));
      await provider.interactionFinished(req, res, { login: { accountId: user.uuid } }, { mergeWithLastSubmission: false });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err instanceof RateLimitedError) res.setHeader('Retry-After', String(err.retryAfterSeconds));
      sendPage(res, err.status === 429 ? 429 : 401, loginPage(uid, await this.clientName(String(details.params.client_id)), err.message, email));
    }
  }

  @Post(':uid/consent')
  @UseGuards(InteractionOriginGuard)
  async approve(@Param('uid') uid: string, @Body() body: Form, @Req() req: Request, @Res() res: Response): Promise<void> {
    const provider = this.provider();
    const details = await provider.interactionDetails(req, res);
    const userUuid = details.session?.accountId;
    if (details.prompt.name !== 'consent' || !userUuid) {
      sendPage(res, 400, messagePage('Sign in first', 'This step needs a signed-in user; start again from your app.'));
      return;
    }
    const user = await this.grants.userOf(userUuid);
    const clientId = String(details.params.client_id);
    const clientName = await this.clientName(clientId);
    const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
    const grant = existing ?? new provider.Grant({ accountId: userUuid, clientId });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    // A failed consent leaves nothing behind (docs/deploy.md, "Abuse limits"): the agent it creates and the binding
    // commit together or not at all; the grant record, which the provider's own store writes outside that
    // transaction, is taken back when they do not. A re-consent's grant keeps its earlier binding.
    let grantId: string | null = null;
    try {
      await this.grants.transaction(async (em) => {
        const agentUuid = await this.chosenAgent(em, user.companyUuid, userUuid, body);
        grantId = await grant.save();
        await this.grants.bind({ grantId, companyUuid: user.companyUuid, agentUuid, userUuid, clientId, clientName, redirectHost: hostOf(String(details.params.redirect_uri ?? '')) }, em);
      });
    } catch (err) {
      if (grantId !== null && !existing) {
        const unbound = grantId;
        await grant.destroy().catch((e: unknown) => this.logger.warn({ err: e, grantId: unbound }, 'oauth: could not remove a grant left unbound'));
      }
      // Before the grant, an AppError is the form's input (an invalid name or preset, an agent not the user's).
      if (grantId === null && err instanceof AppError) {
        sendPage(res, 400, await this.consent(uid, details, err.message));
        return;
      }
      throw err;
    }
    const result: InteractionResults = { consent: { grantId: grantId! } };
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
  }

  @Post(':uid/abort')
  @UseGuards(InteractionOriginGuard)
  async abort(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.provider().interactionFinished(req, res, { error: 'access_denied', error_description: 'The user denied the request' }, { mergeWithLastSubmission: false });
  }

  private provider() {
    const provider = this.server.provider;
    if (!provider) throw new AppError('NOT_FOUND', 'Route not found');
    return provider;
  }

  private async consent(uid: string, details: { params: Record<string, unknown>; session?: { accountId: string } }, error: string | null): Promise<string> {
    const userUuid = details.session!.accountId;
    const user = await this.grants.userOf(userUuid);
    return consentPage(uid, {
      clientName: await this.clientName(String(details.params.client_id)),
      redirectHost: hostOf(String(details.params.redirect_uri ?? '')),
      userName: user.name || user.email,
      agents: await this.ownAgents(user.companyUuid, userUuid),
      error,
    });
  }

  /** The agent the form names: a new one (created in the consent's transaction), or one of the user's own. */
  private async chosenAgent(em: EntityManager, companyUuid: string, userUuid: string, body: Form): Promise<string> {
    const choice = String(body?.agent ?? '');
    if (choice === 'new') {
      return (await this.agents.create({ companyUuid, userUuid }, userUuid, { name: String(body?.name ?? ''), preset: String(body?.preset ?? '') }, em)).uuid;
    }
    if (!(await this.ownAgents(companyUuid, userUuid)).some((a) => a.uuid === choice)) throw new AppError('VALIDATION_ERROR', 'Pick one of your agents, or create one');
    return choice;
  }

  private async ownAgents(companyUuid: string, userUuid: string): Promise<ConsentAgent[]> {
    const all = await this.agents.list({ companyUuid, userUuid });
    return all.filter((a) => a.owner.uuid === userUuid).map((a) => ({ uuid: a.uuid, name: a.name, preset: a.preset }));
  }

  private async clientName(clientId: string): Promise<string> {
    const client = await this.provider().Client.find(clientId).catch(() => undefined);
    return (client?.clientName as string | undefined) ?? clientId;
  }

}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}
