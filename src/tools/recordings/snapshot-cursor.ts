import { z } from 'zod';
import { UserInputError } from '../../errors.js';
import type { FetchUnit } from '../../posthog/snapshots.js';
import type { Position } from './unit-walk.js';
import { EVENT_KINDS, type SnapshotWindow } from './snapshot-window.js';

// Where a reading of a recording's stored data resumes, as the text of a cursor: the snapshots
// tool's pages and the player's feed (session-recording-replay-events) page with it.

/** Past this, a cursor keeps only its position and the next call reads the sources listing again. */
const CURSOR_UNITS_MAX_CHARS = 1_500;

export interface CursorState {
  /** recording id and project, so a cursor cannot be replayed against another recording */
  r: string;
  p: string;
  /** index of the current fetch unit in the plan made from the sources listing */
  i: number;
  /** for a blob_v2 unit: the block the current request starts at */
  b?: number;
  /** events of the current request already returned */
  s: number;
  /** the remaining units, when short enough to carry (saves reading the listing again) */
  u?: FetchUnit[];
  /** the window and kinds the first page was asked for: start_at, end_at and only as written, and the window placed (epoch ms) */
  w?: { a?: string; e?: string; k?: string[]; f?: number; t?: number };
}

const unitSchema = z.union([
  z.object({ kind: z.literal('blob_v2'), start: z.number().int().min(0), end: z.number().int().min(0) }),
  z.object({ kind: z.enum(['blob_v2_lts', 'blob']), key: z.string().min(1).max(1000) }),
  z.object({ kind: z.literal('realtime'), after: z.number().optional() }),
]);

const cursorSchema = z.object({
  r: z.string(),
  p: z.string(),
  i: z.number().int().min(0),
  b: z.number().int().min(0).optional(),
  s: z.number().int().min(0),
  u: z.array(unitSchema).optional(),
  w: z
    .object({
      a: z.string().max(40).optional(),
      e: z.string().max(40).optional(),
      k: z.array(z.enum(EVENT_KINDS)).optional(),
      f: z.number().optional(),
      t: z.number().optional(),
    })
    .optional(),
});

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

export function decodeCursor(cursor: string, id: string, projectId: string): CursorState {
  let state: CursorState;
  try {
    state = cursorSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))) as CursorState;
  } catch {
    throw new UserInputError('cursor is not one this tool returned. Pass next_cursor from the previous result unchanged, or omit cursor to start over.');
  }
  if (state.r !== id || state.p !== projectId) {
    throw new UserInputError(`cursor belongs to recording ${state.r} in project ${state.p}, not ${id} in ${projectId}. Omit cursor to start this recording from the beginning.`);
  }
  return state;
}

/** Where reading resumes: the remaining units, the current one first. */
export function resumeFrom(state: CursorState, plan: FetchUnit[] | undefined): Position {
  const units = state.u ?? (plan ?? []).slice(state.i);
  const first = units[0];
  if (state.b !== undefined && first?.kind === 'blob_v2') units[0] = { ...first, start: state.b };
  return { units: units.map((u) => ({ ...u })), index: state.i, skip: state.s };
}

export function cursorAt(id: string, projectId: string, position: Position, window?: SnapshotWindow): CursorState {
  const first = position.units[0];
  const state: CursorState = { r: id, p: projectId, i: position.index, s: position.skip, ...windowPart(window) };
  if (first?.kind === 'blob_v2') state.b = first.start;
  if (JSON.stringify(position.units).length <= CURSOR_UNITS_MAX_CHARS) state.u = position.units;
  return state;
}

/** A window as a cursor carries it. */
export function windowPart(window: SnapshotWindow | undefined): Pick<CursorState, 'w'> {
  if (!window) return {};
  const w: NonNullable<CursorState['w']> = {};
  if (window.startAt !== undefined) w.a = window.startAt;
  if (window.endAt !== undefined) w.e = window.endAt;
  if (window.only) w.k = window.only;
  if (window.from !== undefined) w.f = window.from;
  if (window.to !== undefined) w.t = window.to;
  return { w };
}

/**
 * The window a cursor goes on with. A call may repeat the first page's start_at, end_at and only
 * beside the cursor; other values are refused, as the cursor reads on in the window it was made in.
 */
export function cursorWindow(state: CursorState, asked: SnapshotWindow | undefined): SnapshotWindow | undefined {
  const w = state.w;
  const window: SnapshotWindow | undefined = w
    ? { ...(w.a !== undefined ? { startAt: w.a } : {}), ...(w.e !== undefined ? { endAt: w.e } : {}), ...(w.k ? { only: w.k as SnapshotWindow['only'] } : {}), ...(w.f !== undefined ? { from: w.f } : {}), ...(w.t !== undefined ? { to: w.t } : {}) }
    : undefined;
  if (asked) {
    const same = asked.startAt === window?.startAt && asked.endAt === window?.endAt && JSON.stringify([...(asked.only ?? [])].sort()) === JSON.stringify([...(window?.only ?? [])].sort());
    if (!same) {
      const was = window ? `start_at ${JSON.stringify(window.startAt ?? null)}, end_at ${JSON.stringify(window.endAt ?? null)}, only ${JSON.stringify(window.only ?? null)}` : 'no start_at, end_at or only';
      throw new UserInputError(`cursor continues a page asked with ${was}. Pass cursor alone (or with those same values), or omit cursor to start a new window.`);
    }
  }
  return window;
}
