import { createHash } from 'node:crypto';
import { z } from 'zod';
import { jweKey, openJwe, sealJwe } from '../jwe.js';
import type { PlayerData } from '../player-data.js';
import { HeldLinks, WATCH_TTL_MS, type OpenLink, type SignInEnded, type WatchCaller, type WatchOffer, type WatchReader, type WatchRecording, type WatchService } from './links.js';

/**
 * Watch links over HTTP, opened by any replica that has the same MCP_WATCH_SECRET, before or after
 * a restart: the token itself carries what a replica needs to read the recording (project,
 * recording, where to start, the PostHog host, the caller's key and OAuth sign-in, the expiry),
 * sealed as a compact JWE (`dir`, AES-256-GCM, a key derived from the secret for this use alone). Only a holder of the
 * secret can read the key in it or make a token, and any change to a byte of it is refused. The
 * player data, too long for a URL, is held by the replica that made it and made afresh by another.
 * A link made through an OAuth sign-in opens only while that sign-in stands: every request asks
 * (SignInEnded), so revoking the sign-in ends its links at once rather than when they expire.
 */

/** What a sealed token holds; the names are short because they travel in the URL. */
const SealedLink = z.strictObject({
  /** project id */
  p: z.string().min(1).max(200),
  /** recording id */
  r: z.string().min(1).max(200),
  /** where the player starts, ms from the recording's start */
  s: z.number().int().min(0),
  /** the PostHog host the key is for */
  h: z.string().min(1).max(500),
  /** the caller's PostHog key; absent: the server's own */
  k: z.string().min(1).max(500).optional(),
  /** the OAuth sign-in the link was made through (MCP_OAUTH); absent: a key sent in the header, or the server's own */
  i: z.string().min(1).max(200).optional(),
  /** expiry, ms since the epoch */
  e: z.number().int(),
});
type SealedLink = z.infer<typeof SealedLink>;

/** What the link stands for, as the replica that opens it reads the recording. */
export interface SealedRecording {
  project_id: string;
  id: string;
  start_at_ms: number;
  host: string;
  key: string | undefined;
}

/** How this replica reads a link's recording, or undefined when it cannot (another PostHog host, a key it does not take). */
export type WatchSources = (link: SealedRecording) => { read: WatchReader; player: () => Promise<PlayerData> } | undefined;

/** The header's type (explicit typing): a value sealed for another use never opens as a link, even under the same key. */
const TYP = 'rmcp-watch';
/** A sealed link is about 300 characters; anything much longer is not one. */
const MAX_TOKEN_CHARS = 1_500;
/** Compact JWE with `dir`: header, an empty encrypted key, IV, ciphertext, tag. */
const COMPACT = /^([A-Za-z0-9_-]+)\.\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;

export interface SealedWatchOptions {
  secret: string;
  publicUrl: string;
  sources: WatchSources;
  /** Tests: the clock. */
  now?: () => number;
}

/** Makes sealed links at MCP_PUBLIC_URL and opens them for the pages (page.ts). */
export class SealedWatch implements WatchService {
  private readonly key: Buffer;
  private readonly origin: string;
  private readonly now: () => number;
  /** Player data by a hash of the token: what this replica made or rebuilt, bounded as the stdio links are. */
  private readonly players = new HeldLinks<{ expiresAt: number; json: string }>();
  /** Player data being made afresh, so a page's repeated requests start one read. */
  private readonly making = new Map<string, Promise<string>>();

  constructor(private readonly options: SealedWatchOptions) {
    // Its own derivation and label: no other key of the server (OAuth's) is this one, even with the same secret.
    this.key = jweKey(options.secret, 'posthog-replay-mcp watch', 'watch link v2 jwe');
    this.origin = options.publicUrl.replace(/\/+$/, '');
    this.now = options.now ?? Date.now;
  }

  async link(recording: WatchRecording, caller: WatchCaller): Promise<WatchOffer> {
    const expiresAt = this.now() + WATCH_TTL_MS;
    const sealed: SealedLink = { p: recording.project_id, r: recording.id, s: Math.max(0, Math.round(recording.player.start_at_ms)), h: caller.host, ...(caller.key !== undefined ? { k: caller.key } : {}), ...(caller.signIn !== undefined ? { i: caller.signIn } : {}), e: expiresAt };
    const token = await sealJwe(this.key, { typ: TYP }, sealed);
    this.keep(tokenId(token), expiresAt, JSON.stringify(recording.player));
    return { url: `${this.origin}/watch/${token}/`, expiresAt: new Date(expiresAt).toISOString() };
  }

  /**
   * The pages' opener: the link a token stands for, or undefined for anything not sealed by our
   * secret, expired, not readable here, or made through a sign-in that has ended. A replica that
   * cannot ask (no OAuth of its own) opens no sign-in's link: it could not tell a revoked one.
   */
  readonly opener = async (token: string, ended?: SignInEnded): Promise<OpenLink | undefined> => {
    const link = await this.unseal(token);
    if (!link) return undefined;
    const id = tokenId(token);
    if (link.i !== undefined && (!ended || (await ended(link.i)))) {
      // What was read with that sign-in's key goes too, and a read under way is not kept.
      this.drop(id);
      return undefined;
    }
    const source = this.options.sources({ project_id: link.p, id: link.r, start_at_ms: link.s, host: link.h, key: link.k });
    if (!source) return undefined;
    // The caller as the pages share reads among callers: by their key (none: the server's own).
    const user = link.k === undefined ? '' : createHash('sha256').update(`${link.h}\n${link.k}`).digest('base64url');
    const held = this.players.get(id);
    if (held) return { data: held.json, read: source.read, user };
    return { data: () => this.remake(id, link.e, source.player), read: source.read, user };
  };

  async close(): Promise<void> {
    this.players.clear();
  }

  private async unseal(token: string): Promise<SealedLink | undefined> {
    if (token.length > MAX_TOKEN_CHARS) return undefined;
    const parts = COMPACT.exec(token);
    // Base64url may spell the same bytes more than one way (the last character's unused bits):
    // only the one spelling this server writes opens, so no changed character opens a link.
    if (!parts || parts.slice(1).some((part) => Buffer.from(part, 'base64url').toString('base64url') !== part)) return undefined;
    const link = SealedLink.safeParse(await openJwe(token, this.key, TYP));
    return link.success && link.data.e > this.now() ? link.data : undefined;
  }

  private remake(id: string, expiresAt: number, player: () => Promise<PlayerData>): Promise<string> {
    const under = this.making.get(id);
    if (under) return under;
    // Not stopped when the browser that asked leaves: another request of the page may wait on it.
    const made: Promise<string> = player()
      .then((data) => {
        const json = JSON.stringify(data);
        // Dropped meanwhile (its sign-in ended): answered to the page that asked, kept for none.
        if (this.making.get(id) === made) this.keep(id, expiresAt, json);
        return json;
      })
      .finally(() => {
        if (this.making.get(id) === made) this.making.delete(id);
      });
    this.making.set(id, made);
    return made;
  }

  /** A forgotten one (over the bounds) is made afresh when asked again. */
  private keep(id: string, expiresAt: number, json: string): void {
    this.players.set(id, { expiresAt, json }, this.now());
  }

  /** The link's player data, held or being made, forgotten. */
  private drop(id: string): void {
    this.players.delete(id);
    this.making.delete(id);
  }
}

/** The key the player data is held by: a hash, so the held map holds no token (the caller's key sealed in it). */
function tokenId(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
