import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/posthog/redact.js';

const KEY = 'phx_Abc123def456GHI789jkl012MNO345pqr678STU901';

describe('Redactor', () => {
  const r = new Redactor(KEY);

  it('removes the key whole, and any run of 8 or more of its characters', () => {
    expect(r.text(`a ${KEY} b`)).toBe('a [redacted] b');
    expect(r.text(`cut: ${KEY.slice(0, 20)}…`)).toBe('cut: [redacted]…');
    expect(r.text(`middle ${KEY.slice(13, 21)} end`)).toBe('middle [redacted] end');
    // Seven characters are not the key.
    expect(r.text(`short ${KEY.slice(13, 20)} end`)).toBe(`short ${KEY.slice(13, 20)} end`);
  });

  it('finds every run of 8+ key characters in long noise, and leaves runs of 7 (the one-pass sieve never hides a hit)', () => {
    // Seeded, so a failure can be replayed: noise drawn from the key's own alphabet, the worst case for the sieve.
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const alphabet = `${KEY}-./:" {}`;
    const noise = (n: number) => Array.from({ length: n }, () => alphabet[random(alphabet.length)]).join('');
    for (let round = 0; round < 300; round++) {
      const length = 7 + random(KEY.length - 6);
      const at = random(KEY.length - length + 1);
      const run = KEY.slice(at, at + length);
      const text = `${noise(random(3000))}|${run}|${noise(random(3000))}`;
      const out = r.text(text);
      if (length >= 8) expect(out, `round ${round}`).toContain('|[redacted]|');
      else expect(out.includes(`|${run}|`), `round ${round}`).toBe(true);
      for (let i = 0; i + 8 <= KEY.length; i++) expect(out.includes(KEY.slice(i, i + 8)), `round ${round}`).toBe(false);
    }
  });

  it('agrees with a brute-force search on texts dense with pieces of the key and of its base64 forms', () => {
    // The key's base64 at the three byte alignments, less the edge characters that depend on their
    // neighbours (as redact.ts documents); a run of 11 of them counts, of the key itself 8.
    const forms = [0, 1, 2].map((pad) => {
      const encoded = Buffer.from('\0'.repeat(pad) + KEY, 'latin1').toString('base64').replace(/=+$/, '');
      return encoded.slice(pad === 0 ? 0 : Math.ceil((pad * 8) / 6), encoded.length - 1);
    });
    const secrets = [{ text: KEY, min: 8 }, ...forms.map((text) => ({ text, min: 11 }))];
    /** Every maximal run of a secret (at least its min long) in the text, merged as the redactor shows them. */
    const reference = (text: string): string => {
      const hits: Array<[number, number]> = [];
      for (const { text: f, min } of secrets) {
        for (let i = 0; i < text.length; i++) {
          for (let k = 0; k < f.length; k++) {
            if (text[i] !== f[k] || (i > 0 && k > 0 && text[i - 1] === f[k - 1])) continue;
            let n = 0;
            while (i + n < text.length && k + n < f.length && text[i + n] === f[k + n]) n++;
            if (n >= min) hits.push([i, i + n]);
          }
        }
      }
      hits.sort((a, b) => a[0] - b[0]);
      let out = '';
      let from = 0;
      for (const [start, end] of hits) {
        if (end <= from) continue;
        if (start >= from) out += text.slice(from, start) + '[redacted]';
        from = Math.max(from, end);
      }
      return out + text.slice(from);
    };
    let seed = 11;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    // No escape characters (%, \\, &): what escapes decode to is tested apart.
    const alphabet = `${KEY}${forms.join('')}-./:" {}`;
    const pieces = [KEY, ...forms];
    let redacted = 0;
    for (let round = 0; round < 400; round++) {
      let text = '';
      for (let part = random(12); part >= 0; part--) {
        if (random(3) === 0) text += Array.from({ length: random(40) }, () => alphabet[random(alphabet.length)]).join('');
        else {
          const f = pieces[random(pieces.length)]!;
          const at = random(f.length);
          text += f.slice(at, at + 1 + random(20));
        }
      }
      const expected = reference(text);
      if (expected !== text) redacted++;
      expect(r.text(text), `round ${round}: ${text}`).toBe(expected);
    }
    // The rounds hold the key often enough to mean something, and not always.
    expect(redacted).toBeGreaterThan(100);
    expect(redacted).toBeLessThan(400);
  });

  it('finds a run whose only anchor overlaps a chance match of another anchor', () => {
    // Anchors are 3 characters every 6 of the key: "abc" at 0, "bcd" at 6. In "abcdEFGHI" the
    // run "bcdEFGHI" (8 characters, its only anchor "bcd") starts one character after a chance "abc".
    const key = 'abcXYZbcdEFGHIJKLMNOPQRSTUVW';
    expect(new Redactor(key).text('abcdEFGHI')).toBe('a[redacted]');
  });

  it('sees through JSON, URL and HTML escapes (also escaped twice) and shows the decoded text redacted', () => {
    const json = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    expect(r.text(`x ${json} y`)).toBe('x [redacted] y');
    expect(r.text(`q=${encodeURIComponent(KEY).replace(/_/g, '%5F')}`)).toBe('q=[redacted]');
    expect(r.text(`q=${[...KEY].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`)).toBe('q=[redacted]');
    expect(r.text(`q=${[...KEY].map((c) => `%25${c.charCodeAt(0).toString(16)}`).join('')}`)).toBe('q=[redacted]');
    expect(r.text([...KEY].map((c) => `&#${c.charCodeAt(0)};`).join(''))).toBe('[redacted]');
    // Text without the key keeps its escapes.
    expect(r.text('a%20b \\u00e9')).toBe('a%20b \\u00e9');
  });

  it('finds the key base64-encoded at any byte alignment', () => {
    for (const prefix of ['', 'x', 'xy', 'Bearer ']) {
      const encoded = Buffer.from(prefix + KEY).toString('base64');
      expect(r.text(`auth ${encoded}`), prefix).toMatch(/\[redacted\]/);
    }
  });

  it('parses JSON and redacts only the strings (and names) that hold the key', () => {
    const raw = `{"name":"${KEY}","ok":"fine","nested":[{"k":"${KEY.slice(4, 30)}"}],"${KEY}":1}`;
    expect(r.parse(raw)).toEqual({ name: '[redacted]', ok: 'fine', nested: [{ k: '[redacted]' }], '[redacted]': 1 });
    const clean = '{"a":"b","url":"https://x/?q=%20"}';
    expect(r.parse(clean)).toEqual({ a: 'b', url: 'https://x/?q=%20' });
  });

  it('redacts a stream whose chunks split the key', async () => {
    const text = `line one\n["w",{"t":"${KEY}"}]\nlast ${KEY}`;
    async function* chunks() {
      for (let i = 0; i < text.length; i += 5) yield Buffer.from(text.slice(i, i + 5));
    }
    let out = '';
    for await (const chunk of r.stream(chunks())) out += chunk.toString();
    expect(out).toBe('line one\n["w",{"t":"[redacted]"}]\nlast [redacted]');
  });

  it('scrub: a clean value comes back as it was; one holding the key, as a redacted copy', () => {
    const clean = { pages: ['/checkout'], clicks: [{ label: 'Pay', at: 3 }] };
    expect(r.scrub(clean)).toBe(clean);
    const b64 = Buffer.from(KEY).toString('base64');
    const dirty = { clicks: [{ label: `Copy ${KEY}`, at: 3 }], [`k ${KEY}`]: 1, nested: { deep: [[`%70hx_${KEY.slice(4)}`]], b64 } };
    const before = JSON.stringify(dirty);
    const scrubbed = r.scrub(dirty);
    expect(JSON.stringify(dirty)).toBe(before);
    expect(scrubbed.clicks[0]!.label).toBe('Copy [redacted]');
    expect(Object.keys(scrubbed)).toContain('k [redacted]');
    expect(JSON.stringify(scrubbed)).not.toMatch(/Abc123de|def456GH/);
    expect(scrubbed.nested.b64).not.toBe(b64);
    expect(r.scrub(undefined)).toBeUndefined();
  });

  it('without a key, text passes unchanged', () => {
    expect(new Redactor(undefined).text('phx_anything_at_all')).toBe('phx_anything_at_all');
  });
});
