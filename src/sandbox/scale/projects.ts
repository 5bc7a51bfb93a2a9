// The projects of the sandbox at scale as the projects API shows them: the shop records 90 % of
// its sessions that last at least 2 s and has dead-click capture on; the help centre has replay
// switched off (docs/posthog-api.md, "Why a session has no recording").

import { seedProject, type Project } from '../project-object.js';
import { SCALE_HELP_SEED, SCALE_STORE_SEED, STORE_MINIMUM_DURATION_MS, STORE_SAMPLE_RATE } from './catalog.js';

export function scaleProjects(nowMs: number): Project[] {
  const store = seedProject(SCALE_STORE_SEED, nowMs);
  Object.assign(store, {
    session_recording_sample_rate: STORE_SAMPLE_RATE.toFixed(2),
    session_recording_minimum_duration_milliseconds: STORE_MINIMUM_DURATION_MS,
    capture_dead_clicks: true,
  });
  return [store, seedProject(SCALE_HELP_SEED, nowMs)];
}
