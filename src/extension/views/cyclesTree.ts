// The Cycles view: every candidate with its status, lineage and the champion mark; each expands to
// its HYPOTHESIS / CHANGELOG / RESULTS documents.
import * as vscode from 'vscode';
import * as path from 'node:path';
import type { CandidateStatus } from '../../core/store/candidates';
import { candidateDirName, CONFIG_FILE } from '../../core/layout';
import type { CandidateView } from '../../core/workspace/snapshot';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';
import { readWhy } from '../../core/workspace/resultsFile';

export type CyclesNode =
  | { kind: 'candidate'; candidate: CandidateView }
  | { kind: 'doc'; candidate: CandidateView; doc: string }
  | { kind: 'configProblems'; count: number }
  | { kind: 'configMissing'; restorable: boolean };

const STATUS_ICON: Record<CandidateStatus, [string, string?]> = {
  seed: ['package'],
  planning: ['lightbulb', 'charts.yellow'],
  coding: ['sync~spin', 'charts.blue'],
  evaluating: ['loading~spin', 'charts.blue'],
  failed: ['error', 'testing.iconFailed'],
  verified: ['verified', 'testing.iconPassed'],
  evaluated: ['graph', 'testing.iconPassed'],
  discarded: ['trash', 'disabledForeground'],
  unknown: ['question', 'problemsWarningIcon.foreground'],
};

const STATUS_SHORT: Record<CandidateStatus, string> = {
  seed: 'seed',
  planning: 'planning',
  coding: 'coding',
  evaluating: 'evaluating',
  failed: 'failed',
  verified: 'verified',
  evaluated: 'evaluated',
  discarded: 'discarded',
  unknown: 'no record',
};

const STATUS_TEXT: Record<CandidateStatus, string> = {
  seed: 'seed baseline',
  planning: 'planning',
  coding: 'coding',
  evaluating: 'evaluating',
  failed: 'failed a gate',
  verified: 'verified',
  evaluated: 'evaluated',
  discarded: 'discarded',
  unknown: 'no record (found on disk)',
};

export class CyclesTreeProvider extends Disposable implements vscode.TreeDataProvider<CyclesNode> {
  private readonly changed = this.register(new vscode.EventEmitter<CyclesNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  /** Items whose tooltip already has its Why (resolveTreeItem may be asked again for the same item). */
  private readonly explained = new WeakSet<vscode.TreeItem>();

  constructor(private readonly model: WorkspaceModel) {
    super();
    this.register(model.onDidChange(() => this.changed.fire(undefined)));
  }

  getChildren(node?: CyclesNode): CyclesNode[] {
    const snap = this.model.snapshot;
    if (!snap) return [];
    if (!node) {
      const problems: CyclesNode[] = snap.configMissing
        ? [{ kind: 'configMissing', restorable: snap.configMissing.restorable }]
        : snap.config.ok
          ? []
          : [{ kind: 'configProblems', count: snap.config.issues.length }];
      // Newest first: a person watching cycles cares about the latest one.
      const cands = [...snap.candidates].sort((a, b) => b.id - a.id);
      return [...problems, ...cands.map((candidate): CyclesNode => ({ kind: 'candidate', candidate }))];
    }
    if (node.kind === 'candidate') return node.candidate.docs.map((doc): CyclesNode => ({ kind: 'doc', candidate: node.candidate, doc }));
    return [];
  }

  getTreeItem(node: CyclesNode): vscode.TreeItem {
    const root = this.model.workspaceRoot!;
    if (node.kind === 'configProblems') {
      const item = new vscode.TreeItem(`${CONFIG_FILE}: ${node.count} problem${node.count > 1 ? 's' : ''}`);
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
      item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(path.join(root, CONFIG_FILE))] };
      item.tooltip = 'The configuration is invalid; its problems are listed in the Problems panel.';
      return item;
    }
    if (node.kind === 'configMissing') {
      // The history is intact: the way back is restoring the config, not initializing again.
      const item = new vscode.TreeItem(`${CONFIG_FILE} is missing`);
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
      item.description = node.restorable ? 'click to restore the last good copy' : 'no copy kept: write it again';
      if (node.restorable) item.command = { command: 'satlution.restoreConfig', title: 'Restore satlution.yaml' };
      item.tooltip = `The candidates and their history are still in .satlution/. ${node.restorable ? 'Restore satlution.yaml puts back the last copy that loaded.' : 'There is no saved copy; write satlution.yaml by hand (SATLUTION_0 and the store stay).'}`;
      item.contextValue = 'configMissing';
      return item;
    }
    if (node.kind === 'doc') {
      const uri = vscode.Uri.file(path.join(root, node.candidate.dir, node.doc));
      const item = new vscode.TreeItem(node.doc);
      item.resourceUri = uri;
      item.id = `${node.candidate.dir}/${node.doc}`;
      // Rendered, for reading (the preview's Open Source, Edit Plan and Compare with Parent give the text).
      item.command = { command: 'satlution.openCandidateDoc', title: `Open ${node.doc}`, arguments: [node] };
      item.contextValue = 'doc';
      return item;
    }
    const c = node.candidate;
    const warnings = this.model.warnings.get(c.dir) ?? [];
    const stale = this.model.stalePerf.get(c.dir);
    const item = new vscode.TreeItem(
      c.dir,
      c.docs.length
        ? c.champion
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None,
    );
    item.id = c.dir;
    // A gate that passed with nothing checked is shown in red, over the champion's star: its verdict proves less than it says.
    const [icon, color] = c.missing
      ? ['warning', 'problemsWarningIcon.foreground']
      : warnings.length
        ? ['warning', 'errorForeground']
        : c.champion
          ? ['star-full', 'charts.yellow']
          : STATUS_ICON[c.status];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    // Short enough for a narrow sidebar; the tooltip has the whole story.
    const from = c.parent !== null ? `from ${candidateDirName(c.parent)}` : c.seed ? `seed ${c.seed}` : '';
    const state = c.missing ? 'directory missing' : c.status === 'seed' ? '' : c.champion ? '' : STATUS_SHORT[c.status];
    item.description = [
      c.champion ? 'champion' : '',
      state,
      warnings.length ? 'a gate checked nothing' : '',
      stale ? 'measured on an older perf set' : '',
      from,
    ]
      .filter(Boolean)
      .join(' · ');
    const tip = new vscode.MarkdownString(undefined, true);
    tip.appendMarkdown(`**${c.dir}**${c.champion ? ' $(star-full) champion' : ''}\n\n`);
    tip.appendMarkdown(`Status: ${STATUS_TEXT[c.status]}${c.missing ? ' — the directory is missing' : ''}\n\n`);
    tip.appendMarkdown(`Lineage: ${c.lineage.map(candidateDirName).join(' ← ')}${c.seed ? ` ← seed ${c.seed}` : ''}\n\n`);
    tip.appendMarkdown(`Created ${c.created_at.replace('T', ' ').slice(0, 19)} · updated ${c.updated_at.replace('T', ' ').slice(0, 19)}`);
    if (c.detail) tip.appendMarkdown(`\n\n${escapeMd(c.detail)}`);
    for (const w of warnings) tip.appendMarkdown(`\n\n$(warning) **Warning:** ${escapeMd(w)}`);
    if (stale)
      tip.appendMarkdown(
        `\n\n$(history) **Stale figures:** ${escapeMd(stale)}. Its PAR-2 is not comparable with candidates measured on the current set; evaluate it again.`,
      );
    item.tooltip = tip;
    item.accessibilityInformation = {
      label: `${c.dir}, ${[c.champion ? 'champion' : '', c.missing ? 'directory missing' : STATUS_TEXT[c.status], warnings.length ? 'warning: a gate checked nothing' : '', stale ? 'measured on an older perf set' : '', from].filter(Boolean).join(', ')}`,
    };
    // A missing directory has its own value: the menus offer nothing that needs the directory.
    item.contextValue = c.missing ? 'candidate.missing' : c.champion ? 'candidate.champion' : c.seed ? 'candidate.seed' : 'candidate';
    return item;
  }

  /** The verdict's sentence (RESULTS.md "Why:") joins a candidate's tooltip when it is first shown: read on hover, not for every row. */
  async resolveTreeItem(item: vscode.TreeItem, node: CyclesNode): Promise<vscode.TreeItem> {
    const root = this.model.workspaceRoot;
    if (node.kind !== 'candidate' || !root || node.candidate.missing || !(item.tooltip instanceof vscode.MarkdownString) || this.explained.has(item))
      return item;
    this.explained.add(item);
    const why = await readWhy(path.join(root, node.candidate.dir));
    if (why) item.tooltip.appendMarkdown(`\n\n**Why:** ${escapeMd(why)}`);
    return item;
  }

  getParent(node: CyclesNode): CyclesNode | undefined {
    return node.kind === 'doc' ? { kind: 'candidate', candidate: node.candidate } : undefined;
  }
}

const escapeMd = (s: string) => s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
