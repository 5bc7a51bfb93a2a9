import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PlayerData } from '../player-data.js';

/**
 * Watch links: the replay's player opened in a browser tab, for clients that render no MCP Apps.
 * Each link stands for one recording of one project, read by one user's key, for WATCH_TTL_MS.
 * In stdio mode (WatchTokens) it is a random token (256 bits) whose meaning stays in this process;
 * over HTTP (sealed.ts) the token carries it, sealed with MCP_WATCH_SECRET, so any replica opens it.
 * Either way the URL holds no key in clear, and the page reads the recording through the server.
 */

/** How long a link opens the recording. */
export const WATCH_TTL_MS = 30 * 60_000;
/** Links alive at once; beyond it the oldest is forgotten (its page then answers 404). */
export const MAX_WATCH_LINKS = 64;
/** The player data all live links may hold together (moments are at most 500 a recording). */
export const MAX_WATCH_DATA_BYTES = 16_000_000;

/** One page of the recording's events for the player, as the replay's events tool gives it. */
export interface WatchPage {
  /** JSON array of [window_id, rrweb event] pairs */
  events: string;
  next_cursor: string | null;
}

/** Reads a page of the recording's events with the key of the user who asked for the link. */
export type WatchReader = (page: { cursor: string | undefined; maxBytes: number }, signal: AbortSignal) => Promise<WatchPage>;

/** What a link stands for. */
export interface WatchRecording {
  project_id: string;
  id: string;
  /** The player's data: the digest's moments, windows, where to start. */
  player: PlayerData;
}

/** A stdio link as held: its player data only as the JSON served (what MAX_WATCH_DATA_BYTES counts), not the object as well. */
export interface WatchEntry extends Omit<WatchRecording, 'player'> {
  /** Who asked (a hash of their key; '' for the server's own key). */
  user: string;
  expiresAt: number;
  read: WatchReader;
  /** The player data as served, its length counted against MAX_WATCH_DATA_BYTES. */
  json: string;
}

/** A link given to a tool: where, and until when; or why there is none. */
export type WatchOffer = { url: string; expiresAt: string } | { refused: string };

/** What a tool asks for (tools/define.ts's ToolContext.watch): a link to a recording it read. */
export type WatchLinker = (recording: WatchRecording) => Promise<WatchOffer>;

/** Who asks for a link, and how the recording is read as them. */
export interface WatchCaller {
  /** A hash of their key ('' for the server's own key). */
  user: string;
  /** Reads event pages with their key, in this process. */
  read: WatchReader;
  /** The PostHog host their key is for. */
  host: string;
  /** The key they sent (per-user keys), which a sealed link carries encrypted; undefined: the server's own key. */
  key: string | undefined;
  /** The OAuth sign-in their call came through (MCP_OAUTH), which a sealed link carries too: its link opens only while the sign-in stands. */
  signIn?: string | undefined;
}

/** A live link as its pages use it: its player data (held, or made afresh), and its reader of event pages. */
export interface OpenLink {
  data: string | (() => Promise<string>);
  read: WatchReader;
  /** Who asked for it (a hash of their key; '' for the server's own): one user's pages leave the others a share of the reads. */
  user: string;
}

/**
 * Whether an OAuth sign-in no longer stands (revoked, or no longer known where sign-ins are
 * remembered): asked by the HTTP server, which holds the OAuth server, each time a link made
 * through a sign-in is opened. The watch room knows nothing of OAuth beyond this question.
 */
export type SignInEnded = (signIn: string) => Promise<boolean>;

/**
 * What the pages ask of a token: the link it opens, or undefined (unknown, expired, tampered, not
 * ours, or made through a sign-in that `ended` says is over; without `ended`, such a link never opens).
 */
export type WatchOpener = (token: string, ended?: SignInEnded) => Promise<OpenLink | undefined>;

/**
 * Player data held by link, as the JSON served: bounded to MAX_WATCH_LINKS and MAX_WATCH_DATA_BYTES
 * together, the oldest forgotten first (a Map keeps insertion order). The stdio links and the sealed
 * links' cache both hold theirs here.
 */
export class HeldLinks<T extends { expiresAt: number; json: string }> {
  private readonly entries = new Map<string, T>();
  private bytes = 0;

  get(id: string): T | undefined {
    return this.entries.get(id);
  }

  /** Holds `entry` as `id` (in place of any before), forgetting the expired, then the oldest while over the bounds. */
  set(id: string, entry: T, now: number): void {
    for (const [old, held] of this.entries) if (held.expiresAt <= now || old === id) this.delete(old);
    this.entries.set(id, entry);
    this.bytes += entry.json.length;
    for (const old of this.entries.keys()) {
      if (this.entries.size <= MAX_WATCH_LINKS && this.bytes <= MAX_WATCH_DATA_BYTES) break;
      if (old === id) break;
      this.delete(old);
    }
  }

  delete(id: string): void {
    const held = this.entries.get(id);
    if (!held) return;
    this.entries.delete(id);
    this.bytes -= held.json.length;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

export class WatchTokens {
  /** By the token's random part. */
  private readonly entries = new HeldLinks<WatchEntry>();
  /** The key of the tags binding a token's random part to its recording, user and expiry: a random one per process (stdio), or one from a given secret. */
  private readonly mac: Buffer;

  constructor(
    secret: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.mac = secret === undefined ? randomBytes(32) : createHmac('sha256', secret).update('posthog-replay-mcp watch v1').digest();
  }

  /** A new link's token, valid WATCH_TTL_MS, for this recording and user. */
  issue(recording: WatchRecording, user: string, read: WatchReader): { token: string; expiresAt: number } {
    const now = this.now();
    const expiresAt = now + WATCH_TTL_MS;
    const nonce = randomBytes(32).toString('base64url');
    const token = `${nonce}.${this.tag(nonce, recording, user, expiresAt)}`;
    this.entries.set(nonce, { project_id: recording.project_id, id: recording.id, user, expiresAt, read, json: JSON.stringify(recording.player) }, now);
    return { token, expiresAt };
  }

  /** The pages' view of open(). */
  readonly opener: WatchOpener = async (token) => {
    const entry = this.open(token);
    return entry && { data: entry.json, read: entry.read, user: entry.user };
  };

  /** The live entry a token stands for, or undefined (unknown, expired, or not ours). */
  open(token: string): WatchEntry | undefined {
    const [nonce, tag] = token.split('.');
    const entry = nonce ? this.entries.get(nonce) : undefined;
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(nonce!);
      return undefined;
    }
    // Kept by its random part; the tag must still be the one made for this recording, user and expiry.
    const expected = Buffer.from(this.tag(nonce!, entry, entry.user, entry.expiresAt));
    const given = Buffer.from(tag ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected) ? entry : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private tag(nonce: string, recording: { project_id: string; id: string }, user: string, expiresAt: number): string {
    return createHmac('sha256', this.mac).update(JSON.stringify([nonce, recording.project_id, recording.id, user, expiresAt])).digest('base64url').slice(0, 22);
  }

}

/** Where links are made and served: the stdio loopback listener, the HTTP server, or nowhere (and why). */
export interface WatchService {
  /** A link for this recording, whose page reads it as `caller`, who asked. */
  link(recording: WatchRecording, caller: WatchCaller): Promise<WatchOffer>;
  close(): Promise<void>;
}

/** No links in this configuration: every offer says why. */
export function noWatch(why: string): WatchService {
  return { link: async () => ({ refused: why }), close: async () => {} };
}
