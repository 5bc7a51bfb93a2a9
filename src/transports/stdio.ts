import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How long requests still running when stdin closes may take to answer before the server stops. */
const DRAIN_MS = 10_000;

/**
 * Serves one MCP client over stdin/stdout until stdin closes. Requests already received are still
 * answered (a client may write its last requests and close stdin at once), for up to DRAIN_MS.
 */
export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new LineTransport(process.stdin, process.stdout, { log: (line) => process.stderr.write(`posthog-replay-mcp: ${line}\n`) });
  const running = new Set<string | number>();
  let drained: (() => void) | undefined;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);

  const receive = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    if ('method' in message && 'id' in message) running.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (!('method' in message) && 'id' in message && message.id !== undefined && running.delete(message.id) && running.size === 0) drained?.();
  };

  await closed;
  if (running.size > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, DRAIN_MS);
      drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  await server.close().catch(() => {});
}

/** The most one message may take on stdin: the MCP SDK's own stdio limit. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface LineTransportOptions {
  maxMessageBytes?: number;
  /** One line per message refused; stderr in the CLI. */
  log?: (line: string) => void;
}

/**
 * MCP over newline-delimited JSON on a pair of streams, like the SDK's StdioServerTransport except
 * for what it does with a message it cannot take: the SDK's closes the transport when a message
 * passes 10 MiB (the server exits 0 and the call is never answered) and says nothing about a line
 * that is not JSON. Here an oversized message is skipped up to its newline and answered with a
 * JSON-RPC error carrying its id when the id could be read from its start, a line that is not JSON
 * gets a parse error, each with a line on the log, and the server keeps serving.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly max: number;
  private readonly log: (line: string) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  /** Inside an oversized message: its bytes are dropped until the next newline. */
  private skipping: { id: string | number | null; tail: string } | undefined;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: LineTransportOptions = {},
  ) {
    this.max = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.log = options.log ?? (() => {});
  }

  private readonly ondata = (chunk: Buffer) => {
    let rest = chunk;
    while (rest.length > 0) {
      const newline = rest.indexOf(0x0a);
      const part = newline === -1 ? rest : rest.subarray(0, newline);
      rest = newline === -1 ? Buffer.alloc(0) : rest.subarray(newline + 1);
      if (this.skipping) {
        this.skipping.tail = (this.skipping.tail + part.subarray(-TAIL).toString('latin1')).slice(-TAIL);
        if (newline !== -1) this.refuseOversized();
        continue;
      }
      if (this.size + part.length > this.max) {
        const head = Buffer.concat([...this.chunks, part]).subarray(0, 4096).toString('utf8');
        this.chunks = [];
        this.size = 0;
        this.skipping = { id: leadingId(head), tail: part.subarray(-TAIL).toString('latin1') };
        if (newline !== -1) this.refuseOversized();
        continue;
      }
      this.chunks.push(part);
      this.size += part.length;
      if (newline !== -1) {
        const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
        this.chunks = [];
        this.size = 0;
        if (line.trim() !== '') this.receive(line);
      }
    }
  };

  private readonly onstreamerror = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.onstreamerror);
  }

  private receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = plainRequest(line) ?? deserializeMessage(line);
    } catch (error) {
      const id = leadingId(line.slice(0, 4096));
      this.log(`ignored a message that is not a JSON-RPC message (${error instanceof SyntaxError ? 'not JSON' : 'wrong shape'}).`);
      this.answerError(id, error instanceof SyntaxError ? ErrorCode.ParseError : ErrorCode.InvalidRequest, error instanceof SyntaxError ? 'Parse error: the message is not JSON.' : 'Invalid request: not a JSON-RPC 2.0 message.');
      return;
    }
    this.onmessage?.(message);
  }

  private refuseOversized(): void {
    const id = this.skipping!.id ?? trailingId(this.skipping!.tail);
    this.skipping = undefined;
    this.log(`refused a message over ${this.max} bytes${id === null ? '' : ` (request id ${JSON.stringify(id)})`}; still serving.`);
    this.answerError(id, ErrorCode.InvalidRequest, `Request too large: a message may take at most ${this.max} bytes.`);
  }

  private answerError(id: string | number | null, code: number, message: string): void {
    // JSON-RPC answers a request whose id cannot be read with id null.
    void this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n');
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(serializeMessage(message));
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || this.output.destroyed) return resolve();
      if (this.output.write(text)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.ondata);
    this.input.off('error', this.onstreamerror);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }
}

/**
 * The common message, a request without `_meta`, checked by hand: what the SDK's schema would
 * accept for it (strict: these four members only) and return unchanged. Anything else, undefined:
 * the SDK's schema decides (and its verdict is the one answered). Its union of four zod schemas
 * was the costliest step of reading a tools/call, and the SDK's Protocol checks the message again.
 */
function plainRequest(line: string): JSONRPCMessage | undefined {
  const value: unknown = JSON.parse(line);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { jsonrpc, id, method, params } = value as Record<string, unknown>;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params) || Object.hasOwn(params, '_meta'))) return undefined;
  for (const key in value) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  return value as JSONRPCMessage;
}

/** How much of an oversized message's end is kept, to read its id there. */
const TAIL = 256;

/** The request id as the last member of a message (`…,"jsonrpc":"2.0","id":7}`: how the SDK's client writes one). */
function trailingId(tail: string): string | number | null {
  return idFrom(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail.replace(/\r$/, '')));
}

/** The request id at the start of a message (`{"jsonrpc":"2.0","id":7,…`), when it comes before any nested value. */
function leadingId(head: string): string | number | null {
  return idFrom(/^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/.exec(head));
}

/** The id a match captured, as JSON-RPC allows it (a number or a string), or null. */
function idFrom(match: RegExpExecArray | null): string | number | null {
  if (!match) return null;
  try {
    const id: unknown = JSON.parse(match[1]!);
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}
