import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

const DESCRIPTION = `REST API of the service for the web client, plus the auth, agents, notification, SSE, tool and ops endpoints.

Every REST route answers in the JSON envelope: success \`{"success": true, "data": …}\`, error
\`{"success": false, "error": {"code", "message", "details"?, "errorId"?}}\`.

| Code | HTTP | When |
|---|---|---|
| UNAUTHORIZED | 401 | no valid credential, failed login |
| FORBIDDEN | 403 | cross-site refusal, not the agent's owner, identity guards |
| NOT_FOUND | 404 | missing record, record of another company, unknown route |
| METHOD_NOT_ALLOWED | 405 | known path, unsupported method |
| BAD_REQUEST | 400 | malformed JSON or a non-JSON body |
| VALIDATION_ERROR | 400 | invalid input; \`details: [{field, message}]\` |
| INVALID_STATE, BLOCKED, CRITERIA_NOT_PASSED, PROPOSAL_INVALID | 409 | domain guards |
| CONFLICT | 409 | uniqueness or concurrency conflicts |
| PAYLOAD_TOO_LARGE | 413 | body over 1 MiB |
| RATE_LIMITED | 429 | login throttling (\`Retry-After\`) |
| SERVICE_UNAVAILABLE | 503 | database unreachable (\`Retry-After: 5\`) |
| INTERNAL_ERROR | 500 | anything else, with a logged \`errorId\` |

Browsers authenticate with the \`svc_session\` cookie (POST /api/auth/login). Agents use
\`Authorization: Bearer agk_…\` on the notification routes and the tool endpoint. The SSE streams
(\`GET /api/events\`, \`GET /api/events/notifications\`) send \`text/event-stream\`; the tool endpoint
(\`POST /api/mcp\`) speaks MCP (JSON-RPC 2.0) over Streamable HTTP.`;

/**
 * OpenAPI 3 document generated from the controllers and DTOs: UI at /api/docs, JSON at /api/docs.json. Built on the
 * first request for it, not at start-up (the scan of every route and DTO is a good part of an instance's boot).
 */
export function setupOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('svc')
    .setDescription(DESCRIPTION)
    .setVersion('1.0')
    .addCookieAuth('svc_session', { type: 'apiKey', in: 'cookie', name: 'svc_session' }, 'session')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Agent API key (agk_…)' }, 'agentKey')
    .build();
  SwaggerModule.setup('api/docs', app, () => SwaggerModule.createDocument(app, config), { jsonDocumentUrl: 'api/docs.json', raw: ['json'] });
}
