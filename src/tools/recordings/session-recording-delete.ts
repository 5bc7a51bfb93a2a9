import { z } from 'zod';
import { apiPath } from '../../posthog/query.js';
import { defineTool } from '../define.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { recordingNotFound } from './session-recording-get.js';
import { recordingLine, recordingOutput, recordingView } from './shape.js';

export const sessionRecordingDelete = defineTool({
  name: 'session-recording-delete',
  title: 'Delete a session recording',
  toolset: 'recordings',
  description: `Permanently delete one session recording (its metadata and replay data). This cannot be undone.
Only use it when the user explicitly asks to delete that recording (e.g. it captured personal data). Confirm the id first with session-recording-get.
Returns exactly what was deleted: the id, project, and the recording's start time, duration, person and start URL as they were. An id that does not exist is reported as not found and nothing is deleted.`,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      id: recordingIdField.describe('The recording (session) id to delete.'),
    }),
  outputSchema: z.looseObject({
    deleted: z.literal(true),
    project_id: z.string(),
    id: z.string(),
    recording: recordingOutput.describe('The recording as it was just before deletion.'),
  }),
  async handler(input, { client, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const path = apiPath('projects', projectId, 'session_recordings', input.id);
    // PostHog answers 204 even for an id it never had; reading first turns a typo into a clear
    // "not found" and lets the result say exactly what was deleted.
    const before = await client.json<Record<string, unknown>>({ method: 'GET', path, signal });
    await client.json({ method: 'DELETE', path, signal });
    const recording = recordingView(before ?? { id: input.id }, { detail: 'list', personProperties: false });
    return {
      data: { deleted: true as const, project_id: projectId, id: input.id, recording },
      text: `Deleted recording ${input.id} from project ${projectId} (permanent):\n${recordingLine(recording)}`,
    };
  },
  explainError: (error, input, { defaultProjectId }) =>
    error.status === 404 ? `${recordingNotFound(input.id, input.project_id ?? defaultProjectId)} Nothing was deleted.` : undefined,
});
