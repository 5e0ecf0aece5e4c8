// Rule violations as Problems-panel diagnostics (code = rule id and check), refreshed when a file of
// a candidate or a rule is saved, and when an evaluation or "Check Rules" reports on a candidate.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { loadConfig } from '../../core/config/load';
import type { ComplianceReport } from '../../core/rules/check';
import { checkCandidate } from '../../core/rules/workspaceCheck';
import { parseCandidateDir, RULES_DIR } from '../../core/layout';
import type { Logger } from '../../core/ports';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';

export class ComplianceDiagnostics extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('satlution-rules'));
  private readonly byCandidate = new Map<string, vscode.Uri[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly reported = this.register(new vscode.EventEmitter<{ candidate: string; report: ComplianceReport }>());
  /** Fires after every check shown; the Rules view shows the latest one's state per rule. */
  readonly onDidReport = this.reported.event;
  private last: { candidate: string; report: ComplianceReport } | undefined;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly log: Logger,
  ) {
    super();
    this.register(vscode.workspace.onDidSaveTextDocument((d) => this.onSave(d.uri)));
  }

  /** Checks one candidate now and shows its violations; returns the report. */
  async check(candidate: string): Promise<ComplianceReport | undefined> {
    const root = this.model.workspaceRoot;
    if (!root) return undefined;
    try {
      const report = await checkCandidate(root, await loadConfig(root), path.join(root, candidate));
      this.show(candidate, report);
      return report;
    } catch (e) {
      this.log.warn(`Checking the rules on ${candidate} failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  show(candidate: string, report: ComplianceReport): void {
    const root = this.model.workspaceRoot;
    if (!root) return;
    for (const uri of this.byCandidate.get(candidate) ?? []) this.collection.delete(uri);
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const v of report.violations) {
      const file = path.join(root, candidate, v.file ?? 'HYPOTHESIS.md');
      const line = Math.max(0, (v.line ?? 1) - 1);
      const d = new vscode.Diagnostic(new vscode.Range(line, 0, line, 1000), v.message, v.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
      d.source = 'satlution rules';
      d.code = `${v.rule}/${v.check}`;
      byFile.set(file, [...(byFile.get(file) ?? []), d]);
    }
    const uris = [...byFile].map(([f, ds]) => {
      const uri = vscode.Uri.file(f);
      this.collection.set(uri, ds);
      return uri;
    });
    this.byCandidate.set(candidate, uris);
    this.last = { candidate, report };
    this.reported.fire(this.last);
  }

  /** The latest check shown (from a save, an evaluation, a review or Check Rules). */
  get latest(): { candidate: string; report: ComplianceReport } | undefined {
    return this.last;
  }

  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }

  private onSave(uri: vscode.Uri): void {
    const root = this.model.workspaceRoot;
    if (!root || uri.scheme !== 'file') return;
    const rel = path.relative(root, uri.fsPath).split(path.sep);
    // A saved rule changes every candidate's verdict; a saved source changes its own candidate's.
    const targets = rel[0] === RULES_DIR ? [...this.byCandidate.keys()] : parseCandidateDir(rel[0] ?? '') !== undefined && rel.length > 1 ? [rel[0]!] : [];
    for (const c of targets) {
      clearTimeout(this.timers.get(c));
      this.timers.set(c, setTimeout(() => void this.check(c), 300));
    }
  }

  override dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    super.dispose();
  }
}
