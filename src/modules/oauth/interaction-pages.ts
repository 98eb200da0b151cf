import { escapeHtml as e } from './oauth-server.js';

/**
 * The sign-in and consent pages of the authorization flow (docs/platform.md §2.5): small, server-rendered, plain forms
 * that work without JavaScript. Every value shown is escaped.
 */
const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.75rem 0 .25rem}input[type=email],input[type=password],input[type=text],select{width:100%;padding:.4rem;font:inherit}
button{margin:1rem .5rem 0 0;padding:.5rem 1rem;font:inherit}.error{color:#a00}.muted{color:#666;font-size:.9rem}
fieldset{border:1px solid #ccc;margin:1rem 0;padding:.5rem 1rem}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${e(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function loginPage(uid: string, clientName: string, error: string | null, email = ''): string {
  return page(
    'Sign in',
    `<h1>Sign in</h1><p><strong>${e(clientName)}</strong> wants to use the tool endpoint as one of your agents.</p>
${error ? `<p class="error" role="alert">${e(error)}</p>` : ''}
<form method="post" action="/oauth/interaction/${e(uid)}/login">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${e(email)}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<form method="post" action="/oauth/interaction/${e(uid)}/abort"><button type="submit">Cancel</button></form>`,
  );
}

export interface ConsentAgent {
  uuid: string;
  name: string;
  preset: string;
}

export function consentPage(
  uid: string,
  view: { clientName: string; redirectHost: string; userName: string; agents: ConsentAgent[]; error: string | null },
): string {
  const choices = view.agents
    .map((a, i) => `<label><input type="radio" name="agent" value="${e(a.uuid)}"${i === 0 ? ' checked' : ''}> ${e(a.name)} <span class="muted">(${e(a.preset)})</span></label>`)
    .join('\n');
  const presets = ['developer_agent', 'pm_agent', 'admin_agent'].map((p) => `<option value="${p}">${p}</option>`).join('');
  return page(
    'Allow access',
    `<h1>Allow access</h1>
<p><strong>${e(view.clientName)}</strong> (returns to <strong>${e(view.redirectHost)}</strong>) asks to use the tool endpoint.
It will act as the agent you pick, with that agent's permissions, until you revoke it.</p>
<p class="muted">Signed in as ${e(view.userName)}.</p>
${view.error ? `<p class="error" role="alert">${e(view.error)}</p>` : ''}
<form method="post" action="/oauth/interaction/${e(uid)}/consent">
<fieldset><legend>Act as</legend>
${choices}
<label><input type="radio" name="agent" value="new"${view.agents.length ? '' : ' checked'}> A new agent:</label>
<label for="name">Name</label><input id="name" name="name" type="text" maxlength="200" value="${e(view.clientName)}">
<label for="preset">Preset</label><select id="preset" name="preset">${presets}</select>
</fieldset>
<button type="submit">Allow</button></form>
<form method="post" action="/oauth/interaction/${e(uid)}/abort"><button type="submit">Deny</button></form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${e(title)}</h1><p>${e(message)}</p>`);
}
