/**
 * Recorded text (page text, labels, URLs, console messages) written into generated TypeScript.
 * It is data from someone else's page: it must never be able to end a string literal, a comment
 * or the file's enclosing HTML/Markdown, whatever it holds.
 */

/**
 * A single-quoted TypeScript string literal that always parses and means exactly `text`.
 * Beyond the quote and the backslash, every control character, the line and paragraph
 * separators, lone surrogates, the bidirectional controls (which make code read differently
 * than it runs) and `<` (so `</script>` cannot close an enclosing page) are escaped.
 */
export function lit(text: string): string {
  let out = "'";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const c = text[i]!;
    if (c === "'" || c === '\\') out += `\\${c}`;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f || c === '<' || isSpecial(code)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += c + text[i + 1];
        i++;
      } else out += `\\u${code.toString(16)}`;
    } else if (code >= 0xdc00 && code <= 0xdfff) out += `\\u${code.toString(16)}`;
    else out += c;
  }
  return `${out}'`;
}

/** Line and paragraph separators, NEL, bidi controls and other invisible format characters. */
function isSpecial(code: number): boolean {
  return (
    code === 0x85 ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x061c ||
    code === 0xfeff ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2069)
  );
}

/**
 * Text for a `//` comment: one line, nothing that ends the comment (line terminators) or hides
 * what follows (bidi and other invisible controls), at most `max` characters.
 */
export function commentText(text: string, max = 160): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    out += code < 0x20 || code === 0x7f || isSpecial(code) ? ' ' : c;
  }
  out = out.replace(/\s+/g, ' ').trim();
  // `<` too: a comment is still inside a file someone may paste into a <script> block.
  out = out.replace(/</g, '‹');
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** A CSS double-quoted string (for attribute selectors) holding `text` exactly. */
export function cssString(text: string): string {
  let out = '"';
  for (const c of text) {
    const code = c.codePointAt(0)!;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(16)} `;
    else out += c;
  }
  return `${out}"`;
}
