// Opening a candidate's documents and folder from the Cycles view.
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { CandidateDoc } from '../../core/layout';
import type { CyclesNode } from '../views/cyclesTree';
import type { WorkspaceModel } from '../workspaceModel';
import { showMarkdown } from '../markdownPreview';
import { refuseMissing } from './missingCandidate';
import { candidateDocProblem } from '../../core/workspace/candidateFs';

/**
 * Opens one of a candidate's documents rendered (they are read here, not edited; the preview's
 * "Open Source" gives the text). `node` is a candidate (the document is `doc`) or one of its
 * document nodes (the document is the node's).
 */
export async function openCandidateDoc(model: WorkspaceModel, node: CyclesNode | undefined, doc?: CandidateDoc): Promise<void> {
  const root = model.workspaceRoot;
  if (!root || (node?.kind !== 'candidate' && node?.kind !== 'doc')) return;
  const name = node.kind === 'doc' ? node.doc : doc;
  if (!name || path.basename(name) !== name || refuseMissing(node.candidate, `open ${name} of`)) return;
  const dir = path.join(root, node.candidate.dir);
  const uri = vscode.Uri.file(path.join(dir, name));
  // A candidate may leave a link (to anything) or a FIFO under a document's name: never opened.
  const problem = await candidateDocProblem(dir, name);
  if (problem) {
    void vscode.window.showWarningMessage(`SATLUTION: ${problem}.`);
    return;
  }
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    void vscode.window.showInformationMessage(`${node.candidate.dir} has no ${name} yet.`);
    return;
  }
  if (name.endsWith('.md')) await showMarkdown(uri, { preview: true });
  else await vscode.window.showTextDocument(uri, { preview: true });
}

export async function revealCandidateFolder(model: WorkspaceModel, node: CyclesNode | undefined): Promise<void> {
  const root = model.workspaceRoot;
  if (!root || node?.kind !== 'candidate' || refuseMissing(node.candidate, 'reveal')) return;
  await vscode.commands.executeCommand('revealInExplorer', vscode.Uri.file(path.join(root, node.candidate.dir)));
}
