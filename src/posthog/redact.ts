/**
 * The API key must never reach the agent or a log in any form. Upstream text (error bodies,
 * 200 bodies shown as data, snapshot streams, redirect targets) passes through one Redactor,
 * which finds the key
 * - whole or as any window of WINDOW (8) characters or more of it (a proxy that echoes
 *   "phx_abcdefgh…" cut short still leaks most of the key);
 * - behind escapes that decode to key characters: JSON `\u0070`, URL `%70`, HTML `&#112;`
 *   (decoded up to three times, for text escaped twice);
 * - base64-encoded (the three byte alignments; windows of 11 characters, i.e. 8 bytes).
 * Where a hit needs decoding to be seen, the decoded text is what is shown, with the hit
 * replaced. Decoding only turns escapes into key-alphabet characters, so JSON stays JSON.
 */

export const REDACTED = '[redacted]';
/** The shortest run of the key that counts as the key. */
export const WINDOW = 8;
/** The shortest run of the key's base64 that counts (8 bytes). */
const B64_WINDOW = 11;

interface Secret {
  text: string;
  min: number;
  /** Aligned pieces: any run of `min` characters of `text` contains one of them whole. */
  anchors: Array<{ at: number; piece: string }>;
}

/** Escapes that decode to characters a key or its base64 can contain; nothing else is decoded. */
const SAFE_CHAR = /^[A-Za-z0-9_+/=-]$/;
const ESCAPES = /\\u([0-9a-fA-F]{4})|%([0-9a-fA-F]{2})|&#(x[0-9a-fA-F]{1,6}|\d{1,7});/g;
/**
 * A quick test for an escape that could decode to a key character (a superset: 0x25-0x7f, and
 * any entity); text without one is not decoded at all, which spares recorded pages full of
 * `\u003c` and the like a second pass.
 */
const REVEALING = /\\u00(?:2[5-9a-fA-F]|[3-7][0-9a-fA-F])|%(?:2[5-9a-fA-F]|[3-7][0-9a-fA-F])|&#/;

export class Redactor {
  private readonly secrets: Secret[];
  /** The same, without the base64 forms: for streams, where every byte is scanned. */
  private readonly plain: Secret[];
  /** Longest escaped form of a secret: how much of a stream's text is held back between chunks. */
  readonly holdBack: number;

  constructor(key: string | undefined) {
    if (!key) {
      this.secrets = [];
      this.plain = [];
      this.holdBack = 0;
      return;
    }
    const main = secret(key, Math.min(WINDOW, key.length));
    this.plain = [main];
    this.secrets = [main, ...base64Forms(key).map((form) => secret(form, Math.min(B64_WINDOW, form.length)))];
    // `&#x0000ff;`-style escapes are at most 10 characters per character.
    this.holdBack = key.length * 10 + 16;
  }

  get active(): boolean {
    return this.secrets.length > 0;
  }

  /** Text for display: every form of the key replaced. */
  text(input: string, secrets: Secret[] = this.secrets): string {
    if (secrets.length === 0 || input.length === 0) return input;
    // Escapes are decoded (up to three rounds, for text escaped twice) only to look for the key;
    // the decoded text is shown only when it holds one, so clean text keeps its escapes.
    let decoded = input;
    for (let round = 0; round < 3 && REVEALING.test(decoded); round++) {
      const next = decodeEscapes(decoded);
      if (next === decoded) break;
      decoded = next;
    }
    if (decoded !== input && findHits(decoded, secrets).length > 0) return replaceHits(decoded, secrets);
    return replaceHits(input, secrets);
  }

  /** Whether any form of the key is in the text (raw or decoded). */
  contains(input: string): boolean {
    return this.text(input) !== input;
  }

  /**
   * Parses a JSON body; strings (and keys) that hold the key in any form come back redacted.
   * The walk happens only when the raw text shows a hit, so clean answers cost one scan.
   */
  parse(raw: string): unknown {
    const value: unknown = JSON.parse(raw);
    if (!this.active || !this.contains(raw)) return value;
    return this.value(value);
  }

  /**
   * A JSON-safe value with every form of the key removed from its strings and property names.
   * One scan of its JSON text when it holds no key (the value comes back as it was, not copied);
   * otherwise a redacted copy, so a value shared elsewhere (a cached digest) is never changed.
   */
  scrub<T>(value: T): T {
    if (!this.active || value === undefined) return value;
    const raw = JSON.stringify(value);
    if (raw === undefined || !this.contains(raw)) return value;
    return this.value(JSON.parse(raw)) as T;
  }

  /** Redacts every string of a parsed JSON value (iteratively: a deep value cannot overflow the stack). */
  value(root: unknown): unknown {
    if (typeof root === 'string') return this.text(root);
    if (typeof root !== 'object' || root === null) return root;
    const stack: Array<Record<string, unknown> | unknown[]> = [root as Record<string, unknown>];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          const item = node[i];
          if (typeof item === 'string') node[i] = this.text(item);
          else if (typeof item === 'object' && item !== null) stack.push(item as Record<string, unknown>);
        }
        continue;
      }
      for (const name of Object.keys(node)) {
        const item = node[name];
        const safeName = this.text(name);
        if (safeName !== name) {
          delete node[name];
          node[safeName] = item;
        }
        if (typeof item === 'string') node[safeName] = this.text(item);
        else if (typeof item === 'object' && item !== null) stack.push(item as Record<string, unknown>);
      }
    }
    return root;
  }

  /**
   * A byte stream with the key removed. Text is released up to its last newline (snapshot data
   * is JSON lines), or, for a line longer than `maxHeld`, all but `holdBack` characters, so a key
   * split across two chunks is still seen whole.
   */
  async *stream(chunks: AsyncIterable<Buffer>, maxHeld = 1024 * 1024): AsyncGenerator<Buffer> {
    if (!this.active) {
      yield* chunks;
      return;
    }
    let held: Buffer = Buffer.alloc(0);
    for await (const chunk of chunks) {
      held = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
      let cut = held.lastIndexOf(0x0a) + 1;
      // A line longer than maxHeld: release all but the tail, cut before a UTF-8 continuation byte.
      if (cut === 0 && held.length > maxHeld) {
        cut = held.length - this.holdBack * 4;
        while (cut > 0 && (held[cut]! & 0xc0) === 0x80) cut--;
      }
      if (cut <= 0) continue;
      const ready = held.subarray(0, cut);
      held = held.subarray(cut);
      yield this.bytes(ready);
    }
    if (held.length > 0) yield this.bytes(held);
  }

  /** Bytes as they came when they hold no key (no copy), else re-encoded with it removed. */
  private bytes(chunk: Buffer): Buffer {
    const text = chunk.toString('utf8');
    const safe = this.text(text, this.plain);
    return safe === text ? chunk : Buffer.from(safe, 'utf8');
  }

}

/**
 * Anchors of ANCHOR characters every `min - ANCHOR + 1`: a run of `min` characters starting at p
 * spans the positions p … p + min - ANCHOR, as many as the stride, so one of them is an anchor's
 * start, and that anchor lies inside the run. Every text is searched once per anchor, on every
 * answer and every result: fewer, shorter anchors (31 instead of 41 for a 44-character key and
 * its base64 forms) made the scan about a fifth faster, and a 3-character piece is still rare
 * enough in text that the few chance matches cost only their extension check.
 */
const ANCHOR = 3;

function secret(text: string, min: number): Secret {
  const size = Math.max(1, Math.min(ANCHOR, min));
  const stride = min - size + 1;
  const anchors: Secret['anchors'] = [];
  let at = 0;
  for (; at + size <= text.length; at += stride) anchors.push({ at, piece: text.slice(at, at + size) });
  // Not needed by the argument above, kept as before: the text's end is an anchor too.
  if (text.length >= size && at - stride + size < text.length) anchors.push({ at: text.length - size, piece: text.slice(-size) });
  return { text, min, anchors };
}

/** The key's base64 at the three byte alignments, without the edge characters that depend on neighbours. */
function base64Forms(key: string): string[] {
  const forms = new Set<string>();
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.from('\0'.repeat(pad) + key, 'latin1').toString('base64').replace(/=+$/, '');
    // Characters shared with the padding bytes, and the last (partial) one, are not the key's alone.
    const start = pad === 0 ? 0 : Math.ceil((pad * 8) / 6);
    const inner = encoded.slice(start, encoded.length - 1);
    if (inner.length >= B64_WINDOW) forms.add(inner);
  }
  return [...forms];
}

/** Ranges [start, end) of the text that are runs of at least `min` characters of a secret. */
function findHits(text: string, secrets: Secret[]): Array<[number, number]> {
  const hits: Array<[number, number]> = [];
  for (const s of secrets) {
    for (const { at, piece } of s.anchors) {
      for (let p = text.indexOf(piece); p !== -1; p = text.indexOf(piece, p + 1)) {
        let left = 0;
        while (p - left - 1 >= 0 && at - left - 1 >= 0 && text[p - left - 1] === s.text[at - left - 1]) left++;
        let right = piece.length;
        while (p + right < text.length && at + right < s.text.length && text[p + right] === s.text[at + right]) right++;
        if (left + right >= s.min) hits.push([p - left, p + right]);
      }
    }
  }
  return hits;
}

function replaceHits(text: string, secrets: Secret[]): string {
  const hits = findHits(text, secrets);
  if (hits.length === 0) return text;
  hits.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of hits) {
    if (end <= from) continue;
    if (start >= from) {
      out += text.slice(from, start) + REDACTED;
    }
    from = Math.max(from, end);
  }
  return out + text.slice(from);
}

function decodeEscapes(text: string): string {
  return text.replace(ESCAPES, (whole, u: string | undefined, pct: string | undefined, entity: string | undefined) => {
    const code = u !== undefined ? Number.parseInt(u, 16) : pct !== undefined ? Number.parseInt(pct, 16) : entity!.startsWith('x') ? Number.parseInt(entity!.slice(1), 16) : Number(entity);
    const char = String.fromCharCode(code);
    // '%' too, so that twice URL-encoded text (%2570) decodes in two rounds.
    return SAFE_CHAR.test(char) || (pct !== undefined && char === '%') ? char : whole;
  });
}
