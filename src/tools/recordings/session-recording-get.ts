import { z } from 'zod';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE } from '../format.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { recordingNotFound } from './not-found.js';
import { personPropertiesNote, recordingDetail, recordingOutput, recordingView } from './shape.js';

export const sessionRecordingGet = defineTool({
  name: 'session-recording-get',
  title: 'Get a session recording',
  toolset: 'recordings',
  description: `A recording's metadata: times, duration, activity and console counts, start URL, viewed, retention, person.
Next: session-recording-summary.`,
  recordedData: true,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: (options) =>
    z.strictObject({
      project_id: projectIdField(options),
      id: recordingIdField,
      include_person_properties: z.boolean().default(false).describe('Large.'),
    }),
  outputSchema: z.looseObject({ project_id: z.string(), recording: recordingOutput, person_properties_note: z.string().optional() }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    const recording = recordingView(await posthog.recordings.get(projectId, input.id, { signal }), { personProperties: input.include_person_properties });
    const note = personPropertiesNote([recording]);
    return {
      data: { project_id: projectId, recording, ...(note ? { person_properties_note: note } : {}) },
      text: [RECORDED_DATA_NOTICE, recordingDetail(recording, input.include_person_properties), note].filter(Boolean).join('\n'),
    };
  },
  explainError: (error, input, { defaultProjectId }) =>
    error.status === 404 ? recordingNotFound(input.id, input.project_id ?? defaultProjectId) : undefined,
});
