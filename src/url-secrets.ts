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
  // Shopify's `hmac`, OAuth 1's `oauth_verifier` and PKCE's `code_verifier`, CAS's `ticket`.
  'hmac', 'verifier', 'ticket',
]);
/** `code` after these names what a reader needs and no secret: `error_code`, `status_code`, `country_code`. */
const PLAIN_CODES = new Set(['error', 'err', 'status', 'http', 'response', 'exit', 'reason', 'country', 'region', 'zip', 'postal', 'post', 'currency', 'lang', 'language', 'locale', 'iso', 'state', 'product']);
/** The same words run together ("accesstoken", "clientSecret" lower-cased, "x-api-key" without dashes). */
const SECRET_SUFFIX = /(?:token|secret|password|passwd|apikey|signature|credential|sessionid|email|phone)$/;

/**
 * A parameter's head: its separator and name, then `=`. Separators and `=` count percent-encoded
 * too, once or more (`%3F`, `%253F`…): a URL carried in another's value (`/login?next=%2Freset%3Ftoken%3D…`,
 * a redirect target encoded twice) holds its parameters that way. A name may hold escapes, but
 * none of a separator or `=`.
 */
const PARAM_HEAD = /([?&#;]|%(?:25)*(?:3[fFbB]|2[36]))((?:[^=&#?;%\s"'<>]|%(?!(?:25)*(?:3[fFbBdD]|2[36]))[0-9a-fA-F]{2}){1,200})(=|%(?:25)*3[dD])/g;
/** Where a value written after a plain `=` ends: the next separator, space or quote. */
const PLAIN_VALUE_END = /[&#;\s"'<>]|$/g;
/** A URL's user information, `scheme://user:password@`: the password is a secret whatever its name. */
const USERINFO = /(\b[a-zA-Z][a-zA-Z0-9+.-]{0,20}:\/\/[^/?#@\s:"'<>]{0,200}):([^/?#@\s"'<>]{1,500})@/g;

/** Whether a parameter of this name holds a secret or personal data. */
export function isSecretParam(name: string): boolean {
  let decoded = name;
  // Encoded once or more (a name inside an encoded URL): read as written at last.
  for (let round = 0; round < 3 && (decoded.includes('%') || decoded.includes('+')); round++) {
    try {
      decoded = decodeURIComponent(decoded.replace(/\+/g, ' '));
    } catch {
      break;
    }
  }
  const words = decoded.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
  for (const [i, word] of words.entries()) if (SECRET_WORDS.has(word) && !(word === 'code' && PLAIN_CODES.has(words[i - 1]!))) return true;
  return SECRET_SUFFIX.test(words.join(''));
}

/**
 * The URL with the value of every secret-named query or fragment parameter replaced by `***`
 * (`/reset?token=***&lang=en`, `#access_token=***&token_type=bearer`); anything else unchanged.
 * (`;jsessionid=***` too), and so inside a URL carried in another's value, plain
 * (`?next=/reset?token=***`) or percent-encoded (`?next=%2Freset%3Ftoken%3D***`), and a password
 * written into the URL (`https://user:***@host/`), and a token written as a path segment
 * (`/reset/***`, see PATH_TOKEN).
 */
export function maskUrlSecrets(url: string): string {
  const outside = maskPathTokens(url.includes('@') ? maskPasswords(url) : url);
  const start = firstOf(outside, '?#;');
  if (start < 0) return outside;
  const tail = outside.slice(start);
  const masked = maskParams(tail);
  return masked === tail ? outside : outside.slice(0, start) + masked;
}

/**
 * The same for URLs inside free text (a console error that names the request it failed on):
 * every `?name=value`, `&name=value`, `#name=value` or `;name=value` in it, encoded or not,
 * every `scheme://user:password@` and every path token.
 */
export function maskUrlSecretsInText(text: string): string {
  const outside = maskPathTokens(text.includes('@') ? maskPasswords(text) : text);
  return outside.includes('=') || ENCODED_EQUALS.test(outside) ? maskParams(outside) : outside;
}

const ENCODED_EQUALS = /%(?:25)*3[dD]/;

/**
 * A token written as a path segment: one of 16 or more URL characters, with letters and digits,
 * right after a segment that names what such links are for (`/reset/<token>`,
 * `/invitations/<token>/accept`, `/auth/magic-link/<token>`, `/share/<token>`), or a JSON Web
 * Token anywhere in a path. Other long segments (an order's id, a product's slug) stay.
 * A host name is no segment (`https://reset.example.com/…`).
 */
const PATH_TOKEN = /(?<!\/)\/([A-Za-z][\w.~-]{0,40})\/([\w.~%-]{16,512})(?=[/?#;\s"'<>)\]]|$)/g;
const PATH_JWT = /(?<!\/)\/(eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*)(?=[/?#;\s"'<>)\]]|$)/g;
/** Words of a segment before a token: what reset, sign-in, invitation and sharing links are named. */
const TOKEN_PATHS = new Set([
  'reset', 'password', 'passwordless', 'verify', 'verification', 'confirm', 'confirmation', 'activate', 'activation', 'magic', 'invite',
  'invites', 'invitation', 'invitations', 'token', 'tokens', 'login', 'signin', 'auth', 'otp', 'unlock', 'recover', 'recovery', 'share', 'shared', 'secret',
]);

function maskPathTokens(text: string): string {
  if (!text.includes('/')) return text;
  let masked = text.replace(PATH_TOKEN, (whole, before: string, token: string) => {
    if (token === MASKED_URL_VALUE || !/\d/.test(token) || !/[A-Za-z]/.test(token)) return whole;
    const words = before.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/);
    return words.some((word) => TOKEN_PATHS.has(word)) ? `/${before}/${MASKED_URL_VALUE}` : whole;
  });
  if (masked.includes('/eyJ')) masked = masked.replace(PATH_JWT, `/${MASKED_URL_VALUE}`);
  return masked;
}

function maskPasswords(text: string): string {
  return text.replace(USERINFO, (whole, before: string, password: string) => (password === MASKED_URL_VALUE ? whole : `${before}:${MASKED_URL_VALUE}@`));
}

/**
 * Masks every secret-named parameter's value. The scan goes on inside the values of the others
 * (a URL carried in `next=` or `redirect_uri=` has parameters of its own). A value after a plain
 * `=` runs to the next plain separator; after an encoded one (`%3D`, or `%253D` for a URL encoded
 * twice), to the next separator encoded as many times or fewer, or a plain one.
 */
function maskParams(text: string): string {
  let out = '';
  let copied = 0;
  PARAM_HEAD.lastIndex = 0;
  for (let head = PARAM_HEAD.exec(text); head !== null; head = PARAM_HEAD.exec(text)) {
    const valueStart = head.index + head[0].length;
    if (!isSecretParam(head[2]!)) {
      // The scan goes on from the value's start: it may hold a URL of its own.
      PARAM_HEAD.lastIndex = valueStart;
      continue;
    }
    const end = valueEnd(text, valueStart, head[3]!);
    const value = text.slice(valueStart, end);
    PARAM_HEAD.lastIndex = Math.max(end, valueStart);
    if (value === '' || value === MASKED_URL_VALUE) continue;
    out += text.slice(copied, valueStart) + MASKED_URL_VALUE;
    copied = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Where the value that starts at `from`, after `equals`, ends. */
function valueEnd(text: string, from: number, equals: string): number {
  if (equals === '=') {
    PLAIN_VALUE_END.lastIndex = from;
    return PLAIN_VALUE_END.exec(text)!.index;
  }
  // `%3D` is depth 1, `%253D` depth 2…: the value ends at a separator of depth 0 to that depth.
  const depth = (equals.length - 1) / 2;
  const end = new RegExp(`[&#;\\s"'<>]|%(?:25){0,${depth - 1}}(?:2[36]|3[bB])|$`, 'g');
  end.lastIndex = from;
  return end.exec(text)!.index;
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

/** Where a response body is read up to before it is masked and cut: well past what is shown. */
const BODY_READ_MAX = 4_000;
/**
 * A secret-named field written as `"name": "value"` (JSON), `name: value` or `name=value`, the
 * name quoted or not: its value runs to the closing quote (or the end, where the text was cut
 * inside it), or to the next separator.
 */
const NAMED_VALUE = /(["']?)([A-Za-z_$][\w$.-]{0,80})\1(\s*[:=]\s*)(?:"((?:[^"\\]|\\.)*)"?|'([^'\\]*)'?|([^\s,;&{}[\]"'<>][^\s,;&}\]"'<>]*))/g;
/** An HTTP credential written out: `Bearer <token>`, `Basic <base64>`. */
const CREDENTIAL = /\b(Bearer|Basic|Token)\s+([A-Za-z0-9._~+/=-]{8,})/gi;
const CREDENTIAL_SCHEME = /^(?:Bearer|Basic|Token)$/i;

/**
 * A server's words as a recording kept them (a failed request's response body): the values of
 * secret-named fields masked as URL parameters of those names are (`"token":"***"`,
 * `access_token: ***`), and URLs in it masked as recorded URLs are; the rest as sent. Read up to
 * BODY_READ_MAX characters.
 */
export function maskSecretsInBody(text: string): string {
  const head = text.length > BODY_READ_MAX ? text.slice(0, BODY_READ_MAX) : text;
  const credentials = head.replace(CREDENTIAL, (_whole, scheme: string) => `${scheme} ${MASKED_URL_VALUE}`);
  const named = credentials.replace(NAMED_VALUE, (whole, q: string, name: string, sep: string, dq?: string, sq?: string, bare?: string) => {
    const value = dq ?? sq ?? bare ?? '';
    // `Authorization: Bearer ***`: the scheme stays, its credential was masked above.
    if (!isSecretParam(name) || value === '' || value === MASKED_URL_VALUE || (bare !== undefined && CREDENTIAL_SCHEME.test(value))) return whole;
    const masked = dq !== undefined ? `"${MASKED_URL_VALUE}"` : sq !== undefined ? `'${MASKED_URL_VALUE}'` : MASKED_URL_VALUE;
    return `${q}${name}${q}${sep}${masked}`;
  });
  return maskUrlSecretsInText(named);
}
