import { z } from 'zod';
import { UpstreamError } from '../../errors.js';
import { defineTool } from '../define.js';
import { RECORDED_DATA_NOTICE } from '../format.js';
import { projectIdField, recordingIdField, resolveProjectId } from '../schemas.js';
import { explainMissingRecording, noRecordingOutput, noRecordingText, UncheckedNotFound } from './no-recording.js';
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
  outputSchema: z.looseObject({
    project_id: z.string(),
    // null: PostHog has no recording, but the session has events; no_recording says why.
    recording: recordingOutput.nullable(),
    no_recording: noRecordingOutput.optional(),
    person_properties_note: z.string().optional(),
  }),
  async handler(input, { posthog, defaultProjectId, signal }) {
    const projectId = resolveProjectId(input.project_id, defaultProjectId);
    let found;
    try {
      found = await posthog.recordings.get(projectId, input.id, { signal });
    } catch (error) {
      if (!(error instanceof UpstreamError && error.status === 404)) throw error;
      // A session with events but no recording is answered, not refused: why is what the agent
      // needs next (docs/tools.md). Without events, or unable to look, the 404 stands.
      const explanation = await explainMissingRecording(posthog, projectId, input.id, signal);
      if (explanation.kind === 'no-events') throw error;
      if (explanation.kind === 'unchecked') throw new UncheckedNotFound(error, explanation.why);
      const why = explanation.noRecording;
      return {
        data: { project_id: projectId, recording: null, no_recording: why },
        text: [RECORDED_DATA_NOTICE, noRecordingText(input.id, projectId, why)].join('\n'),
      };
    }
    const recording = recordingView(found, { personProperties: input.include_person_properties });
    const note = personPropertiesNote([recording]);
    return {
      data: { project_id: projectId, recording, ...(note ? { person_properties_note: note } : {}) },
      text: [RECORDED_DATA_NOTICE, recordingDetail(recording, input.include_person_properties), note].filter(Boolean).join('\n'),
    };
  },
  explainError: (error, input, { defaultProjectId }) => {
    if (error.status !== 404) return undefined;
    const plain = recordingNotFound(input.id, input.project_id ?? defaultProjectId);
    return error instanceof UncheckedNotFound ? `${plain} Whether the session has events, and why it has no recording, could not be checked: ${error.why}.` : plain;
  },
});
