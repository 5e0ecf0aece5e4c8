// Runs after workspace.test.ts (files run in name order) on the workspace it built (SATLUTION_0 with
// HYPOTHESIS.md, CHANGELOG.md and RESULTS.md): where things open. Run logs from the dashboard reuse one
// preview editor beside it; candidate documents and agent transcripts open rendered.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { transcriptFile } from '../../src/core/llm/transcript';
import { MARKDOWN_PREVIEW_EDITOR } from '../../src/extension/markdownPreview';
import type { CyclesNode } from '../../src/extension/views/cyclesTree';
import { api, eventually, workspaceDir } from './helpers';

const allTabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);

/** The document a tab shows (text or custom editor). */
const tabUri = (t: vscode.Tab) => (t.input instanceof vscode.TabInputText || t.input instanceof vscode.TabInputCustom ? t.input.uri : undefined);

/** The active tab, when it is the built-in Markdown preview of `uri`. */
function renderedActive(uri: vscode.Uri): vscode.Tab | undefined {
  const t = vscode.window.tabGroups.activeTabGroup.activeTab;
  return t && t.input instanceof vscode.TabInputCustom && t.input.viewType === MARKDOWN_PREVIEW_EDITOR && t.input.uri.toString() === uri.toString()
    ? t
    : undefined;
}

async function champion(): Promise<Extract<CyclesNode, { kind: 'candidate' }>> {
  const a = await api();
  await a.refresh();
  const c = (a.cyclesTree.getChildren() as CyclesNode[]).find(
    (n): n is Extract<CyclesNode, { kind: 'candidate' }> => n.kind === 'candidate' && n.candidate.dir === 'SATLUTION_0',
  );
  assert.ok(c, 'SATLUTION_0 is not in the Cycles tree');
  return c;
}

describe('Layout: where things open', () => {
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens run logs from the dashboard in one reused preview editor beside it', async () => {
    await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('satlution.openDashboard');
    await eventually(
      () => allTabs().some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('satlution.dashboard')),
      'the dashboard',
    );
    const groups = vscode.window.tabGroups.all.length;
    const uris: vscode.Uri[] = [];
    for (const instance of ['smoke/first.cnf', 'smoke/second.cnf', 'perf/third.cnf']) {
      const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('satlution.openRunLog', { candidate: 'SATLUTION_0', instance });
      assert.ok(uri, `no log opened for ${instance}`);
      uris.push(uri);
    }
    assert.equal(vscode.window.tabGroups.all.length, groups + 1, 'each log opened a new editor group');
    const logs = allTabs().filter((t) => uris.some((u) => tabUri(t)?.toString() === u.toString()));
    assert.deepEqual(
      logs.map((t) => tabUri(t)?.toString()),
      [uris[2]!.toString()],
      'the earlier logs are still open beside the last one',
    );
    assert.ok(logs[0]!.isPreview, 'the log is not in a preview editor');
    const dashboard = vscode.window.tabGroups.all.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview));
    assert.notEqual(logs[0]!.group.viewColumn, dashboard?.viewColumn, 'the log replaced the dashboard');
    assert.ok(vscode.window.tabGroups.activeTabGroup === dashboard, 'the dashboard lost the focus');
  });

  it('opens HYPOTHESIS.md and RESULTS.md from the Cycles tree rendered', async () => {
    const a = await api();
    const c0 = await champion();
    const docs = a.cyclesTree.getChildren(c0).filter((n): n is Extract<CyclesNode, { kind: 'doc' }> => n.kind === 'doc');
    const hypothesis = docs.find((d) => d.doc === 'HYPOTHESIS.md');
    assert.ok(hypothesis);
    // A document node (the command a doc node runs), then the candidate's "Open RESULTS.md".
    await vscode.commands.executeCommand('satlution.openCandidateDoc', hypothesis);
    await eventually(() => renderedActive(vscode.Uri.file(path.join(workspaceDir(), 'SATLUTION_0', 'HYPOTHESIS.md'))), 'HYPOTHESIS.md rendered');
    await vscode.commands.executeCommand('satlution.openResults', c0);
    await eventually(() => renderedActive(vscode.Uri.file(path.join(workspaceDir(), 'SATLUTION_0', 'RESULTS.md'))), 'RESULTS.md rendered');
  });

  it('opens an agent transcript rendered', async () => {
    const file = transcriptFile(workspaceDir(), 999, 'planner');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const lines = [
      { type: 'system', content: 'You plan changes to a SAT solver.' },
      { type: 'message', message: { role: 'user', content: 'Make it faster.' } },
      { type: 'message', message: { role: 'assistant', content: 'I will look at the restarts.' }, usage: { input: 10, output: 5 } },
    ];
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    try {
      const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('satlution.openTranscript', { cycle: 999, role: 'planner' });
      assert.ok(uri, 'no transcript opened');
      await eventually(() => renderedActive(uri), 'the transcript rendered');
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      assert.match(doc?.getText() ?? '', /I will look at the restarts/);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
