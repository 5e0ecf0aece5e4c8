// The VS Code adapter's entry point: wires the core to commands, views and diagnostics. Everything
// here is thin; the engine lives in src/core and is shared with the `satlution` CLI.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { CONFIG_FILE } from '../core/layout';
import type { WorkspaceSnapshot } from '../core/workspace/snapshot';
import { openCandidateDoc, revealCandidateFolder } from './commands/candidateDocs';
import { evaluateCandidate, evaluateOnRunner } from './commands/evaluate';
import { addDefaultObjectives, exportTrajectoriesCommand, proposeObjectiveCommand } from './commands/research';
import { checkRules } from './commands/checkRules';
import { CycleController, setApiKey } from './commands/cycle';
import { PATCH_SCHEME, PatchContentProvider, reviewRulePatches } from './commands/reviewRulePatches';
import { ComplianceDiagnostics } from './rules/complianceDiagnostics';
import { initializeWorkspace } from './commands/initialize';
import { ConfigDiagnostics } from './config/diagnostics';
import { CyclesTreeProvider, type CyclesNode } from './views/cyclesTree';
import { OverviewViewProvider } from './webviews/overviewView';
import { registerDashboard } from './webviews/dashboardPanel';
import { WorkspaceModel } from './workspaceModel';
import { JobTracker } from './jobs';
import { registerReview } from './review/register';
import { SatlutionStatusBar } from './statusBar';
import { registerSteering } from './steering';
import { registerSidebarTrees } from './views/register';
import type { RulesTreeProvider } from './views/rulesTree';
import type { RunnersTreeProvider } from './views/runnersTree';

/** What activate() returns: a small API for other extensions and for the integration tests. */
export interface SatlutionApi {
  refresh(): Promise<WorkspaceSnapshot | undefined>;
  readonly workspaceRoot: string | undefined;
  cyclesTree: CyclesTreeProvider;
  rulesTree: RulesTreeProvider;
  runnersTree: RunnersTreeProvider;
  statusBar: SatlutionStatusBar;
  configDiagnostics(uri: vscode.Uri): readonly vscode.Diagnostic[];
  buildDiagnostics(uri: vscode.Uri): readonly vscode.Diagnostic[];
  ruleDiagnostics(uri: vscode.Uri): readonly vscode.Diagnostic[];
}

export function activate(context: vscode.ExtensionContext): SatlutionApi {
  const log = vscode.window.createOutputChannel('SATLUTION', { log: true });
  const model = new WorkspaceModel(log);
  const tree = new CyclesTreeProvider(model);
  const diagnostics = new ConfigDiagnostics();
  const overview = new OverviewViewProvider(context.extensionUri, model, log);
  const buildProblems = vscode.languages.createDiagnosticCollection('satlution-build');
  const compliance = new ComplianceDiagnostics(model, log);
  const cycles = new CycleController(model, context.secrets, log);
  const rulesDir = context.asAbsolutePath('rules');
  const cmd = (id: string, f: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, f);
  const jobs = new JobTracker();
  const statusBar = new SatlutionStatusBar(model);
  const trees = registerSidebarTrees(model, compliance, jobs, log);
  const review = registerReview(model, compliance, () => cycles.approvals.pending?.candidate);
  const steering = registerSteering(context.extensionUri, model, cycles, log);

  context.subscriptions.push(
    log,
    model,
    tree,
    diagnostics,
    vscode.window.createTreeView('satlution.cycles', { treeDataProvider: tree, showCollapseAll: true }),
    overview,
    vscode.window.registerWebviewViewProvider(OverviewViewProvider.viewId, overview),
    cmd('satlution.initializeWorkspace', async (args?: unknown) => {
      const result = await initializeWorkspace(args, { rulesDir, log });
      if (result) {
        await model.refresh();
        await vscode.commands.executeCommand('satlution.cycles.focus');
      }
      return result ? { configFile: result.configFile, generated: result.generated } : undefined;
    }),
    buildProblems,
    compliance,
    jobs,
    statusBar,
    trees.disposable,
    review.disposable,
    cmd('satlution.evaluateCandidate', (arg?: unknown) => evaluateCandidate(arg, { model, log, buildProblems, compliance, jobs })),
    cmd('satlution.evaluateOnRunner', (arg?: unknown) => evaluateOnRunner(arg, { model, log, buildProblems, compliance, jobs })),
    cmd('satlution.checkRules', (arg?: unknown) => checkRules(arg, { model, compliance })),
    cmd('satlution.reviewRulePatches', (arg?: unknown) => reviewRulePatches(arg, model)),
    cycles,
    cmd('satlution.startCycle', (arg?: unknown) => cycles.start(arg)),
    cmd('satlution.resumeCycle', (arg?: unknown) => cycles.start(arg, true)),
    cmd('satlution.stopCycle', () => cycles.stop()),
    steering.disposable,
    registerDashboard(context, model, log),
    cycles.onDidChangeState(() => {
      review.lens.refresh();
      statusBar.setRunning(cycles.isRunning);
    }),
    cmd('satlution.setApiKey', (arg?: unknown) => setApiKey(arg, context.secrets)),
    cmd('satlution.exportTrajectories', (arg?: unknown) => exportTrajectoriesCommand(arg, model)),
    cmd('satlution.addDefaultObjectives', () => addDefaultObjectives(model)),
    cmd('satlution.proposeObjective', () => proposeObjectiveCommand(model, context.secrets, log)),
    vscode.workspace.registerTextDocumentContentProvider(PATCH_SCHEME, new PatchContentProvider(model)),
    cmd('satlution.refreshCandidates', () => model.refresh()),
    cmd('satlution.openHypothesis', (n?: CyclesNode) => openCandidateDoc(model, n, 'HYPOTHESIS.md')),
    cmd('satlution.openChangelog', (n?: CyclesNode) => openCandidateDoc(model, n, 'CHANGELOG.md')),
    cmd('satlution.openResults', (n?: CyclesNode) => openCandidateDoc(model, n, 'RESULTS.md')),
    cmd('satlution.revealCandidateFolder', (n?: CyclesNode) => revealCandidateFolder(model, n)),
    cmd('satlution.showOutput', () => log.show()),
    cmd('satlution.openConfig', () => model.workspaceRoot && vscode.window.showTextDocument(vscode.Uri.file(path.join(model.workspaceRoot, CONFIG_FILE)))),
    model.onDidChange((snap) => {
      if (snap) void diagnostics.checkFile(vscode.Uri.file(path.join(snap.dir, CONFIG_FILE)));
    }),
  );
  void model.refresh();
  log.info('SATLUTION activated');
  return {
    refresh: () => model.refresh(),
    get workspaceRoot() {
      return model.workspaceRoot;
    },
    cyclesTree: tree,
    rulesTree: trees.rules,
    runnersTree: trees.runners,
    statusBar,
    configDiagnostics: (uri) => diagnostics.get(uri),
    buildDiagnostics: (uri) => buildProblems.get(uri) ?? [],
    ruleDiagnostics: (uri) => compliance.get(uri),
  };
}

export function deactivate(): void {}
