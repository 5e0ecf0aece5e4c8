// Commands that need a candidate's directory (evaluate, review, open its documents, promote) refuse one
// whose directory is gone, with a message that says so, instead of failing somewhere deep inside.
import * as vscode from 'vscode';
import type { CandidateView } from '../../core/workspace/snapshot';
import type { WorkspaceModel } from '../workspaceModel';
import { candidateFromArg } from './pickCandidate';

/** The refusal's text: what is wrong and what the person can do. */
export const missingMessage = (dir: string, action: string): string =>
  `SATLUTION: cannot ${action} ${dir}: its directory is missing. Restore ${dir}/ (e.g. from git or a backup), or discard the candidate.`;

/** Whether `c` is a candidate without its directory; if so, says so (a warning) and returns true. */
export function refuseMissing(c: CandidateView | undefined, action: string): boolean {
  if (!c?.missing) return false;
  void vscode.window.showWarningMessage(missingMessage(c.dir, action));
  return true;
}

/**
 * Wraps a command handler whose first argument names a candidate (tree node, `SATLUTION_n` or
 * `{ candidate }`): a missing one is refused before the handler runs; anything else passes through.
 */
export function unlessMissing<A extends unknown[], R>(
  model: WorkspaceModel,
  action: string,
  f: (arg: unknown, ...rest: A) => R,
): (arg: unknown, ...rest: A) => R | undefined {
  return (arg, ...rest) => (refuseMissing(candidateFromArg(model, arg), action) ? undefined : f(arg, ...rest));
}
