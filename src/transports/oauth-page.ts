// The consent page of the OAuth server (oauth.ts): a plain HTML form, no script, that asks for
// the PostHog personal API key once and says which client asks and where the browser goes next.
// Every value shown is escaped; the key is only ever in the POST body.

export interface ConsentView {
  /** The client's own name as it registered (shown quoted: any client can pick any name). */
  clientName: string | undefined;
  /** Where the browser is sent after the form: the scheme and host of the redirect URI. */
  returnTo: string;
  /** This server's public origin. */
  server: string;
  /** The sealed, signed request the form posts back. */
  request: string;
  /** Why the last attempt did not go through, shown above the form. */
  error?: string | undefined;
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f4ef;color:#1d1f27}
main{max-width:32rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid #ddd;border-radius:8px}
h1{font-size:1.3rem;margin:0 0 1rem}code{background:#f0f0f0;padding:0 .2em;border-radius:3px;word-break:break-all}
label{display:block;font-weight:600;margin-top:1rem}input[type=password]{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;margin-top:.3rem;border:1px solid #999;border-radius:4px}
.hint{font-size:.9rem;color:#555}.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.6rem;border-radius:4px}
.warn{font-size:.95rem}.actions{margin-top:1.2rem;display:flex;gap:.6rem}
button{font:inherit;padding:.5rem 1.1rem;border-radius:4px;border:1px solid #1d4aff;background:#1d4aff;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d1f27;border-color:#999}`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function consentPage(view: ConsentView): string {
  // <bdi>: a name in a right-to-left script cannot reorder the sentence around it.
  const who = view.clientName ? `The app calling itself <strong>“<bdi>${escapeHtml(view.clientName)}</bdi>”</strong>` : 'An app that gave no name';
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>Connect to PostHog Replay MCP</title><style>${STYLE}</style></head>
<body><main>
<h1>Connect to PostHog session recordings</h1>
<p>${who} asks to use the PostHog Replay MCP server at <code>${escapeHtml(view.server)}</code> on your behalf: to list, read and summarise your session recordings and projects (and change or delete them, if this server allows writes), with your PostHog personal API key.</p>
<p class="warn">When you connect, your browser goes back to <code>${escapeHtml(view.returnTo)}</code>. Continue only if you started this from that app.</p>
${error}<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${escapeHtml(view.request)}">
<label for="api_key">PostHog personal API key</label>
<input id="api_key" name="api_key" type="password" autocomplete="off" spellcheck="false" placeholder="phx_…" required>
<p class="hint">PostHog → Settings → Personal API keys. Scopes: <code>session_recording:read</code>, <code>project:read</code> and <code>query:read</code> (the <code>:write</code> ones to change or delete). The key stays with this server, encrypted inside the tokens it gives the app; it is checked with PostHog before you are sent back.</p>
<div class="actions"><button type="submit">Connect</button><button class="secondary" type="submit" name="deny" value="1" formnovalidate>Cancel</button></div>
</form>
</main></body></html>`;
}

/** A page for a request that cannot be sent back to the app (unknown client, unregistered redirect). */
export function problemPage(title: string, detail: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></main></body></html>`;
}
