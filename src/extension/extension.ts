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
import { CycleController } from './commands/cycleCommands';
import { secretKey, setApiKey } from './commands/apiKey';
import { configureModels } from './commands/configureModels';
import { setupDratTrim } from './commands/dratTrim';
import { installBubblewrap } from './commands/bubblewrap';
import { addSamples } from './commands/sampleBenchmarks';
import { curateBenchmarks, fetchBenchmarks } from './commands/gbdBenchmarks';
import { PATCH_SCHEME, PatchContentProvider, reviewRulePatches } from './commands/reviewRulePatches';
import { ComplianceDiagnostics } from './rules/complianceDiagnostics';
import { initializeWorkspace } from './commands/initialize';
import { abandonCycleCommand } from './commands/abandonCycle';
import { ConfigMissingWarning, restoreConfigCommand } from './commands/restoreConfigCommand';
import { unlessMissing } from './commands/missingCandidate';
import { ConfigDiagnostics } from './config/diagnostics';
import { CyclesTreeProvider, type CyclesNode } from './views/cyclesTree';
import { OverviewViewProvider } from './webviews/overviewView';
import { registerDashboard } from './webviews/dashboardPanel';
import { WorkspaceModel } from './workspaceModel';
import { JobTracker } from './jobs';
import { registerReview } from './review/registerReview';
import { SatlutionStatusBar } from './statusBar';
import { registerSteering } from './steering';
import type { SteeringState } from '../shared/steeringProtocol';
import { registerSidebarTrees } from './views/register';
import type { RulesTreeProvider } from './views/rulesTree';
import type { RunnersTreeProvider } from './views/runnersTree';

/** What activate() returns: a small API for other extensions and for the integration tests. */
export interface SatlutionApi {
  refresh(): Promise<WorkspaceSnapshot | undefined>;
  /** The latest snapshot as the views see it, without reading again (tests check that watchers refreshed it). */
  readonly snapshot: WorkspaceSnapshot | undefined;
  /** Per candidate directory: why its perf figures are from an older perf set. */
  readonly stalePerf: ReadonlyMap<string, string>;
  /** What the Steering view shows now (its progress, retry and problem included). */
  steeringState(): SteeringState;
  /** Cuts a retried model call's wait short, as Steering's Retry Now does; false when none waits. */
  retryNow(): boolean;
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
  const started = Date.now();
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
      if (result === 'restoreOffered') return { restoreOffered: true };
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
    cmd(
      'satlution.evaluateCandidate',
      unlessMissing(model, 'evaluate', (arg?: unknown) => evaluateCandidate(arg, { model, log, buildProblems, compliance, jobs })),
    ),
    cmd('satlution.evaluateOnRunner', (arg?: unknown) => evaluateOnRunner(arg, { model, log, buildProblems, compliance, jobs })),
    cmd(
      'satlution.checkRules',
      unlessMissing(model, 'check the rules on', (arg?: unknown) => checkRules(arg, { model, compliance })),
    ),
    cmd('satlution.reviewRulePatches', (arg?: unknown) => reviewRulePatches(arg, model)),
    cycles,
    cmd('satlution.startCycle', (arg?: unknown) => cycles.start(arg)),
    cmd('satlution.resumeCycle', (arg?: unknown) => cycles.start(arg, true)),
    cmd('satlution.stopCycle', () => cycles.stop()),
    cmd('satlution.abandonCycle', (arg?: unknown) => abandonCycleCommand(arg, model)),
    cmd('satlution.restoreConfig', (arg?: unknown) => restoreConfigCommand(arg, model)),
    new ConfigMissingWarning(model),
    steering.disposable,
    registerDashboard(context, model, log),
    cycles.onDidChangeState(() => {
      review.lens.refresh();
      statusBar.setRunning(cycles.isRunning);
    }),
    cmd('satlution.setApiKey', (arg?: unknown) => setApiKey(arg, context.secrets, model)),
    cmd('satlution.addSampleBenchmarks', () => addSamples(model)),
    cmd('satlution.fetchBenchmarks', (arg?: unknown) => fetchBenchmarks(arg, model, log)),
    cmd('satlution.curateBenchmarks', (arg?: unknown) => curateBenchmarks(arg, model, log)),
    cmd('satlution.setupDratTrim', (arg?: unknown) => setupDratTrim(arg, { model, afterwards: () => vscode.commands.executeCommand('satlution.checkRunner') })),
    cmd('satlution.installBubblewrap', () => installBubblewrap(() => vscode.commands.executeCommand('satlution.checkRunner'))),
    cmd('satlution.configureModels', (arg?: unknown) => configureModels(arg, { model, secrets: context.secrets, secretKey })),
    cmd('satlution.exportTrajectories', (arg?: unknown) => exportTrajectoriesCommand(arg, model)),
    cmd('satlution.addDefaultObjectives', () => addDefaultObjectives(model)),
    cmd('satlution.proposeObjective', () => proposeObjectiveCommand(model, context.secrets, log)),
    vscode.workspace.registerTextDocumentContentProvider(PATCH_SCHEME, new PatchContentProvider(model)),
    cmd('satlution.refreshCandidates', () => model.refresh()),
    cmd('satlution.openHypothesis', (n?: CyclesNode) => openCandidateDoc(model, n, 'HYPOTHESIS.md')),
    cmd('satlution.openChangelog', (n?: CyclesNode) => openCandidateDoc(model, n, 'CHANGELOG.md')),
    cmd('satlution.openResults', (n?: CyclesNode) => openCandidateDoc(model, n, 'RESULTS.md')),
    // A document node of the Cycles tree: its document, rendered.
    cmd('satlution.openCandidateDoc', (n?: CyclesNode) => openCandidateDoc(model, n)),
    cmd('satlution.revealCandidateFolder', (n?: CyclesNode) => revealCandidateFolder(model, n)),
    cmd('satlution.showOutput', () => log.show()),
    cmd('satlution.openConfig', () => model.workspaceRoot && vscode.window.showTextDocument(vscode.Uri.file(path.join(model.workspaceRoot, CONFIG_FILE)))),
    model.onDidChange((snap) => {
      if (snap) void diagnostics.checkFile(vscode.Uri.file(path.join(snap.dir, CONFIG_FILE)));
      // The walkthrough's "Choose the agents" completes once a model is really configured.
      void vscode.commands.executeCommand(
        'setContext',
        'satlution.modelsConfigured',
        !!(snap?.config.ok && (snap.config.config.models.planner || snap.config.config.models.coder)),
      );
    }),
  );
  // The Overview and Steering views exist only once the workspace is known: when satlution.yaml is
  // there (it is what activated us), show them now, with their loading state, not after the first read.
  void showViewsEarly()
    .then(() => model.refresh())
    .then(() => log.info(`SATLUTION: workspace read ${Date.now() - started} ms after activation began`));
  log.info(`SATLUTION activated in ${Date.now() - started} ms`);
  return {
    refresh: () => model.refresh(),
    get snapshot() {
      return model.snapshot;
    },
    steeringState: () => steering.steering.state(),
    retryNow: () => cycles.retryNow(),
    get stalePerf() {
      return model.stalePerf;
    },
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

/** Sets the views' context key when a folder holds satlution.yaml; the workspace model keeps it right after its first read. */
async function showViewsEarly(): Promise<void> {
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    if (f.uri.scheme !== 'file') continue;
    const found = await vscode.workspace.fs.stat(vscode.Uri.joinPath(f.uri, CONFIG_FILE)).then(
      () => true,
      () => false,
    );
    if (found) {
      await vscode.commands.executeCommand('setContext', 'satlution.workspaceInitialized', true);
      return;
    }
  }
}

export function deactivate(): void {}
