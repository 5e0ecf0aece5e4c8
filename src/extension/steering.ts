// Registers the steering surface: the Steering view, plan approval from the view, the CodeLens or the
// command palette, "Pause Evolution Cycle", and agent transcripts as read-only Markdown documents.
import * as vscode from 'vscode';
import { z } from 'zod';
import type { CycleController } from './commands/cycleCommands';
import { openTranscript, TRANSCRIPT_SCHEME, TranscriptContentProvider } from './commands/openTranscript';
import { SteeringViewProvider } from './webviews/steeringView';
import type { WorkspaceModel } from './workspaceModel';

const Candidate = z.string().regex(/^SATLUTION_\d{1,9}$/);

export function registerSteering(
  extensionUri: vscode.Uri,
  model: WorkspaceModel,
  cycles: CycleController,
  log: vscode.LogOutputChannel,
): { steering: SteeringViewProvider; disposable: vscode.Disposable } {
  const steering = new SteeringViewProvider(extensionUri, model, cycles, log);
  const transcripts = new TranscriptContentProvider(model);
  // The CodeLens passes the candidate; from the palette, the plan that waits is meant.
  const answer = (approved: boolean) => async (arg?: unknown) => {
    const pending = cycles.approvals.pending;
    const candidate = Candidate.safeParse(arg).data ?? pending?.candidate;
    if (!candidate || !(await cycles.answerPlan(candidate, { approved }))) {
      void vscode.window.showInformationMessage('SATLUTION: no plan is waiting for approval.');
      return false;
    }
    return true;
  };
  const disposable = vscode.Disposable.from(
    steering,
    vscode.window.registerWebviewViewProvider(SteeringViewProvider.viewId, steering),
    transcripts,
    vscode.workspace.registerTextDocumentContentProvider(TRANSCRIPT_SCHEME, transcripts),
    cycles.onDidEvent((e) => e.type.startsWith('agent-') && transcripts.refreshSoon()),
    vscode.commands.registerCommand('satlution.pauseCycle', () => {
      if (!cycles.pause())
        void vscode.window.showInformationMessage(cycles.isRunning ? 'SATLUTION: the cycle is already pausing.' : 'SATLUTION: no cycle is running.');
    }),
    vscode.commands.registerCommand('satlution.openTranscript', (arg?: unknown) => openTranscript(arg, model)),
    vscode.commands.registerCommand('satlution.approvePlan', answer(true)),
    vscode.commands.registerCommand('satlution.rejectPlan', answer(false)),
  );
  return { steering, disposable };
}
