// "SATLUTION: Review Rule Patches": a pending rule patch as a diff against the current rule, then
// Apply or Reject. The proposed text is served read-only from a virtual document.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { z } from 'zod';
import { applyPatch, listPatches, rejectPatch, type RulePatch } from '../../core/rules/evolution';
import { RULES_DIR } from '../../core/layout';
import type { WorkspaceModel } from '../workspaceModel';

export const PATCH_SCHEME = 'satlution-patch';

/** Serves `satlution-patch:/<patch id>/<rule file>` as the rule text the patch proposes. */
export class PatchContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly model: WorkspaceModel) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const root = this.model.workspaceRoot;
    const id = uri.path.split('/')[1];
    const p = root ? (await listPatches(root)).find((x) => x.id === id) : undefined;
    return p?.after ?? `No rule patch ${id ?? ''} in this workspace.`;
  }
}

const Args = z.union([z.string(), z.object({ id: z.string(), decision: z.enum(['apply', 'reject']).optional() }).strict()]);

export async function reviewRulePatches(arg: unknown, model: WorkspaceModel): Promise<'applied' | 'rejected' | undefined> {
  const root = model.workspaceRoot;
  if (!root) return undefined;
  const parsed = Args.safeParse(arg);
  const wanted = parsed.success ? (typeof parsed.data === 'string' ? { id: parsed.data } : parsed.data) : undefined;
  const pending = (await listPatches(root)).filter((p) => p.status === 'pending');
  let patch: RulePatch | undefined = wanted ? pending.find((p) => p.id === wanted.id) : undefined;
  if (!patch) {
    if (!pending.length) {
      void vscode.window.showInformationMessage('SATLUTION: no pending rule patches.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      pending.map((p) => ({ label: p.rule_id, description: p.id, detail: p.rationale, patch: p })),
      { title: 'SATLUTION: Review Rule Patches', placeHolder: 'Which patch?', matchOnDetail: true },
    );
    patch = pick?.patch;
    if (!patch) return undefined;
  }
  await showPatchDiff(root, patch);
  let decision = wanted?.decision;
  if (!decision) {
    const apply = 'Apply';
    const reject = 'Reject';
    const a = await vscode.window.showInformationMessage(`Apply this patch to ${patch.rule_id}?`, { modal: true, detail: patch.rationale }, apply, reject);
    decision = a === apply ? 'apply' : a === reject ? 'reject' : undefined;
  }
  if (!decision) return undefined;
  try {
    if (decision === 'apply') {
      const version = await applyPatch(root, patch.id);
      void vscode.window.showInformationMessage(`SATLUTION: ${patch.rule_id} updated; the rule set is now version ${version} (.rules/.history/v${version}).`);
      return 'applied';
    }
    await rejectPatch(root, patch.id);
    void vscode.window.showInformationMessage(`SATLUTION: rule patch ${patch.id} rejected.`);
    return 'rejected';
  } catch (e) {
    void vscode.window.showErrorMessage(`SATLUTION: ${(e as Error).message}`);
    return undefined;
  }
}

/** The rule as it is, beside the rule as the patch proposes it. */
export async function showPatchDiff(root: string, patch: RulePatch): Promise<void> {
  const current = vscode.Uri.file(path.join(root, RULES_DIR, patch.file));
  const proposed = vscode.Uri.from({ scheme: PATCH_SCHEME, path: `/${patch.id}/${patch.file}` });
  await vscode.commands.executeCommand('vscode.diff', current, proposed, `${patch.file} ↔ proposed (${patch.id})`, { preview: true });
}
