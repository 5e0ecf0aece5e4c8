// The Rules view: the rulebase (each rule with its phases, checks and state in the latest compliance
// check), and the pending rule patches the post-mortems proposed, to review and apply or reject.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { history, listPatches, ruleStats, type RulePatch, type RuleStats } from '../../core/rules/evolution';
import { loadRules } from '../../core/rules/loadRules';
import type { Rule } from '../../core/rules/ruleSchema';
import { RULES_DIR } from '../../core/layout';
import type { Logger } from '../../core/ports';
import type { ComplianceDiagnostics } from '../rules/complianceDiagnostics';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';

export type RulesNode =
  | { kind: 'group'; group: 'rules' | 'patches' }
  | { kind: 'rule'; rule: Rule; stats: RuleStats | undefined }
  | { kind: 'patch'; patch: RulePatch }
  | { kind: 'error'; message: string };

interface Loaded {
  rules: Rule[];
  patches: RulePatch[];
  stats: RuleStats[];
  version: number;
  error?: string;
}

export class RulesTreeProvider extends Disposable implements vscode.TreeDataProvider<RulesNode> {
  private readonly changed = this.register(new vscode.EventEmitter<RulesNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private loaded: Promise<Loaded> | undefined;
  private asked = false;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly compliance: ComplianceDiagnostics,
    private readonly log: Logger,
  ) {
    super();
    const watcher = this.register(vscode.workspace.createFileSystemWatcher('**/.rules/**'));
    const reload = () => this.refresh();
    this.register(watcher.onDidChange(reload));
    this.register(watcher.onDidCreate(reload));
    this.register(watcher.onDidDelete(reload));
    this.register(model.onDidChange(reload));
    this.register(compliance.onDidReport(() => this.changed.fire(undefined)));
  }

  refresh(): void {
    this.loaded = undefined;
    this.changed.fire(undefined);
  }

  private load(): Promise<Loaded> {
    const root = this.model.workspaceRoot;
    this.loaded ??= (async (): Promise<Loaded> => {
      if (!root) return { rules: [], patches: [], stats: [], version: 0 };
      const [patches, stats, hist] = await Promise.all([listPatches(root).catch(() => []), ruleStats(root).catch(() => []), history(root).catch(() => [])]);
      try {
        const rules = await loadRules(path.join(root, RULES_DIR));
        return { rules, patches, stats, version: hist.at(-1)?.version ?? 1 };
      } catch (e) {
        return { rules: [], patches, stats, version: hist.at(-1)?.version ?? 1, error: (e as Error).message };
      }
    })();
    return this.loaded;
  }

  async getChildren(node?: RulesNode): Promise<RulesNode[]> {
    if (!this.model.workspaceRoot) return [];
    const l = await this.load();
    if (!node) {
      this.checkOnce();
      return [...(l.error ? [{ kind: 'error', message: l.error } as const] : []), { kind: 'group', group: 'rules' }, { kind: 'group', group: 'patches' }];
    }
    if (node.kind !== 'group') return [];
    if (node.group === 'rules') return l.rules.map((rule) => ({ kind: 'rule', rule, stats: l.stats.find((s) => s.rule === rule.id) }));
    return l.patches.filter((p) => p.status === 'pending').map((patch) => ({ kind: 'patch', patch }));
  }

  /** The first time the view shows, check the newest candidate so every rule has a state to show. */
  private checkOnce(): void {
    if (this.asked || this.compliance.latest) return;
    this.asked = true;
    const newest = [...(this.model.snapshot?.candidates ?? [])].filter((c) => !c.missing).sort((a, b) => b.id - a.id)[0];
    if (newest) void this.compliance.check(newest.dir).catch((e: Error) => this.log.warn(`Rules view: ${e.message}`));
  }

  async getTreeItem(node: RulesNode): Promise<vscode.TreeItem> {
    const root = this.model.workspaceRoot ?? '';
    const l = await this.load();
    if (node.kind === 'error') {
      const item = new vscode.TreeItem('The rulebase has an error');
      item.description = node.message;
      item.tooltip = node.message;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
      return item;
    }
    if (node.kind === 'group') {
      const pending = l.patches.filter((p) => p.status === 'pending').length;
      const item = new vscode.TreeItem(node.group === 'rules' ? 'Rules' : 'Pending rule patches', vscode.TreeItemCollapsibleState.Expanded);
      item.id = `group:${node.group}`;
      const latest = this.compliance.latest;
      item.description =
        node.group === 'rules'
          ? `v${l.version} · ${l.rules.length} rules${latest ? ` · ${latest.candidate}: ${latest.report.errors ? `${latest.report.errors} error${latest.report.errors > 1 ? 's' : ''}` : 'compliant'}` : ''}`
          : pending
            ? String(pending)
            : 'none';
      item.contextValue = `group.${node.group}`;
      if (node.group === 'patches' && !pending) item.collapsibleState = vscode.TreeItemCollapsibleState.None;
      return item;
    }
    if (node.kind === 'patch') {
      const p = node.patch;
      const item = new vscode.TreeItem(`${p.rule_id}: ${p.kind.replace(/_/g, ' ')}`);
      item.id = `patch:${p.id}`;
      item.description = p.id;
      item.tooltip = new vscode.MarkdownString()
        .appendMarkdown(`**Patch ${p.id}** to \`${p.file}\`\n\n`)
        .appendText(p.rationale)
        .appendCodeblock(p.diff.slice(0, 2000), 'diff');
      item.iconPath = new vscode.ThemeIcon('git-pull-request-draft', new vscode.ThemeColor('charts.yellow'));
      item.command = { command: 'satlution.openRulePatch', title: 'Show the patch', arguments: [node] };
      item.contextValue = 'rulePatch';
      item.accessibilityInformation = { label: `Pending patch ${p.id} to rule ${p.rule_id}: ${p.rationale}` };
      return item;
    }
    const r = node.rule;
    const latest = this.compliance.latest;
    const mine = latest?.report.violations.filter((v) => v.rule === r.id) ?? [];
    const errors = mine.filter((v) => v.severity === 'error').length;
    const state = !latest || !r.checks.length ? undefined : errors ? 'error' : mine.length ? 'warning' : 'ok';
    const item = new vscode.TreeItem(`${r.id}: ${r.title}`);
    item.id = `rule:${r.id}`;
    item.resourceUri = vscode.Uri.file(path.join(root, RULES_DIR, r.file));
    item.command = { command: 'vscode.open', title: 'Open the rule', arguments: [item.resourceUri] };
    item.iconPath =
      state === 'error'
        ? new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'))
        : state === 'warning'
          ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
          : state === 'ok'
            ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
            : new vscode.ThemeIcon(r.phases.includes('knowledge') ? 'book' : 'law');
    const stateText =
      state === 'error'
        ? `${errors} error${errors > 1 ? 's' : ''} in ${latest!.candidate}`
        : state === 'warning'
          ? `${mine.length} warning${mine.length > 1 ? 's' : ''} in ${latest!.candidate}`
          : '';
    item.description = [stateText, `v${r.version}`, r.checks.length ? `${r.checks.length} check${r.checks.length > 1 ? 's' : ''}` : 'guidance']
      .filter(Boolean)
      .join(' · ');
    const s = node.stats;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**${r.id}** — ${escapeMd(r.title)} (v${r.version})\n\nPhases: ${r.phases.join(', ')} · scope: ${r.scope}\n\n`);
    if (state)
      tip.appendMarkdown(
        state === 'ok'
          ? `$(pass) No findings in ${latest!.candidate}\n\n`
          : `${mine
              .slice(0, 5)
              .map((v) => `- ${escapeMd(`${v.file ?? ''}${v.line ? `:${v.line}` : ''} ${v.message}`)}`)
              .join('\n')}\n\n`,
      );
    if (s) tip.appendMarkdown(`Fired ${s.fired} · stopped a candidate ${s.prevented} · fixed ${s.fixed} (across evaluations)`);
    item.tooltip = tip;
    item.accessibilityInformation = { label: `Rule ${r.id}, ${r.title}${stateText ? `, ${stateText}` : state === 'ok' ? ', no findings' : ''}` };
    item.contextValue = 'rule';
    return item;
  }
}

const escapeMd = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
