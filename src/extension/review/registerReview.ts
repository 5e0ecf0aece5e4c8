// The review commands (compare with the parent or another candidate, promote, discard) and the
// CodeLens on candidate documents.
import * as vscode from 'vscode';
import { discardCandidate, promoteCandidate } from '../commands/candidateActions';
import type { WorkspaceModel } from '../workspaceModel';
import type { ComplianceDiagnostics } from '../rules/complianceDiagnostics';
import { compareCandidates, compareWithParent, EMPTY_SCHEME, emptyProvider } from './reviewDiff';
import { CandidateDocLens, DOC_SELECTOR } from './docLens';

export function registerReview(
  model: WorkspaceModel,
  compliance: ComplianceDiagnostics,
  awaitingApproval: () => string | undefined,
): { lens: CandidateDocLens; disposable: vscode.Disposable } {
  const deps = { model, compliance };
  const lens = new CandidateDocLens(model, awaitingApproval);
  const disposable = vscode.Disposable.from(
    lens,
    vscode.languages.registerCodeLensProvider(DOC_SELECTOR, lens),
    vscode.workspace.registerTextDocumentContentProvider(EMPTY_SCHEME, emptyProvider),
    vscode.commands.registerCommand('satlution.compareWithParent', (arg?: unknown) => compareWithParent(arg, deps)),
    vscode.commands.registerCommand('satlution.compareCandidates', (arg?: unknown) => compareCandidates(arg, deps)),
    vscode.commands.registerCommand('satlution.promoteCandidate', (arg?: unknown, o?: { yes?: boolean }) => promoteCandidate(arg, model, o)),
    vscode.commands.registerCommand('satlution.discardCandidate', (arg?: unknown, o?: { yes?: boolean }) => discardCandidate(arg, model, o)),
  );
  return { lens, disposable };
}
