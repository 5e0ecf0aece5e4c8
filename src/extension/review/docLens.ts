// CodeLens on a candidate's HYPOTHESIS.md and RESULTS.md: compare with the parent, jump between the
// two documents, open the dashboard, and approve the plan when the cycle waits for that candidate.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { parseCandidateDir } from '../../core/layout';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';

export const DOC_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: '**/SATLUTION_*/HYPOTHESIS.md' },
  { scheme: 'file', pattern: '**/SATLUTION_*/RESULTS.md' },
];

export class CandidateDocLens extends Disposable implements vscode.CodeLensProvider {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly model: WorkspaceModel,
    /** The candidate whose plan awaits approval right now, if any. */
    private readonly awaitingApproval: () => string | undefined,
  ) {
    super();
    this.register(model.onDidChange(() => this.changed.fire()));
  }

  /** Call when the approval state changes. */
  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const root = this.model.workspaceRoot;
    if (!root || !vscode.workspace.getConfiguration('satlution').get<boolean>('codeLens.enabled', true)) return [];
    const rel = path.relative(root, doc.uri.fsPath).split(path.sep);
    if (rel.length !== 2 || parseCandidateDir(rel[0]!) === undefined) return [];
    const dir = rel[0]!;
    const c = this.model.snapshot?.candidates.find((x) => x.dir === dir);
    if (!c) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    const lens = (title: string, command: string, ...args: unknown[]) => new vscode.CodeLens(top, { title, command, arguments: args, tooltip: title });
    const out: vscode.CodeLens[] = [];
    if (rel[1] === 'HYPOTHESIS.md' && this.awaitingApproval() === dir)
      out.push(lens('$(check) Approve plan', 'satlution.approvePlan', dir), lens('$(close) Reject plan', 'satlution.rejectPlan', dir));
    if (c.parent !== null) out.push(lens('$(diff) Compare with parent', 'satlution.compareWithParent', dir));
    if (rel[1] === 'HYPOTHESIS.md' && c.docs.includes('RESULTS.md'))
      out.push(lens('$(graph) Open results', 'vscode.open', vscode.Uri.file(path.join(root, dir, 'RESULTS.md'))));
    if (rel[1] === 'RESULTS.md') {
      if (c.docs.includes('HYPOTHESIS.md'))
        out.push(lens('$(lightbulb) Open hypothesis', 'vscode.open', vscode.Uri.file(path.join(root, dir, 'HYPOTHESIS.md'))));
      out.push(lens('$(graph-line) Open dashboard', 'satlution.openDashboard'));
    }
    return out;
  }
}
