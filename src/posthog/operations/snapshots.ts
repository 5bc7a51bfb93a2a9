import { UpstreamUnavailableError } from '../../errors.js';
import { snapshotListingSchema, snapshotSourceSchema, type SnapshotSource } from '../answers.js';
import type { PostHogClient } from '../client.js';
import type { StreamedResponse } from '../streamed-body.js';
import { apiPath, encodePlainQuery } from '../query.js';
import type { RemoteDispatch } from '../remote-fetch.js';
import { unitQuery, type FetchUnit } from '../snapshots.js';
import type { CallOptions } from './options.js';
import { parseAnswer, parseItems } from './parse.js';

export type { SnapshotSource, StreamedResponse };

/**
 * A recording's stored data (docs/posthog-api.md, "Snapshots"). Both are replay requests: patient, they
 * may wait for PostHog's replay throttle within the call's allowance (posthog/budget.ts).
 */
export interface SnapshotOperations {
  /** The sources listing; an answer without a `sources` list is not PostHog's (no "0 sources" from a login page). */
  sources(projectId: string, id: string, options?: CallOptions): Promise<SnapshotSource[]>;
  /**
   * One unit's blocks, as a stream the caller reads and may stop early. As PostHog sent them,
   * the key not removed: the caller scrubs what it makes of them (redactValue), after decoding,
   * and never shows the bytes as they are. With `via`, another thread reads the body (the
   * digest worker, remote-fetch.ts).
   */
  blocks(projectId: string, id: string, unit: FetchUnit, options?: CallOptions & { via?: RemoteDispatch | undefined }): Promise<StreamedResponse>;
}

export function snapshotOperations(client: PostHogClient): SnapshotOperations {
  const snapshotsPath = (projectId: string, id: string) => apiPath('projects', projectId, 'session_recordings', id, 'snapshots');
  return {
    async sources(projectId, id, options = {}) {
      // blob_v2=true asks mid-2025 PostHog for v2 sources; newer versions ignore it.
      const body = await client.json({ method: 'GET', path: snapshotsPath(projectId, id) + encodePlainQuery({ blob_v2: 'true' }), signal: options.signal, patient: true, meter: options.meter });
      const listing = parseAnswer(
        snapshotListingSchema,
        body,
        () => new UpstreamUnavailableError('malformed', 'PostHog\'s snapshot listing had no "sources" list; POSTHOG_HOST may not point at the PostHog API. Nothing was read.'),
      );
      return parseItems(snapshotSourceSchema, listing.sources);
    },

    blocks(projectId, id, unit, options = {}) {
      return client.stream({ method: 'GET', path: snapshotsPath(projectId, id) + encodePlainQuery(unitQuery(unit)), signal: options.signal, patient: true, unredacted: true, meter: options.meter, via: options.via });
    },
  };
}
