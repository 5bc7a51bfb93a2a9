/**
 * rrweb's event types and incremental-snapshot sources, as every recorder writes them (rrweb's
 * EventType and IncrementalSource): one list for the readers of snapshot data (the snapshots
 * tool, the player's feed, the digest), below all of them.
 */

export const FULL_SNAPSHOT = 2;
export const INCREMENTAL_SNAPSHOT = 3;
export const META = 4;
export const CUSTOM = 5;
export const PLUGIN = 6;

export const MUTATION = 0;
export const MOUSE_MOVE = 1;
export const MOUSE_INTERACTION = 2;
export const SCROLL = 3;
export const VIEWPORT_RESIZE = 4;
export const INPUT = 5;
export const TOUCH_MOVE = 6;
export const MEDIA_INTERACTION = 7;
export const STYLE_SHEET_RULE = 8;
export const LOG = 11;
export const DRAG = 12;
export const SELECTION = 14;

export const EVENT_TYPE_NAMES: Record<number, string> = {
  0: 'DomContentLoaded',
  1: 'Load',
  2: 'FullSnapshot',
  3: 'IncrementalSnapshot',
  4: 'Meta',
  5: 'Custom',
  6: 'Plugin',
};

export const INCREMENTAL_SOURCE_NAMES: Record<number, string> = {
  0: 'Mutation',
  1: 'MouseMove',
  2: 'MouseInteraction',
  3: 'Scroll',
  4: 'ViewportResize',
  5: 'Input',
  6: 'TouchMove',
  7: 'MediaInteraction',
  8: 'StyleSheetRule',
  9: 'CanvasMutation',
  10: 'Font',
  11: 'Log',
  12: 'Drag',
  13: 'StyleDeclaration',
  14: 'Selection',
  15: 'AdoptedStyleSheet',
  16: 'CustomElement',
};

/** Mouse interaction types the digest and the reproduce tool act on. */
export const CLICK = 2;
export const DOUBLE_CLICK = 4;

export const MOUSE_INTERACTION_NAMES: Record<number, string> = {
  0: 'mouseup',
  1: 'mousedown',
  2: 'click',
  3: 'contextmenu',
  4: 'dblclick',
  5: 'focus',
  6: 'blur',
  7: 'touchstart',
  8: 'touchmove_departed',
  9: 'touchend',
  10: 'touchcancel',
};
