/** PostHog's own player at a moment of a recording (the replay's link, and the triage's examples). */
export function playerUrl(baseUrl: string, numericProject: string, id: string, seconds: number): string {
  return `${baseUrl.replace(/\/+$/, '')}/project/${numericProject}/replay/${encodeURIComponent(id)}?t=${Math.max(0, Math.floor(seconds))}`;
}
