// The Rules and Runners views and their item commands.
import * as vscode from 'vscode';
import { listPatches } from '../../core/rules/evolution';
import type { Logger } from '../../core/ports';
import { reviewRulePatches, showPatchDiff } from '../commands/reviewRulePatches';
import type { JobTracker } from '../jobs';
import type { ComplianceDiagnostics } from '../rules/complianceDiagnostics';
import type { WorkspaceModel } from '../workspaceModel';
import { RulesTreeProvider, type RulesNode } from './rulesTree';
import { RunnersTreeProvider, type RunnersNode } from './runnersTree';

export function registerSidebarTrees(
  model: WorkspaceModel,
  compliance: ComplianceDiagnostics,
  jobs: JobTracker,
  log: Logger,
): { rules: RulesTreeProvider; runners: RunnersTreeProvider; disposable: vscode.Disposable } {
  const rules = new RulesTreeProvider(model, compliance, log);
  const runners = new RunnersTreeProvider(model, jobs);
  // A patch node from the tree, or a patch id from a script.
  const patchOf = async (arg: unknown) => {
    const n = arg as RulesNode | undefined;
    if (n && typeof n === 'object' && n.kind === 'patch') return n.patch;
    const root = model.workspaceRoot;
    return typeof arg === 'string' && root ? (await listPatches(root)).find((p) => p.id === arg) : undefined;
  };
  const decide = (decision: 'apply' | 'reject') => async (arg?: unknown) => {
    const p = await patchOf(arg);
    const r = await reviewRulePatches(p ? { id: p.id, decision } : undefined, model);
    rules.refresh();
    return r;
  };
  const disposable = vscode.Disposable.from(
    rules,
    runners,
    vscode.window.createTreeView('satlution.rules', { treeDataProvider: rules, showCollapseAll: true }),
    vscode.window.createTreeView('satlution.runners', { treeDataProvider: runners }),
    vscode.commands.registerCommand('satlution.refreshRules', () => rules.refresh()),
    vscode.commands.registerCommand('satlution.openRulePatch', async (arg?: unknown) => {
      const p = await patchOf(arg);
      const root = model.workspaceRoot;
      if (p && root) await showPatchDiff(root, p);
    }),
    vscode.commands.registerCommand('satlution.applyRulePatch', decide('apply')),
    vscode.commands.registerCommand('satlution.rejectRulePatch', decide('reject')),
    vscode.commands.registerCommand('satlution.checkRunner', async (arg?: RunnersNode) => {
      const found = await vscode.window.withProgress({ location: { viewId: 'satlution.runners' }, title: 'Checking runners' }, () => runners.check(arg));
      return Object.fromEntries(found);
    }),
  );
  return { rules, runners, disposable };
}
