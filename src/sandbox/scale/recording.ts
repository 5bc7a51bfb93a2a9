// A generated session as the replay endpoints serve it: the list and get read its metadata (the
// sums of its replay rows), `captured()` its events, and its snapshot is built only when it is
// first asked for: a few rrweb events per step (page loads with the demo shop's markup, the
// clicks, the failed request, the error message, console lines), so 3,000 sessions cost nothing
// until someone watches one.

import { LiveRecording, type CapturedEvent, type Script } from '../demo/dataset.js';
import type { RecordingSeed } from '../demo/catalog.js';
import { h } from '../demo/dom.js';
import { SHOP_ORIGIN } from '../demo/pages.js';
import { EventType, IncrementalSource } from '../demo/rrweb.js';
import { RecordingBuilder, type ScriptEvent } from '../demo/timeline.js';
import type { ScaleSession } from './population.js';
import { shopPage, type SnapshotStep } from './session-writer.js';

const built = new WeakMap<ScaleSession, ScriptEvent[]>();

/** The session's rrweb events (ms since its start), built on first use and kept for the process. */
function snapshotEvents(session: ScaleSession): ScriptEvent[] {
  const cached = built.get(session);
  if (cached) return cached;
  const duration = session.endMs - session.startMs;
  const b = new RecordingBuilder(session.id, session.device);
  const tab = b.tab(session.windowId);
  const mobile = session.device.deviceType !== 'Desktop';
  type Item = SnapshotStep | { t: number; do: 'console'; level: ScaleSession['console'][number]['level']; message: string };
  const items: Item[] = [...session.steps, ...session.console.map((c) => ({ t: c.t, do: 'console' as const, level: c.level, message: c.message }))];
  items.sort((x, y) => x.t - y.t);
  for (const item of items) {
    b.t = item.t;
    switch (item.do) {
      case 'open':
        if (item.page.kind !== 'help') tab.open(SHOP_ORIGIN, shopPage(item.page, mobile));
        break;
      case 'click':
        // The pointer travels there first, so it sets off a little earlier.
        b.t = Math.max(0, item.t - 500);
        if (tab.page?.keyed.has(item.key)) tab.click(item.key, { times: item.times, gap: 190, autocapture: false });
        break;
      case 'network':
        tab.network([{ url: item.url, method: item.method, status: item.status, durationMs: item.durationMs, initiatorType: 'fetch' }]);
        break;
      case 'alert':
        if (tab.page?.keyed.has('errors')) tab.mutation().add('errors', h('p', { class: 'alert alert-error', $key: 'error-text' }, item.text)).emit();
        break;
      case 'console':
        tab.console(item.level, item.message);
        break;
    }
  }
  // The recording runs until the session's last moment.
  b.push(session.windowId, EventType.IncrementalSnapshot, { source: IncrementalSource.Scroll, id: 1, x: 0, y: 0 }, duration);
  const events = b.events
    .map((e, i) => ({ e, i }))
    .sort((x, y) => x.e.event.timestamp - y.e.event.timestamp || x.i - y.i)
    .map(({ e }) => (e.event.timestamp > duration ? { windowId: e.windowId, event: { ...e.event, timestamp: duration } } : e));
  built.set(session, events);
  return events;
}

function seedOf(session: ScaleSession, pinnedNowMs: number): RecordingSeed {
  return {
    name: 'generated',
    id: session.id,
    projectId: session.projectId,
    distinctId: session.distinctId,
    person: session.person.seed,
    startsAgoMs: pinnedNowMs - session.startMs,
    storage: 'blob_v2',
    compressed: false,
    blockMs: 60_000,
    windowIds: [session.windowId],
    device: session.device,
    viewed: false,
    viewers: [],
    summary: 'Generated (sandbox scale mode).',
  };
}

export class ScaleRecording extends LiveRecording {
  constructor(
    readonly session: ScaleSession,
    pinnedNowMs: number,
  ) {
    const script: Script = {
      seed: seedOf(session, pinnedNowMs),
      get events() {
        return snapshotEvents(session);
      },
      analytics: [],
      console: session.console,
      stats: session.stats!,
    };
    super(script, pinnedNowMs);
  }

  override captured(): CapturedEvent[] {
    return this.session.events;
  }
}
