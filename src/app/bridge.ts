/**
 * The view's side of MCP Apps (extension io.modelcontextprotocol/ui, spec 2026-01-26): JSON-RPC 2.0
 * over postMessage with the host (window.parent), as much of it as the player uses. The spec says
 * a view needs no SDK for this; ext-apps' App validates every message with zod and the MCP SDK's
 * protocol class, which were half the player's bytes and the largest part of its start-up
 * (bench/README.md, "The recording player"). The test host is ext-apps' own AppBridge, which
 * checks what this side sends.
 */

export const PROTOCOL_VERSION = '2026-01-26';

export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined>; css?: { fonts?: string } };
  containerDimensions?: { width?: number; maxWidth?: number; height?: number; maxHeight?: number };
  [key: string]: unknown;
}

export interface ToolResult {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  /** The result's `_meta`: hosts pass it to the view (the MCP Apps spec's tool-result is the whole CallToolResult). */
  _meta?: Record<string, unknown>;
}

interface Message {
  jsonrpc?: unknown;
  id?: string | number;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: { code?: number; message?: string };
}

/**
 * How long the view waits for the host's answer before it says so, instead of "Loading…" for
 * ever: a tool call longer than the server lets any call run (POSTHOG_CALL_TIMEOUT_MS, 120 s, a
 * throttled page included); the handshake and a link briefly.
 */
export const ANSWER_WITHIN_MS = { 'tools/call': 150_000, other: 30_000 };

export class HostBridge {
  ontoolinput?: (params: { arguments?: Record<string, unknown> }) => void;
  ontoolresult?: (result: ToolResult) => void;
  ontoolcancelled?: (params: { reason?: string }) => void;
  onhostcontextchanged?: (context: HostContext) => void;
  onteardown?: () => void | Promise<void>;

  private context: HostContext = {};
  private nextId = 1;
  private readonly pending = new Map<string | number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(
    private readonly appInfo: { name: string; version: string },
    private readonly host: Window = window.parent,
    private readonly answerWithinMs: { 'tools/call': number; other: number } = ANSWER_WITHIN_MS,
  ) {
    // Only the host (through its sandbox proxy, our parent) speaks to the view.
    window.addEventListener('message', (event) => {
      if (event.source === this.host) this.receive(event.data as Message);
    });
  }

  /** The handshake: ui/initialize, then ui/notifications/initialized; then the view reports its size. */
  async connect(): Promise<void> {
    const result = (await this.request('ui/initialize', { appInfo: this.appInfo, appCapabilities: {}, protocolVersion: PROTOCOL_VERSION })) as { hostContext?: HostContext } | undefined;
    this.context = result?.hostContext ?? {};
    this.notify('ui/notifications/initialized', {});
    this.reportSize();
  }

  getHostContext(): HostContext {
    return this.context;
  }

  /** tools/call on the server, through the host. */
  async callServerTool(params: { name: string; arguments: Record<string, unknown> }): Promise<ToolResult> {
    return ((await this.request('tools/call', params)) ?? {}) as ToolResult;
  }

  /** Asks the host to open a link (a sandboxed view may not open windows itself). */
  async openLink(params: { url: string }): Promise<void> {
    await this.request('ui/open-link', params);
  }

  private request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    const within = method === 'tools/call' ? this.answerWithinMs['tools/call'] : this.answerWithinMs.other;
    return new Promise((resolve, reject) => {
      // A host that never answers: the caller hears so, and a late answer is dropped.
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the host did not answer ${method} within ${within < 1000 ? `${within} ms` : `${Math.round(within / 1000)} s`}`));
      }, within);
      const settle = (fn: () => void) => {
        clearTimeout(timer);
        fn();
      };
      this.pending.set(id, { resolve: (value) => settle(() => resolve(value)), reject: (error) => settle(() => reject(error)) });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  private notify(method: string, params: Record<string, unknown>): void {
    this.post({ jsonrpc: '2.0', method, params });
  }

  private post(message: Record<string, unknown>): void {
    this.host.postMessage(message, '*');
  }

  private receive(message: Message): void {
    if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      // An answer to one of our requests.
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.error) waiter.reject(new Error(String(message.error.message ?? `error ${message.error.code ?? ''}`)));
      else waiter.resolve(message.result);
      return;
    }
    if (typeof message.method !== 'string') return;
    if (message.id !== undefined) {
      void this.answer(message.id, message.method);
      return;
    }
    const params = (typeof message.params === 'object' && message.params !== null ? message.params : {}) as Record<string, unknown>;
    switch (message.method) {
      case 'ui/notifications/tool-input':
        this.ontoolinput?.(params as { arguments?: Record<string, unknown> });
        break;
      case 'ui/notifications/tool-result':
        this.ontoolresult?.(params as ToolResult);
        break;
      case 'ui/notifications/tool-cancelled':
        this.ontoolcancelled?.(params as { reason?: string });
        break;
      case 'ui/notifications/host-context-changed':
        // Partial updates, merged into what the host said before.
        this.context = { ...this.context, ...(params as HostContext) };
        this.onhostcontextchanged?.(this.context);
        break;
      default:
      // Other notifications (tool-input-partial, list changes, …): nothing the player uses.
    }
  }

  /** The host's requests: teardown and ping are answered; anything else is not ours. */
  private async answer(id: string | number, method: string): Promise<void> {
    if (method !== 'ui/resource-teardown' && method !== 'ping') {
      this.post({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
      return;
    }
    try {
      if (method === 'ui/resource-teardown') await this.onteardown?.();
      this.post({ jsonrpc: '2.0', id, result: {} });
    } catch (error) {
      this.post({ jsonrpc: '2.0', id, error: { code: -32603, message: String(error) } });
    }
  }

  /**
   * ui/notifications/size-changed when the document's size changes (once a frame at most), so a
   * host that lets the view choose its height can fit it: the height the content needs, the width it has.
   */
  private reportSize(): void {
    let queued = false;
    let last = { width: 0, height: 0 };
    const measure = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const root = document.documentElement;
        const before = root.style.height;
        root.style.height = 'max-content';
        const height = Math.ceil(root.getBoundingClientRect().height);
        root.style.height = before;
        const width = Math.ceil(window.innerWidth);
        if (width === last.width && height === last.height) return;
        last = { width, height };
        this.notify('ui/notifications/size-changed', last);
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }
}

/** The host's theme on the document (light/dark), for `light-dark()` and the host's variables. */
export function applyDocumentTheme(theme: 'light' | 'dark'): void {
  document.documentElement.setAttribute('data-theme', theme);
  document.documentElement.style.colorScheme = theme;
}

/** The host's style variables (--color-*, --font-*, …) on the document. */
export function applyHostStyleVariables(variables: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(variables)) if (value !== undefined) document.documentElement.style.setProperty(name, value);
}

/** The host's font CSS (@font-face or @import), once. */
export function applyHostFonts(css: string): void {
  if (document.getElementById('host-fonts')) return;
  const style = document.createElement('style');
  style.id = 'host-fonts';
  style.textContent = css;
  document.head.appendChild(style);
}
