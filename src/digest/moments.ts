/**
 * A digest's moments: the entries worth a marker on a replay's timeline or a row in a triage
 * across recordings (pages, rage and dead clicks, console errors and warnings, failed requests),
 * each with its time and its parts as fields, so no one has to parse the digest's text.
 */

import { MOMENT_KINDS, type Digest, type Moment, type MomentKind, type TimelineItem } from './model.js';

const KINDS = new Set<string>(MOMENT_KINDS);

export function isMoment(item: TimelineItem): item is TimelineItem & { kind: MomentKind } {
  return KINDS.has(item.kind);
}

/** The moments of a digest's timeline, in time order. */
export function momentsOf(digest: Pick<Digest, 'timeline'>): Moment[] {
  return digest.timeline.filter(isMoment).map(toMoment);
}

export function toMoment(item: TimelineItem & { kind: MomentKind }): Moment {
  const moment: Moment = { t_ms: item.t, w: item.w, kind: item.kind };
  switch (item.kind) {
    case 'page':
      moment.url = item.target ?? '';
      if (item.detail === 'in-page navigation') moment.in_page = true;
      break;
    case 'request-failed':
      if (item.request?.method) moment.method = item.request.method;
      moment.url = item.request?.url ?? item.target ?? '';
      if (item.request?.status !== undefined) moment.status = item.request.status;
      if (item.request?.error) moment.error = item.request.error;
      if (item.request?.body) moment.body = item.request.body;
      break;
    case 'console-error':
    case 'console-warn':
      moment.message = item.detail ?? '';
      break;
    default:
      if (item.target) moment.target = item.target;
  }
  if (item.count && item.count > 1) moment.count = item.count;
  return moment;
}
