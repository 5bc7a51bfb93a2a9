// posthog-js' partial event compression ("cv": "2024-10"): for large events it gzips the
// bulky parts and stores the bytes as a latin1 string, keeping the rest inspectable:
// a FullSnapshot's whole `data`, a Mutation's adds/removes/texts/attributes, and a
// StyleSheetRule's adds/removes. Smaller events are left as they are.

import { gzipSync } from 'node:zlib';
import { EventType, IncrementalSource, type RrwebEvent } from './rrweb.js';

export const COMPRESSION_VERSION = '2024-10';
/** posthog-js leaves events under ~1 KB uncompressed. */
const PARTIAL_COMPRESSION_THRESHOLD = 1024;

export function gzipToLatin1(value: unknown): string {
  return gzipSync(Buffer.from(JSON.stringify(value), 'utf8')).toString('latin1');
}

export function compressEvent(event: RrwebEvent): RrwebEvent {
  if (JSON.stringify(event).length < PARTIAL_COMPRESSION_THRESHOLD) return event;
  if (event.type === EventType.FullSnapshot) {
    return { ...event, data: gzipToLatin1(event.data), cv: COMPRESSION_VERSION };
  }
  if (event.type !== EventType.IncrementalSnapshot) return event;
  const data = event.data as Record<string, unknown>;
  if (data.source === IncrementalSource.Mutation) {
    return {
      ...event,
      cv: COMPRESSION_VERSION,
      data: {
        ...data,
        texts: gzipToLatin1(data.texts),
        attributes: gzipToLatin1(data.attributes),
        removes: gzipToLatin1(data.removes),
        adds: gzipToLatin1(data.adds),
      },
    };
  }
  if (data.source === IncrementalSource.StyleSheetRule) {
    const out: Record<string, unknown> = { ...data };
    if (data.adds !== undefined) out.adds = gzipToLatin1(data.adds);
    if (data.removes !== undefined) out.removes = gzipToLatin1(data.removes);
    return { ...event, cv: COMPRESSION_VERSION, data: out };
  }
  return event;
}
