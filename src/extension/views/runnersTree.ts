// The Runners view: the runners of satlution.yaml, their health (checked on demand) and the jobs in
// flight on each.
import * as vscode from 'vscode';
import { loadConfig } from '../../core/config/load';
import type { Config, RunnerConfig } from '../../core/config/schema';
import { checkRunnerHealth, type HealthFinding } from '../../core/runners/health';
import type { Job, JobTracker } from '../jobs';
import { extensionRunnerEnv } from '../extensionRunnerEnv';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';

export type RunnersNode =
  | { kind: 'runner'; runner: RunnerConfig }
  | { kind: 'finding'; runner: string; finding: HealthFinding }
  | { kind: 'job'; job: Job }
  | { kind: 'configError'; message: string };

const ICON: Record<RunnerConfig['kind'], string> = { local: 'vm', ssh: 'remote', slurm: 'server-environment' };
const LEVEL_ICON: Record<HealthFinding['level'], [string, string]> = {
  ok: ['pass', 'testing.iconPassed'],
  warning: ['warning', 'problemsWarningIcon.foreground'],
  error: ['error', 'problemsErrorIcon.foreground'],
};

export class RunnersTreeProvider extends Disposable implements vscode.TreeDataProvider<RunnersNode> {
  private readonly changed = this.register(new vscode.EventEmitter<RunnersNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private readonly health = new Map<string, HealthFinding[] | 'checking'>();
  private config: Promise<Config | Error> | undefined;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly jobs: JobTracker,
  ) {
    super();
    this.register(
      model.onDidChange(() => {
        this.config = undefined;
        this.changed.fire(undefined);
      }),
    );
    this.register(jobs.onDidChange(() => this.changed.fire(undefined)));
  }

  private loadConfig(): Promise<Config | Error> {
    const root = this.model.workspaceRoot;
    this.config ??= root ? loadConfig(root).catch((e: Error) => e) : Promise.resolve(new Error('no workspace'));
    return this.config;
  }

  /** Runs the health check of one runner (all when none is given) and shows the findings under it. */
  async check(node?: RunnersNode): Promise<Map<string, HealthFinding[]>> {
    const root = this.model.workspaceRoot;
    const config = await this.loadConfig();
    const out = new Map<string, HealthFinding[]>();
    if (!root || config instanceof Error) return out;
    const targets = node?.kind === 'runner' ? [node.runner] : config.runners;
    for (const r of targets) this.health.set(r.name, 'checking');
    this.changed.fire(undefined);
    for (const r of targets) {
      const { sshArgs, workerFile } = extensionRunnerEnv();
      const findings = await checkRunnerHealth(r, config, root, { workerFile, ...(sshArgs ? { sshArgs } : {}) }).catch((e: Error) => [
        { check: 'health check', level: 'error' as const, detail: e.message },
      ]);
      this.health.set(r.name, findings);
      out.set(r.name, findings);
    }
    this.changed.fire(undefined);
    return out;
  }

  async getChildren(node?: RunnersNode): Promise<RunnersNode[]> {
    if (!this.model.workspaceRoot) return [];
    const config = await this.loadConfig();
    if (!node) {
      if (config instanceof Error) return [{ kind: 'configError', message: config.message }];
      const named = new Set(config.runners.map((r) => r.name));
      // Jobs on a runner the config no longer names still show, at the top level.
      const orphans = this.jobs.all.filter((j) => !named.has(j.runner)).map((job): RunnersNode => ({ kind: 'job', job }));
      return [...config.runners.map((runner): RunnersNode => ({ kind: 'runner', runner })), ...orphans];
    }
    if (node.kind !== 'runner') return [];
    const h = this.health.get(node.runner.name);
    const findings = Array.isArray(h) ? h.map((finding): RunnersNode => ({ kind: 'finding', runner: node.runner.name, finding })) : [];
    return [...this.jobs.all.filter((j) => j.runner === node.runner.name).map((job): RunnersNode => ({ kind: 'job', job })), ...findings];
  }

  /** The local runner's name, when the config has one (drat-trim is set up here for this machine only). */
  private localName(): string | undefined {
    return this.model.snapshot?.config.ok ? this.model.snapshot.config.config.runners.find((r) => r.kind === 'local')?.name : undefined;
  }

  getTreeItem(node: RunnersNode): vscode.TreeItem {
    if (node.kind === 'configError') {
      const item = new vscode.TreeItem('satlution.yaml has problems');
      item.description = node.message.split('\n')[0];
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
      return item;
    }
    if (node.kind === 'job') {
      const item = new vscode.TreeItem(node.job.label);
      item.id = `job:${node.job.id}`;
      item.description = node.job.message;
      item.iconPath = new vscode.ThemeIcon('loading~spin');
      item.tooltip = `${node.job.label} on ${node.job.runner}, started ${node.job.started.toLocaleTimeString()}: ${node.job.message}`;
      item.contextValue = 'job';
      return item;
    }
    if (node.kind === 'finding') {
      const f = node.finding;
      const item = new vscode.TreeItem(f.check);
      item.id = `finding:${node.runner}:${f.check}`;
      item.description = f.detail;
      item.tooltip = f.detail;
      const [icon, color] = LEVEL_ICON[f.level];
      item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
      item.accessibilityInformation = { label: `${f.check}: ${f.level}, ${f.detail}` };
      // A missing proof checker is fixed from here (locate it, or build it in a terminal).
      if (f.check === 'drat-trim' && f.level !== 'ok' && node.runner === this.localName()) {
        item.command = { command: 'satlution.setupDratTrim', title: 'Set Up drat-trim' };
        item.contextValue = 'finding.dratTrim';
        item.tooltip = `${f.detail}\n\nClick to locate drat-trim or build it.`;
      }
      if (f.check === 'sandbox' && f.level === 'error' && /bubblewrap \(bwrap\) is not installed/.test(f.detail) && node.runner === this.localName()) {
        item.command = { command: 'satlution.installBubblewrap', title: 'Install bubblewrap' };
        item.tooltip = `${f.detail}\n\nClick to have the install command typed into a terminal.`;
      }
      return item;
    }
    const r = node.runner;
    const h = this.health.get(r.name);
    const running = this.jobs.all.filter((j) => j.runner === r.name).length;
    const item = new vscode.TreeItem(r.name, running || Array.isArray(h) ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = `runner:${r.name}`;
    const where = r.kind === 'local' ? `${r.jobs ?? 'auto'} slots` : r.kind === 'ssh' ? r.host : (r.login_host ?? 'sbatch here');
    const worst = Array.isArray(h) ? (h.some((f) => f.level === 'error') ? 'error' : h.some((f) => f.level === 'warning') ? 'warning' : 'ok') : undefined;
    item.description = [r.kind, where, running ? `${running} running` : '', h === 'checking' ? 'checking…' : worst === 'ok' ? 'healthy' : (worst ?? '')]
      .filter(Boolean)
      .join(' · ');
    item.iconPath =
      worst && worst !== 'ok' ? new vscode.ThemeIcon(LEVEL_ICON[worst][0], new vscode.ThemeColor(LEVEL_ICON[worst][1])) : new vscode.ThemeIcon(ICON[r.kind]);
    item.contextValue = 'runner';
    item.accessibilityInformation = { label: `Runner ${r.name}, ${item.description}` };
    return item;
  }
}
