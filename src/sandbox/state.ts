// The sandbox's mutable world: projects (created, edited, deleted through the API), which
// recordings were deleted or marked viewed, and the demo clock. Recording content itself is
// immutable and shared (demo/dataset.ts).

import type { IncomingHttpHeaders } from 'node:http';
import { LiveRecording, buildScript, liveRecordings } from './demo/dataset.js';
import { PROJECT_SEEDS, RECORDING_SEEDS, SANDBOX_USER, type RecordingSeed } from './demo/catalog.js';
import { seedProject, type Project } from './project-object.js';
import type { ProjectData } from './project-data.js';
import { SCALE_PROJECT_ID, REPLAY_OFF_PROJECT_ID } from './scale/catalog.js';
import { scalePopulation, type Population } from './scale/population.js';
import { scaleProjects } from './scale/projects.js';
import { ScaleRecording } from './scale/recording.js';

/** Which PostHog the sandbox imitates: today's Cloud, or the 2024 API (README: --sandbox-api). */
export type SandboxApi = 'today' | '2024';

export interface ResolvedOptions {
  api: SandboxApi;
  /** The sandbox key's scopes; empty = a legacy key without scopes (allowed everything PostHog let such keys do). */
  scopes: readonly string[];
  apiKey: string;
  acceptAnyKey: boolean;
  recordingsEnvelope: 'has_next' | 'drf';
  projectsEnvelope: 'drf' | 'has_next';
}

export interface Deletion {
  deletedAtMs: number;
  deletedBy: string;
}

export class SandboxState {
  projects = new Map<number, Project>();
  currentProjectId: number | null = null;
  nextProjectId = 0;
  readonly deletedRecordings = new Map<string, Deletion>();
  readonly viewed = new Set<string>();
  private live: Map<string, LiveRecording> | undefined;
  private readonly startedAt = Date.now();

  constructor(
    private readonly nowMs: number,
    /** Recordings this sandbox adds to the demo set (e.g. a benchmark's long recording). */
    private readonly extraSeeds: readonly RecordingSeed[] = [],
    /** The seed of the generated week (sandbox option `scale`), or undefined for the demo data alone. */
    private readonly scaleSeed?: number,
  ) {
    this.reset();
  }

  /** The generated week, made on first use (scale/population.ts). */
  population(): Population | undefined {
    return this.scaleSeed === undefined ? undefined : scalePopulation(this.nowMs, this.scaleSeed);
  }

  /** The demo clock: the configured `now`, advancing in real time from start-up. */
  clock(): number {
    return this.nowMs + (Date.now() - this.startedAt);
  }

  /** Demo recordings pinned to the start-up clock (built on first use, then cached). */
  recordings(): Map<string, LiveRecording> {
    if (!this.live) {
      this.live = liveRecordings(this.nowMs);
      for (const seed of this.extraSeeds) this.live.set(seed.id, new LiveRecording(buildScript(seed), this.nowMs));
      for (const session of this.population()?.store.sessions ?? []) if (session.stats) this.live.set(session.id, new ScaleRecording(session, this.nowMs));
    }
    return this.live;
  }

  /** A recording of `projectId` that has not been deleted. */
  recording(projectId: number, id: string): LiveRecording | undefined {
    const rec = this.recordings().get(id);
    if (!rec || rec.seed.projectId !== projectId || this.deletedRecordings.has(id)) return undefined;
    return rec;
  }

  /** A generated project's tables, without the replay rows of recordings deleted through the API. */
  scaleData(projectId: number): ProjectData | undefined {
    if (projectId !== SCALE_PROJECT_ID && projectId !== REPLAY_OFF_PROJECT_ID) return undefined;
    const population = this.population();
    if (!population) return undefined;
    const data = projectId === SCALE_PROJECT_ID ? population.store.data : population.help.data;
    if (this.deletedRecordings.size === 0) return data;
    return { ...data, replay: data.replay.filter((row) => !this.deletedRecordings.has(row.session_id)) };
  }

  deleteRecording(id: string): void {
    this.deletedRecordings.set(id, { deletedAtMs: this.clock(), deletedBy: SANDBOX_USER.email });
  }

  reset(): void {
    this.projects = new Map(PROJECT_SEEDS.map((seed) => [seed.id, seedProject(seed, this.nowMs)]));
    if (this.scaleSeed !== undefined) for (const project of scaleProjects(this.nowMs)) this.projects.set(project.id, project);
    this.currentProjectId = PROJECT_SEEDS[0]!.id;
    this.nextProjectId = Math.max(...PROJECT_SEEDS.map((p) => p.id)) + 1;
    this.deletedRecordings.clear();
    this.viewed.clear();
    for (const seed of RECORDING_SEEDS) if (seed.viewed) this.viewed.add(seed.id);
  }
}

export interface RequestContext {
  method: string;
  /** Absolute URL of the request as received (path with or without trailing slash). */
  url: URL;
  query: Record<string, string>;
  body: string;
  headers: IncomingHttpHeaders;
  /** Base URL of the sandbox, e.g. http://127.0.0.1:43121 */
  siteUrl: string;
  state: SandboxState;
  options: ResolvedOptions;
}
