/** What every operation takes besides its arguments. */
export interface CallOptions {
  /** The MCP call's signal: cancelling the call aborts the request. */
  signal?: AbortSignal | undefined;
  /** Counts the request (retries too) against a bound of the caller's: one recording's (RecordingMeter, snapshots.ts). */
  meter?: { spend(where: string): void } | undefined;
}
