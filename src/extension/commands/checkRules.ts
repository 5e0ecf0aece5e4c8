// "SATLUTION: Check Rules": the compliance check of one candidate, into the Problems panel.
import * as vscode from 'vscode';
import { z } from 'zod';
import type { ComplianceReport } from '../../core/rules/check';
import type { ComplianceDiagnostics } from '../rules/complianceDiagnostics';
import type { CyclesNode } from '../views/cyclesTree';
import type { WorkspaceModel } from '../workspaceModel';

const Args = z.object({ candidate: z.string().regex(/^SATLUTION_\d+$/) }).strict();

export async function checkRules(arg: unknown, ctx: { model: WorkspaceModel; compliance: ComplianceDiagnostics }): Promise<ComplianceReport | undefined> {
  const node = arg as CyclesNode | undefined;
  let candidate = node?.kind === 'candidate' ? node.candidate.dir : Args.safeParse(arg ?? {}).data?.candidate;
  if (!candidate) {
    const items = (ctx.model.snapshot?.candidates ?? [])
      .filter((c) => !c.missing)
      .sort((a, b) => b.id - a.id)
      .map((c) => ({ label: c.dir, description: c.status }));
    candidate = (await vscode.window.showQuickPick(items, { title: 'SATLUTION: Check Rules', placeHolder: 'Which candidate?' }))?.label;
    if (!candidate) return undefined;
  }
  const report = await ctx.compliance.check(candidate);
  if (!report) {
    void vscode.window.showErrorMessage(`SATLUTION: could not check the rules on ${candidate} (see the SATLUTION output).`);
    return undefined;
  }
  const text = `${candidate}: ${report.errors} rule error(s), ${report.warnings} warning(s); compliance ${(100 * report.score).toFixed(0)}%`;
  const problems = 'Show Problems';
  void (report.errors ? vscode.window.showErrorMessage(`SATLUTION: ${text}`, problems) : vscode.window.showInformationMessage(`SATLUTION: ${text}`)).then(
    (a) => {
      if (a === problems) void vscode.commands.executeCommand('workbench.actions.view.problems');
    },
  );
  return report;
}
