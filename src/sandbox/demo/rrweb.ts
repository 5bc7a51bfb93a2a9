// The slice of rrweb's event vocabulary the demo recordings use. Numbers are rrweb's own
// enum values, so anything that replays rrweb can replay the demo data.

export const EventType = {
  DomContentLoaded: 0,
  Load: 1,
  FullSnapshot: 2,
  IncrementalSnapshot: 3,
  Meta: 4,
  Custom: 5,
  Plugin: 6,
} as const;

export const IncrementalSource = {
  Mutation: 0,
  MouseMove: 1,
  MouseInteraction: 2,
  Scroll: 3,
  ViewportResize: 4,
  Input: 5,
  TouchMove: 6,
  MediaInteraction: 7,
  StyleSheetRule: 8,
  CanvasMutation: 9,
  Font: 10,
  Log: 11,
  Drag: 12,
  StyleDeclaration: 13,
  Selection: 14,
  AdoptedStyleSheet: 15,
} as const;

export const MouseInteractions = {
  MouseUp: 0,
  MouseDown: 1,
  Click: 2,
  ContextMenu: 3,
  DblClick: 4,
  Focus: 5,
  Blur: 6,
  TouchStart: 7,
  TouchMoveDeparted: 8,
  TouchEnd: 9,
  TouchCancel: 10,
} as const;

export const NodeType = {
  Document: 0,
  DocumentType: 1,
  Element: 2,
  Text: 3,
  CDATA: 4,
  Comment: 5,
} as const;

/** rrweb pointer types, carried on MouseInteraction events. */
export const PointerType = { Mouse: 0, Pen: 1, Touch: 2 } as const;

export interface RrwebEvent {
  type: number;
  data: unknown;
  timestamp: number;
  /** Set by posthog-js when some fields of `data` are gzip-compressed (see compress.ts). */
  cv?: string;
}

export interface SerializedNode {
  type: number;
  id: number;
  [field: string]: unknown;
}

/** Events whose IncrementalSnapshot source counts as user activity in PostHog's ingestion. */
export const ACTIVE_SOURCES: ReadonlySet<number> = new Set([
  IncrementalSource.MouseMove,
  IncrementalSource.MouseInteraction,
  IncrementalSource.Scroll,
  IncrementalSource.ViewportResize,
  IncrementalSource.Input,
  IncrementalSource.TouchMove,
  IncrementalSource.MediaInteraction,
  IncrementalSource.Drag,
]);

/**
 * A copy of an event moved `ms` later (earlier when negative), with the network plugin's own
 * request timestamps moved alike: they are absolute times too.
 */
export function shiftedEvent(event: RrwebEvent, ms: number): RrwebEvent {
  const out: RrwebEvent = { ...event, timestamp: event.timestamp + ms };
  const data = event.data as { plugin?: string; payload?: { requests?: unknown } } | undefined;
  if (event.type === EventType.Plugin && data?.plugin === 'rrweb/network@1' && Array.isArray(data.payload?.requests)) {
    const requests = (data.payload.requests as Array<Record<string, unknown>>).map((r) => (typeof r.timestamp === 'number' ? { ...r, timestamp: r.timestamp + ms } : r));
    out.data = { ...data, payload: { ...data.payload, requests } };
  }
  return out;
}
