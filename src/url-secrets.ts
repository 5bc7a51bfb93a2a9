/**
 * Secrets that pages carry in their URLs: a password-reset or magic-link token, an OAuth code or
 * access token (often in the fragment), a signed link's signature, an API key, an email address.
 * Recorders keep whole URLs (page addresses, request URLs), so a summary would hand them to the
 * model. Below digest/ and tools/: both mask URLs the same way before they show one.
 */

/** What a masked value reads as: its name is kept, so a reader still sees which parameter was there. */
export const MASKED_URL_VALUE = '***';

/** Words that make a parameter's value a secret or personal data, wherever they stand in its name. */
const SECRET_WORDS = new Set([
  'token', 'secret', 'password', 'passwd', 'pwd', 'pass', 'passcode', 'passphrase', 'auth', 'authorization', 'credential', 'credentials',
  'key', 'apikey', 'sig', 'signature', 'session', 'sessionid', 'sid', 'jwt', 'otp', 'code', 'nonce', 'email', 'mail', 'phone', 'ssn',
]);
/** The same words run together ("accesstoken", "clientSecret" lower-cased, "x-api-key" without dashes). */
const SECRET_SUFFIX = /(?:token|secret|password|passwd|apikey|signature|credential|sessionid|email|phone)$/;

/** A query or fragment parameter: its separator, name and value (up to the next separator, space or quote). */
const PARAM = /([?&#;])([^=&#?;\s"'<>]{1,200})=([^&#;\s"'<>]*)/g;

/** Whether a parameter of this name holds a secret or personal data. */
export function isSecretParam(name: string): boolean {
  let decoded = name;
  if (name.includes('%') || name.includes('+')) {
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // As written.
    }
  }
  const words = decoded.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
  for (const word of words) if (SECRET_WORDS.has(word)) return true;
  return SECRET_SUFFIX.test(words.join(''));
}

/**
 * The URL with the value of every secret-named query or fragment parameter replaced by `***`
 * (`/reset?token=***&lang=en`, `#access_token=***&token_type=bearer`); anything else unchanged.
 * (`;jsessionid=***` too). Cheap when there is nothing to do: most URLs have no `?`, `#` or `;`.
 */
export function maskUrlSecrets(url: string): string {
  const start = firstOf(url, '?#;');
  if (start < 0) return url;
  const tail = url.slice(start);
  const masked = maskParams(tail);
  return masked === tail ? url : url.slice(0, start) + masked;
}

/**
 * The same for URLs inside free text (a console error that names the request it failed on):
 * every `?name=value`, `&name=value`, `#name=value` or `;name=value` in it.
 */
export function maskUrlSecretsInText(text: string): string {
  return text.includes('=') ? maskParams(text) : text;
}

function maskParams(text: string): string {
  let changed = false;
  const masked = text.replace(PARAM, (whole, separator: string, name: string, value: string) => {
    if (value === '' || value === MASKED_URL_VALUE || !isSecretParam(name)) return whole;
    changed = true;
    return `${separator}${name}=${MASKED_URL_VALUE}`;
  });
  return changed ? masked : text;
}

/** Where the first of these characters stands in the text, or -1. */
function firstOf(text: string, characters: string): number {
  let first = -1;
  for (const c of characters) {
    const at = text.indexOf(c);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}
