// A page as a browser can load it, rebuilt from a recording's rrweb events with everything they
// hold (every attribute, whole texts, iframe documents, shadow roots), to check the locators a
// generated test uses against the page as Chromium resolves them. Written here, apart from the
// server's own mirror (src/digest/mirror.ts), so the check does not share the model it checks.
// Nothing loads from the network: scripts, styles, links and every src are left out.

interface Node {
  type: number;
  tag?: string;
  attrs: Record<string, unknown>;
  text?: string;
  children: number[];
  parent: number | undefined;
  shadow?: boolean;
}

export class FullDom {
  readonly nodes = new Map<number, Node>();
  root: number | undefined;

  apply(event: { type: number; data?: unknown }): void {
    const data = (event.data ?? {}) as Record<string, any>;
    if (event.type === 2) {
      this.nodes.clear();
      this.root = typeof data.node?.id === 'number' ? data.node.id : undefined;
      this.add(data.node, undefined);
    } else if (event.type === 3 && data.source === 0) {
      for (const r of data.removes ?? []) this.remove(r.id);
      let waiting: any[] = [...(data.adds ?? [])];
      for (let pass = 0; pass < 3 && waiting.length > 0; pass++) {
        const retry: any[] = [];
        for (const add of waiting) {
          if (!this.nodes.has(add.parentId)) retry.push(add);
          else this.add(add.node, add.parentId, add.nextId);
        }
        waiting = retry;
      }
      for (const t of data.texts ?? []) {
        const node = this.nodes.get(t.id);
        if (node) node.text = String(t.value ?? '');
      }
      for (const a of data.attributes ?? []) {
        const node = this.nodes.get(a.id);
        if (!node) continue;
        for (const [k, v] of Object.entries(a.attributes ?? {})) {
          if (v === null) delete node.attrs[k];
          else node.attrs[k] = v;
        }
      }
    }
  }

  private add(root: any, parent: number | undefined, nextId?: number | null): void {
    const stack: Array<[any, number | undefined, number | null | undefined]> = [[root, parent, nextId]];
    while (stack.length > 0) {
      const [n, p, next] = stack.pop()!;
      if (!n || typeof n.id !== 'number') continue;
      if (this.nodes.has(n.id)) this.remove(n.id);
      const node: Node = { type: n.type, attrs: { ...(n.attributes ?? {}) }, children: [], parent: p, ...(n.tagName ? { tag: String(n.tagName).toLowerCase() } : {}), ...(typeof n.textContent === 'string' ? { text: n.textContent } : {}), ...(n.isShadow ? { shadow: true } : {}) };
      if (n.type === 1) node.tag = '!doctype';
      this.nodes.set(n.id, node);
      const parentNode = p === undefined ? undefined : this.nodes.get(p);
      if (parentNode) {
        const at = typeof next === 'number' ? parentNode.children.indexOf(next) : -1;
        if (at === -1) parentNode.children.push(n.id);
        else parentNode.children.splice(at, 0, n.id);
      }
      const kids = Array.isArray(n.childNodes) ? n.childNodes : [];
      for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], n.id, undefined]);
    }
  }

  private remove(id: number): void {
    const node = this.nodes.get(id);
    if (!node) return;
    const parent = node.parent === undefined ? undefined : this.nodes.get(node.parent);
    if (parent) parent.children = parent.children.filter((c) => c !== id);
    const stack = [id];
    while (stack.length > 0) {
      const n = this.nodes.get(stack.pop()!);
      if (!n) continue;
      stack.push(...n.children);
    }
    this.nodes.delete(id);
  }

  /**
   * The page as HTML, from the document (or any node) down. `marks` adds `data-shim-step` to
   * the elements a shim acts for (reproduce/shim.ts); `origin` turns links to it into paths.
   */
  html(id = this.root, options: HtmlOptions = {}): string {
    if (id === undefined) return '';
    const out: string[] = [];
    this.options = options;
    this.write(id, out, 0);
    return out.join('');
  }

  /** A copy that later events do not change. */
  clone(): FullDom {
    const copy = new FullDom();
    for (const [id, node] of this.nodes) copy.nodes.set(id, { ...node, attrs: { ...node.attrs }, children: [...node.children] });
    copy.root = this.root;
    return copy;
  }

  private options: HtmlOptions = {};

  private write(id: number, out: string[], depth: number): void {
    const node = this.nodes.get(id);
    if (!node || depth > 2_000) return;
    if (node.type === 0 || node.type === 1) {
      for (const c of node.children) this.write(c, out, depth + 1);
      return;
    }
    if (node.type === 3) {
      out.push(escapeText(node.text ?? ''));
      return;
    }
    if (node.type !== 2 || !node.tag) return;
    const tag = node.tag.replace(/[^a-z0-9-]/g, '') || 'div';
    if (DROPPED.has(tag)) return;
    const attrs = Object.entries(node.attrs).filter(([k, v]) => /^[a-zA-Z_:][-a-zA-Z0-9_:.]*$/.test(k) && !/^on/i.test(k) && !NO_FETCH.has(k) && k !== 'style' && !k.startsWith('rr_') && k !== '_cssText' && v !== false && v !== null);
    const mark = this.options.marks?.get(id);
    if (mark !== undefined) attrs.push(['data-shim-step', mark]);
    const origin = this.options.origin;
    if (origin) {
      for (const pair of attrs) {
        if (pair[0] === 'href' && typeof pair[1] === 'string' && pair[1].startsWith(origin)) pair[1] = pair[1].slice(origin.length) || '/';
      }
    }
    if (node.attrs.rr_width !== undefined) attrs.push(['style', `display:inline-block;width:${String(node.attrs.rr_width)};height:${String(node.attrs.rr_height ?? '1px')}`]);
    const own = node.children.filter((c) => !this.nodes.get(c)?.shadow);
    const shadow = node.children.filter((c) => this.nodes.get(c)?.shadow);
    if (tag === 'iframe' || tag === 'frame') {
      // A same-origin frame's document, mirrored under the element: loaded from srcdoc, nothing fetched.
      const options = this.options;
      const doc = own.map((c) => this.html(c, options)).join('');
      this.options = options;
      attrs.push(['srcdoc', doc || '<!doctype html><html><body></body></html>']);
      out.push(`<iframe${attributes(attrs)}></iframe>`);
      return;
    }
    out.push(`<${tag}${attributes(attrs)}>`);
    if (VOID.has(tag)) return;
    if (shadow.length > 0) {
      out.push('<template shadowrootmode="open">');
      for (const c of shadow) this.write(c, out, depth + 1);
      out.push('</template>');
    }
    for (const c of own) this.write(c, out, depth + 1);
    out.push(`</${tag}>`);
  }
}

export interface HtmlOptions {
  marks?: Map<number, string>;
  origin?: string;
}

const DROPPED = new Set(['script', 'noscript', 'style', 'link', 'base', 'meta', 'object', 'embed', 'portal']);
const NO_FETCH = new Set(['src', 'srcset', 'poster', 'data', 'action', 'formaction', 'background', 'xlink:href', 'integrity', 'ping', 'manifest']);
const VOID = new Set(['area', 'br', 'col', 'embed', 'hr', 'img', 'input', 'param', 'source', 'track', 'wbr']);

function attributes(list: Array<[string, unknown]>): string {
  return list.map(([k, v]) => (v === true || v === '' ? ` ${k}` : ` ${k}="${String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`)).join('');
}

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
