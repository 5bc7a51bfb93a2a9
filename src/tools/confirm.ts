import { NotConfirmedError } from '../errors.js';
import type { ToolContext } from './define.js';

export interface ConfirmStep {
  /** What the user is asked, naming exactly what will change (or a function that fetches it first). */
  message: string | (() => Promise<string>);
  /** The step, for the result when it does not happen: "delete recording 0193… from project 1001". */
  action: string;
  /** What stays as it was: "Nothing was deleted." */
  unchanged: string;
}

/**
 * Asks the user before a destructive step; returns when it may go ahead (confirmed, or nobody
 * could be asked), throws NotConfirmedError otherwise, with a result text the agent acts on:
 * nothing happened, and asking again is the user's call, not the agent's.
 */
export async function confirmOrStop(confirm: ToolContext['confirm'], step: ConfirmStep): Promise<void> {
  const answer = await confirm(step.message);
  switch (answer) {
    case 'confirmed':
    case 'not-asked':
      return;
    case 'declined':
      throw new NotConfirmedError(`The user declined to ${step.action}. ${step.unchanged} Do not retry unless the user asks for it again.`);
    case 'cancelled':
      throw new NotConfirmedError(`The user dismissed the confirmation to ${step.action} without agreeing. ${step.unchanged} Ask the user before trying again.`);
    case 'failed':
      throw new NotConfirmedError(`Could not get the user's confirmation to ${step.action} (the client did not answer the confirmation request). ${step.unchanged} Ask the user in the chat whether to go ahead.`);
  }
}
