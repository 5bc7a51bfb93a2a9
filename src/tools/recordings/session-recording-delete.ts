import { z } from 'zod';
import { quote } from '../../digest/quote.js';
import { confirmOrStop } from '../confirm.js';
import { RECORDED_DATA_NOTICE, clip, duration, shortTime } from '../format.js';
import { defineTool } from '../define.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { recordingNotFound } from './not-found.js';
import { recordingLine, recordingOutput, recordingView } from './shape.js';

export const sessionRecordingDelete = defineTool({
  name: 'session-recording-delete',
  title: 'Delete a session recording',
  toolset: 'recordings',
  description: `Permanently deletes one recording and its replay data; cannot be undone. Only when the user asks to delete that recording.`,
  recordedData: true,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      id: recordingIdField,
    }),
  outputSchema: z.looseObject({
    deleted: z.literal(true),
    project_id: z.string(),
    id: z.string(),
    recording: recordingOutput,
  }),
  async handler(input, { posthog, defaultProjectId, signal, confirm }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    // PostHog answers 204 even for an id it never had; reading first turns a typo into a clear
    // "not found" and lets the result say exactly what was deleted.
    const recording = recordingView(await posthog.recordings.get(projectId, input.id, { signal }), { personProperties: false });
    await confirmOrStop(confirm, {
      message: [
        `Permanently delete this session recording from PostHog project ${projectId}? This cannot be undone.`,
        `Recording: ${input.id}`,
        `Started: ${shortTime(recording.start_time)}, lasting ${duration(recording.recording_duration)}`,
        // The person's name and the URL are the visitor's: quoted, so none starts a line of the question.
        `Person: ${recording.person?.name ? quote(recording.person.name) : recording.distinct_id ? quote(recording.distinct_id) : 'anonymous'}`,
        recording.start_url ? `Start URL: ${quote(clip(recording.start_url, 160))}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
      action: `delete recording ${input.id} from project ${projectId}`,
      unchanged: 'Nothing was deleted.',
    });
    await posthog.recordings.delete(projectId, input.id, { signal });
    return {
      data: { deleted: true as const, project_id: projectId, id: input.id, recording },
      text: `${RECORDED_DATA_NOTICE}\nDeleted recording ${input.id} from project ${projectId} (permanent):\n${recordingLine(recording)}`,
    };
  },
  explainError: (error, input, { defaultProjectId }) =>
    error.status === 404 ? `${recordingNotFound(input.id, input.project_id ?? defaultProjectId)} Nothing was deleted.` : undefined,
});
