// Opening a candidate's documents and folder from the Cycles view.
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { CandidateDoc } from '../../core/layout';
import type { CyclesNode } from '../views/cyclesTree';
import type { WorkspaceModel } from '../workspaceModel';

export async function openCandidateDoc(model: WorkspaceModel, node: CyclesNode | undefined, doc: CandidateDoc): Promise<void> {
  const root = model.workspaceRoot;
  if (!root || node?.kind !== 'candidate') return;
  const uri = vscode.Uri.file(path.join(root, node.candidate.dir, doc));
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    void vscode.window.showInformationMessage(`${node.candidate.dir} has no ${doc} yet.`);
    return;
  }
  await vscode.window.showTextDocument(uri, { preview: true });
}

export async function revealCandidateFolder(model: WorkspaceModel, node: CyclesNode | undefined): Promise<void> {
  const root = model.workspaceRoot;
  if (!root || node?.kind !== 'candidate') return;
  await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(path.join(root, node.candidate.dir)));
}
