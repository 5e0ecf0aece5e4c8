// Runs after the other workspace tests (files run in name order), on the same workspace: what a person
// sees when a cycle's model call fails. Configure Models writes the models; a rate-limited call shows
// its wait in Steering (one place, with Retry Now) and a rejected key stops the cycle with the fix
// named next to it. satlution.yaml and the cycle state are put back afterwards.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseConfig } from '../../src/core/config/load';
import { readCycle } from '../../src/core/store/cycleState';
import { findDratTrim } from '../../src/core/run/checkers';
import { LlmTestServer } from '../fixtures/llmServer';
import { api, eventually, workspaceDir } from './helpers';

describe('Steering: a failing model call, explained where the person looks', function () {
  this.timeout(120000);
  const server = new LlmTestServer();
  let configText = '';
  const configFile = () => path.join(workspaceDir(), 'satlution.yaml');

  before(async () => {
    configText = fs.readFileSync(configFile(), 'utf8');
    await server.start();
  });
  after(async () => {
    await server.close();
    fs.writeFileSync(configFile(), configText);
    const s = await readCycle(workspaceDir());
    if (s && s.step !== 'done') await vscode.commands.executeCommand('satlution.abandonCycle', { yes: true });
    await (await api()).refresh();
  });

  it("a candidate's tooltip in the Cycles view ends with the Why of its RESULTS.md, added once", async () => {
    const a = await api();
    const file = path.join(workspaceDir(), 'SATLUTION_0', 'RESULTS.md');
    const before = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, `${before}\n**Why:** 3.0% faster (PAR-2 1.00 -> 0.97 s), but not significant: p is not under 0.05.\n`);
    try {
      const node = a.cyclesTree.getChildren().find((n) => n.kind === 'candidate' && n.candidate.dir === 'SATLUTION_0');
      assert.ok(node);
      const item = a.cyclesTree.getTreeItem(node);
      await a.cyclesTree.resolveTreeItem(item, node);
      await a.cyclesTree.resolveTreeItem(item, node);
      const tip = (item.tooltip as vscode.MarkdownString).value;
      assert.match(tip, /\*\*Why:\*\* 3\\\.0% faster \\\(PAR\\-2 1\\\.00 \\-\\> 0\\\.97 s\\\), but not significant: p is not under 0\\\.05\\\.$/);
      assert.equal(tip.split('**Why:**').length, 2, 'the Why is added once');
    } finally {
      fs.writeFileSync(file, before);
    }
  });

  it('Set Up drat-trim refuses a binary that is no checker, writes one that is, and types the build command for the person to run', async () => {
    const found = findDratTrim();
    assert.ok(found, 'the tests need a drat-trim');
    const yaml = () => fs.readFileSync(configFile(), 'utf8');
    assert.equal(await vscode.commands.executeCommand('satlution.setupDratTrim', { action: 'locate', path: '/bin/true' }), undefined);
    assert.doesNotMatch(yaml(), /drat_trim: \/bin\/true/, 'a program that accepts every proof is not written');
    assert.deepEqual(await vscode.commands.executeCommand('satlution.setupDratTrim', { action: 'locate', path: found }), { configured: found });
    const r = parseConfig(yaml());
    assert.ok(r.ok);
    assert.equal(r.config.evaluation.drat_trim, found);
    const built = (await vscode.commands.executeCommand('satlution.setupDratTrim', { action: 'build' })) as { terminal: string };
    assert.match(built.terminal, /^rm -rf '[^']+drat-trim-git' && git clone --depth 1 https:\/\/github\.com\/marijnheule\/drat-trim /);
    const term = vscode.window.terminals.find((t) => t.name === 'SATLUTION: build drat-trim');
    assert.ok(term, 'the build command is typed into a terminal of its own');
    term.dispose();
    // The sandbox's package, the same way: typed for the package manager this machine has.
    const typed = (await vscode.commands.executeCommand('satlution.installBubblewrap')) as string | undefined;
    if (typed !== undefined) {
      assert.match(typed, /^sudo (apt-get install -y|dnf install -y|pacman -S) bubblewrap$/);
      const t = vscode.window.terminals.find((x) => x.name === 'SATLUTION: install bubblewrap');
      assert.ok(t);
      t.dispose();
    }
    fs.writeFileSync(configFile(), configText);
  });

  it('Configure Models writes the planner and coder and keeps the rest of satlution.yaml', async () => {
    assert.equal(
      await vscode.commands.executeCommand('satlution.configureModels', { provider: 'anthropic', model: 'claude-test', base_url: server.url }),
      true,
    );
    const text = fs.readFileSync(configFile(), 'utf8');
    const r = parseConfig(text);
    assert.ok(r.ok);
    assert.deepEqual(
      [r.config.models.planner?.model, r.config.models.coder?.provider, r.config.models.planner?.base_url],
      ['claude-test', 'anthropic', server.url],
    );
    // Nothing but the models changed.
    const gone = configText.split('\n').filter((l) => !text.split('\n').includes(l));
    assert.ok(
      gone.every((l) => /^models:/.test(l)),
      `lines lost: ${gone.join(' | ')}`,
    );
  });

  it('a retried call shows its wait once, Retry Now cuts it short, and a rejected key stops the cycle with Set API Key offered', async () => {
    const a = await api();
    await a.refresh();
    server.queue(
      { kind: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '60' } },
      { kind: 'error', status: 401, message: 'invalid x-api-key' },
    );
    const t0 = Date.now();
    const run = vscode.commands.executeCommand('satlution.startCycle', { agent: 'llm', yes: true });
    const retry = await eventually(() => a.steeringState().retry, 'the retry wait shown in Steering', 60000);
    assert.match(retry.message, /rate limit \(HTTP 429\)/);
    assert.ok(retry.seconds >= 30, `the server asked for 60 s, Steering says ${retry.seconds}`);
    assert.equal(a.steeringState().phase, 'running');
    assert.ok(a.retryNow(), 'Retry Now found the waiting call');
    await run;
    assert.ok(Date.now() - t0 < 50000, 'the second call did not wait out the 60 s');
    assert.equal(server.requests.length, 2);
    const s = a.steeringState();
    assert.equal(s.retry, null);
    assert.ok(s.problem, 'Steering shows why the cycle stopped');
    assert.match(s.problem.text, /anthropic rejected the API key \(HTTP 401\)/);
    assert.deepEqual(s.problem.actions, ['setApiKey', 'configureModels', 'resume']);
    assert.equal(s.phase, 'paused', 'the cycle can be resumed once the key is fixed');
    // The next start clears it: what Steering shows is about the run at hand.
    server.queue({ kind: 'error', status: 401, message: 'still invalid' });
    await vscode.commands.executeCommand('satlution.resumeCycle', { yes: true });
    assert.match(a.steeringState().problem?.text ?? '', /rejected the API key/);
    assert.equal(server.requests.length, 3);
  });
});
