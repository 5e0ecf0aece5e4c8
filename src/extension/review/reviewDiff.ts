// Reviewing a candidate: one multi-file diff against its parent (or any other candidate), with its
// HYPOTHESIS.md and RESULTS.md beside it, and the rules' findings as diagnostics in the diffed sources.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { describeEntry, diffCandidates, type FileChange, type OddEntry } from '../../core/workspace/candidateDiff';
import { candidateDirName } from '../../core/layout';
import type { CandidateView } from '../../core/workspace/snapshot';
import { pickCandidate } from '../commands/pickCandidate';
import { refuseMissing } from '../commands/missingCandidate';
import type { ComplianceDiagnostics } from '../rules/complianceDiagnostics';
import type { WorkspaceModel } from '../workspaceModel';

/**
 * A side of a diff that is not a file to open: empty (the missing side of an added or deleted file), or
 * the description of a link or special file (in the URI's query), which is never read through.
 */
export const EMPTY_SCHEME = 'satlution-empty';
export const emptyProvider: vscode.TextDocumentContentProvider = { provideTextDocumentContent: (uri) => uri.query };

export interface ReviewDeps {
  model: WorkspaceModel;
  compliance: ComplianceDiagnostics;
}

export interface ReviewResult {
  from: string;
  to: string;
  changes: FileChange[];
}

export async function compareWithParent(arg: unknown, deps: ReviewDeps): Promise<ReviewResult | undefined> {
  const c = await pickCandidate(deps.model, arg, { title: 'SATLUTION: Compare with Parent', filter: (x) => x.parent !== null });
  if (!c) return undefined;
  if (c.parent === null) {
    void vscode.window.showInformationMessage(`SATLUTION: ${c.dir} is a seed baseline; it has no parent to compare with.`);
    return undefined;
  }
  const parent = deps.model.snapshot?.candidates.find((x) => x.id === c.parent);
  if (refuseMissing(c, 'compare') || refuseMissing(parent, `compare ${c.dir} with its parent`)) return undefined;
  return review(deps, candidateDirName(c.parent), c);
}

export async function compareCandidates(arg: unknown, deps: ReviewDeps): Promise<ReviewResult | undefined> {
  const to = await pickCandidate(deps.model, arg, { title: 'SATLUTION: Compare Candidates (1/2)', placeHolder: 'Which candidate to review?' });
  if (!to || refuseMissing(to, 'compare')) return undefined;
  const from = await pickCandidate(deps.model, undefined, {
    title: `SATLUTION: Compare ${to.dir} with…`,
    placeHolder: 'Compare with which candidate?',
    filter: (x) => x.dir !== to.dir,
  });
  if (!from || refuseMissing(from, `compare ${to.dir} with`)) return undefined;
  return review(deps, from.dir, to);
}

async function review(deps: ReviewDeps, fromDir: string, to: CandidateView): Promise<ReviewResult | undefined> {
  const root = deps.model.workspaceRoot!;
  const a = path.join(root, fromDir);
  const b = path.join(root, to.dir);
  let changes: FileChange[];
  try {
    changes = await diffCandidates(a, b);
  } catch (e) {
    void vscode.window.showErrorMessage(`SATLUTION: cannot compare ${to.dir} with ${fromDir}: ${(e as Error).message}`);
    return undefined;
  }
  const result = { from: fromDir, to: to.dir, changes };
  // Findings first, so the diff opens with its squiggles already in place.
  await deps.compliance.check(to.dir);
  if (!changes.length) void vscode.window.showInformationMessage(`SATLUTION: ${to.dir} has the same sources as ${fromDir}.`);
  else {
    const virtual = (f: string, side: string, entry?: OddEntry) =>
      vscode.Uri.from({ scheme: EMPTY_SCHEME, path: `/${side}/${f}`, query: entry ? describeEntry(entry) : '' });
    const resources = changes.map((ch) => {
      const left = ch.kind === 'added' || ch.before ? virtual(ch.path, 'a', ch.before) : vscode.Uri.file(path.join(a, ch.path));
      const right = ch.kind === 'deleted' || ch.after ? virtual(ch.path, 'b', ch.after) : vscode.Uri.file(path.join(b, ch.path));
      return [vscode.Uri.file(path.join(b, ch.path)), left, right];
    });
    await vscode.commands.executeCommand('vscode.changes', `${to.dir} ↔ ${fromDir}`, resources); // VS Code adds the file count
  }
  if (vscode.workspace.getConfiguration('satlution').get<boolean>('review.openDocumentsBeside', true))
    for (const doc of ['HYPOTHESIS.md', 'RESULTS.md']) {
      const uri = vscode.Uri.file(path.join(b, doc));
      if (to.docs.includes(doc as 'HYPOTHESIS.md'))
        await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
    }
  return result;
}
