import type { AnyToolDefinition } from './define.js';
import { projectCreate } from './projects/project-create.js';
import { projectDelete } from './projects/project-delete.js';
import { projectGet } from './projects/project-get.js';
import { projectUpdate } from './projects/project-update.js';
import { projectsList } from './projects/projects-list.js';
import { sessionRecordingDelete } from './recordings/session-recording-delete.js';
import { sessionRecordingGet } from './recordings/session-recording-get.js';
import { sessionRecordingMatchingEvents } from './recordings/session-recording-matching-events.js';
import { playerResource, type AppResource } from './recordings/player.js';
import { recordingFilterOptions } from './recordings/recording-filter-options.js';
import { sessionRecordingProperties } from './recordings/session-recording-properties.js';
import { sessionRecordingReplay } from './recordings/session-recording-replay.js';
import { sessionRecordingReplayEvents } from './recordings/session-recording-replay-events.js';
import { sessionRecordingReproduce } from './recordings/session-recording-reproduce.js';
import { sessionRecordingSummary } from './recordings/session-recording-summary.js';
import { sessionRecordingSnapshots } from './recordings/session-recording-snapshots.js';
import { sessionRecordingsList } from './recordings/session-recordings-list.js';
import { sessionRecordingsTriage } from './recordings/session-recordings-triage.js';

/** Every tool, in the order tools/list shows them. */
export const ALL_TOOLS: readonly AnyToolDefinition[] = [
  sessionRecordingsList,
  sessionRecordingGet,
  sessionRecordingDelete,
  sessionRecordingSnapshots,
  sessionRecordingSummary,
  sessionRecordingsTriage,
  recordingFilterOptions,
  sessionRecordingReplay,
  sessionRecordingReplayEvents,
  sessionRecordingReproduce,
  sessionRecordingMatchingEvents,
  sessionRecordingProperties,
  projectsList,
  projectCreate,
  projectGet,
  projectUpdate,
  projectDelete,
];

/** MCP Apps resources (ui://); a server offers those its selected tools point at (`_meta.ui.resourceUri`). */
export const ALL_APP_RESOURCES: readonly AppResource[] = [playerResource];
