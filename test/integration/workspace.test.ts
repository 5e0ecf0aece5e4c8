import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { planted3Sat } from '../../src/core/instances/generators';
import { proposePatches } from '../../src/core/rules/evolution';
import { SignatureLog } from '../../src/core/rules/postmortem';
import { CandidateStore } from '../../src/core/store/candidates';
import type { CyclesNode } from '../../src/extension/views/cyclesTree';
import { installProbe } from '../fixtures/concurrencyProbe';
import { servedInstance, startGbdServer } from '../fixtures/gbdServer';
import { api, eventually, FIXTURES, workspaceDir } from './helpers';

const candidates = async () => {
  const a = await api();
  return (a.cyclesTree.getChildren() as CyclesNode[]).filter((n): n is Extract<CyclesNode, { kind: 'candidate' }> => n.kind === 'candidate');
};

describe('SATLUTION in a real VS Code', () => {
  it('contributes its commands under the SATLUTION category', async () => {
    await api();
    const cmds = await vscode.commands.getCommands(true);
    for (const c of ['satlution.initializeWorkspace', 'satlution.refreshCandidates', 'satlution.openHypothesis'])
      assert.ok(cmds.includes(c), `command ${c} missing`);
    const pkg = vscode.extensions.getExtension('satlution.satlution')!.packageJSON as { contributes: { commands: { category: string }[] } };
    assert.ok(pkg.contributes.commands.every((c) => c.category === 'SATLUTION'));
  });

  it('shows the welcome view while the folder is not a workspace', async () => {
    const a = await api();
    await a.refresh();
    assert.equal(a.workspaceRoot, undefined);
    assert.deepEqual(a.cyclesTree.getChildren(), []);
  });

  it('Initialize Workspace imports the seed, lays out SATLUTION_0 and the tree shows it as champion', async () => {
    const ws = workspaceDir();
    const seed = path.join(FIXTURES, 'seeds', 'tinysat');
    const r = (await vscode.commands.executeCommand('satlution.initializeWorkspace', {
      seeds: [{ name: 'tinysat', source: seed }],
      generate: true,
    })) as { configFile: string; generated: string[] } | undefined;
    assert.ok(r, 'the command returned no result');
    assert.equal(r.configFile, path.join(ws, 'satlution.yaml'));
    assert.deepEqual(r.generated.sort(), ['seeds/tinysat/bin/starexec_run_default', 'seeds/tinysat/starexec_build']);
    for (const f of [
      'SATLUTION_0/starexec_build',
      'SATLUTION_0/bin/starexec_run_default',
      'SATLUTION_0/HYPOTHESIS.md',
      '.rules/02_critical_correctness.md',
      'benchmarks/smoke',
      '.satlution/candidates.json',
    ])
      assert.ok(fs.existsSync(path.join(ws, f)), `${f} was not created`);
    const [c0] = await eventually(async () => {
      const c = await candidates();
      return c.length === 1 ? c : undefined;
    }, 'SATLUTION_0 in the Cycles tree');
    const item = (await api()).cyclesTree.getTreeItem(c0!);
    assert.equal(item.label, 'SATLUTION_0');
    assert.match(String(item.description), /champion/);
    assert.equal(item.contextValue, 'candidate.champion');
  });

  it('lists the candidate documents and opens HYPOTHESIS.md', async () => {
    const a = await api();
    const [c0] = await candidates();
    const docs = a.cyclesTree.getChildren(c0).map((n) => (n.kind === 'doc' ? n.doc : ''));
    assert.deepEqual(docs, ['HYPOTHESIS.md', 'CHANGELOG.md', 'RESULTS.md']);
    await vscode.commands.executeCommand('satlution.openHypothesis', c0);
    // Opened rendered: the built-in Markdown preview as its editor.
    const file = path.join(workspaceDir(), 'SATLUTION_0', 'HYPOTHESIS.md');
    await eventually(() => {
      const t = vscode.window.tabGroups.activeTabGroup.activeTab;
      return t?.input instanceof vscode.TabInputCustom && t.input.viewType === 'vscode.markdown.preview.editor' && t.input.uri.fsPath === file;
    }, 'HYPOTHESIS.md rendered');
    assert.match(fs.readFileSync(file, 'utf8'), /baseline/);
  });

  it('refreshes the tree when a candidate directory appears on disk', async () => {
    const dir = path.join(workspaceDir(), 'SATLUTION_1');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'HYPOTHESIS.md'), '# made outside VS Code\n');
    const found = await eventually(async () => (await candidates()).find((c) => c.candidate.dir === 'SATLUTION_1'), 'SATLUTION_1 in the tree');
    assert.equal(found.candidate.status, 'unknown'); // no record: adopted from disk
    fs.rmSync(dir, { recursive: true });
    await eventually(async () => (await candidates()).find((c) => c.candidate.dir === 'SATLUTION_1')?.candidate.missing, 'SATLUTION_1 marked missing');
  });

  it('shows satlution.yaml problems as diagnostics on the right lines, and clears them when fixed', async () => {
    const a = await api();
    const uri = vscode.Uri.file(path.join(workspaceDir(), 'satlution.yaml'));
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc);
    const text = doc.getText();
    const approvalLine = text.split('\n').findIndex((l) => l.startsWith('approval:'));
    assert.ok(approvalLine > 0);
    await editor.edit((e) => e.replace(doc.lineAt(approvalLine).range, 'approval: sometimes'));
    const diags = await eventually(() => {
      const d = a.configDiagnostics(uri);
      return d.length ? d : undefined;
    }, 'a diagnostic for approval');
    assert.equal(diags.length, 1);
    assert.equal(diags[0]!.range.start.line, approvalLine);
    assert.match(diags[0]!.message, /^approval: must be one of "manual", "semi", "auto"; got "sometimes"/);
    assert.match(diags[0]!.message, /Example: approval: semi/);
    await vscode.commands.executeCommand('undo');
    await eventually(() => a.configDiagnostics(uri).length === 0, 'the diagnostic to clear');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });
});

describe('Initialize Workspace: failures and git seeds', () => {
  it('reports a seed folder that does not exist and creates nothing', async () => {
    const before = fs.readdirSync(workspaceDir()).sort();
    const r = await vscode.commands.executeCommand('satlution.initializeWorkspace', {
      dir: path.join(workspaceDir(), 'other'),
      seeds: [{ name: 'ghost', source: path.join(workspaceDir(), 'no-such-solver') }],
      generate: true,
    });
    assert.equal(r, undefined);
    assert.deepEqual(fs.readdirSync(workspaceDir()).sort(), before);
    assert.ok(!fs.existsSync(path.join(workspaceDir(), 'other', 'satlution.yaml')));
  });

  it('rejects malformed arguments instead of guessing', async () => {
    const r = await vscode.commands.executeCommand('satlution.initializeWorkspace', { seeds: 'kissat' });
    assert.equal(r, undefined);
  });

  it('imports a seed from a git URL into another folder', async () => {
    const { execFileSync } = await import('node:child_process');
    const repo = fs.mkdtempSync(path.join(path.dirname(workspaceDir()), 'seed-repo-'));
    fs.cpSync(path.join(FIXTURES, 'seeds', 'tinysat'), repo, { recursive: true });
    const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...a], { cwd: repo });
    g('init', '-q');
    g('add', '.');
    g('commit', '-qm', 'seed');
    const dir = fs.mkdtempSync(path.join(path.dirname(workspaceDir()), 'ws-git-'));
    const r = (await vscode.commands.executeCommand('satlution.initializeWorkspace', {
      dir,
      seeds: [{ name: 'tiny', source: `file://${repo}` }],
      generate: false,
    })) as { generated: string[] } | undefined;
    assert.ok(r);
    assert.deepEqual(r.generated, []);
    assert.ok(fs.existsSync(path.join(dir, 'SATLUTION_0', 'tinysat.c')));
    assert.ok(!fs.existsSync(path.join(dir, 'SATLUTION_0', 'starexec_build')), 'declined scripts are not written');
    fs.rmSync(repo, { recursive: true, force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('Evaluate Candidate', () => {
  const smoke = () => path.join(workspaceDir(), 'benchmarks', 'smoke');

  it('runs the gates on SATLUTION_0 and records the evaluation', async () => {
    fs.copyFileSync(path.join(FIXTURES, 'cnf', 'sat-small.cnf'), path.join(smoke(), 'sat-small.cnf'));
    const r = (await vscode.commands.executeCommand('satlution.evaluateCandidate', { candidate: 'SATLUTION_0', stage: 'smoke' })) as
      { verdict: string; summary: string; file: string } | undefined;
    assert.ok(r, 'no outcome');
    assert.equal(r.verdict, 'pass', r.summary);
    assert.match(r.summary, /SATLUTION_0 passed every gate: rules 100%, built, smoke 1\/1 solved \(PAR-2 \d+\.\d\d s\)$/);
    const saved = JSON.parse(fs.readFileSync(r.file, 'utf8')) as {
      verdict: string;
      instances: { instance: string; status: string; check: { kind: string; ok: boolean } }[];
    };
    assert.deepEqual(
      saved.instances.map((i) => [i.instance, i.status, i.check.kind, i.check.ok]),
      [['sat-small.cnf', 'solved', 'model', true]],
    );
  });

  it('fails a solver that gives UNSAT without a proof', async () => {
    fs.copyFileSync(path.join(FIXTURES, 'cnf', 'unsat-small.cnf'), path.join(smoke(), 'unsat-small.cnf'));
    const r = (await vscode.commands.executeCommand('satlution.evaluateCandidate', { candidate: 'SATLUTION_0', stage: 'smoke' })) as
      { verdict: string; summary: string } | undefined;
    assert.ok(r);
    assert.equal(r.verdict, 'fail');
    assert.match(r.summary, /failed the smoke gate: 1 of 2 instances failed: UNSAT claimed on unsat-small\.cnf without a proof/);
  });

  it('puts compiler errors into the Problems panel on the right line', async () => {
    const src = path.join(workspaceDir(), 'SATLUTION_0', 'tinysat.c');
    const good = fs.readFileSync(src, 'utf8');
    fs.writeFileSync(src, good.replace('static int nvars', 'static int nvars oops'));
    try {
      const r = (await vscode.commands.executeCommand('satlution.evaluateCandidate', { candidate: 'SATLUTION_0', stage: 'smoke' })) as
        { verdict: string; summary: string } | undefined;
      assert.ok(r);
      assert.match(r.summary, /failed the build gate: build failed/);
      const diags = (await api()).buildDiagnostics(vscode.Uri.file(src));
      assert.ok(diags.length > 0, 'no build diagnostics');
      assert.equal(
        diags[0]!.range.start.line,
        good.split('\n').findIndex((l) => l.includes('static int nvars')),
      );
      assert.equal(diags[0]!.source, 'starexec_build');
    } finally {
      fs.writeFileSync(src, good);
    }
  });

  it("runs as many solver runs at once as the local runner's jobs", async () => {
    const ws = workspaceDir();
    const cfg = path.join(ws, 'satlution.yaml');
    const config = fs.readFileSync(cfg, 'utf8');
    const runner = /- \{ name: local, kind: local, jobs: \d+ \}/;
    assert.match(config, runner);
    const bin = path.join(ws, 'SATLUTION_0', 'bin');
    const script = fs.readFileSync(path.join(bin, 'starexec_run_default'));
    fs.renameSync(smoke(), `${smoke()}.saved`);
    fs.mkdirSync(smoke());
    for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(smoke(), `p${i}.cnf`), planted3Sat(20, 4.0, 900 + i));
    const counts = fs.mkdtempSync(path.join(path.dirname(ws), 'probe-'));
    const probe = installProbe(path.join(ws, 'SATLUTION_0'), counts);
    try {
      for (const jobs of [1, 2]) {
        // The probe counts runs in a directory outside the candidate, which only an unconfined run can write.
        const unconfined = config.replace(runner, `- { name: local, kind: local, jobs: ${jobs}, sandbox: off }`);
        fs.writeFileSync(cfg, unconfined);
        probe.reset();
        const r = (await vscode.commands.executeCommand('satlution.evaluateCandidate', { candidate: 'SATLUTION_0', stage: 'smoke' })) as
          { verdict: string; summary: string } | undefined;
        assert.ok(r, 'no outcome');
        assert.equal(r.verdict, 'pass', r.summary);
        assert.equal(probe.runs(), 4);
        assert.equal(probe.max(), jobs, `jobs: ${jobs}`);
        fs.appendFileSync(path.join(bin, 'starexec_run_default'), '# a new hash: the runs are not reused\n');
      }
    } finally {
      fs.writeFileSync(cfg, config);
      fs.rmSync(path.join(bin, 'probed_run'), { force: true });
      fs.writeFileSync(path.join(bin, 'starexec_run_default'), script);
      fs.rmSync(smoke(), { recursive: true, force: true });
      fs.renameSync(`${smoke()}.saved`, smoke());
      fs.rmSync(counts, { recursive: true, force: true });
    }
  });
});

describe('Benchmarks from a GBD server', () => {
  it("Fetch Benchmarks makes the set (in the Overview's data) and Curate cuts it into a training and a held-out set", async () => {
    const ws = workspaceDir();
    const inst = Array.from({ length: 8 }, (_, i) =>
      servedInstance(`p-${i}.cnf.xz`, planted3Sat(40 + 10 * (i % 4), 4.2, 800 + i), { track: 'it', result: 'sat', family: 'planted' }),
    );
    const server = await startGbdServer(inst);
    const cfg = path.join(ws, 'satlution.yaml');
    const config = fs.readFileSync(cfg, 'utf8');
    process.env.SATLUTION_GBD_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), 'gbd-it-'));
    try {
      const r = (await vscode.commands.executeCommand('satlution.fetchBenchmarks', { query: 'track=it', set: 'gbdit', server: server.url })) as
        { set: string; instances: number; downloaded: number } | undefined;
      assert.deepEqual(r && [r.set, r.instances, r.downloaded], ['gbdit', 8, 8]);
      const listed = await eventually(
        () => api().then((a) => a.snapshot?.benchmarks.find((b) => b.name === 'gbdit' && b.instances === 8)),
        'the set in the snapshot the views show',
      );
      assert.ok(listed.hasMeta);
      assert.equal(await vscode.commands.executeCommand('satlution.fetchBenchmarks', { query: 'track=it' }), undefined, 'malformed arguments: refused');
      const d = (await vscode.commands.executeCommand('satlution.curateBenchmarks', {
        from: 'gbdit',
        budgetMinutes: 0.01,
        timeoutS: 10,
        heldoutShare: 0.25,
        minS: 0,
      })) as { train: { set: string; instances: number }; heldout: { set: string; instances: number } } | undefined;
      assert.ok(d, 'no curation');
      assert.equal(d.train.set, 'gbdit-train');
      assert.ok(d.train.instances >= 1 && d.heldout.instances >= 1, JSON.stringify(d));
      assert.match(fs.readFileSync(cfg, 'utf8'), /holdout: gbdit-heldout/);
      assert.ok(fs.existsSync(path.join(ws, 'benchmarks', 'gbdit', 'CURATION.md')));
    } finally {
      delete process.env.SATLUTION_GBD_CACHE;
      await server.stop();
      fs.writeFileSync(cfg, config);
      for (const d of ['gbdit', 'gbdit-train', 'gbdit-heldout']) fs.rmSync(path.join(ws, 'benchmarks', d), { recursive: true, force: true });
    }
  });
});

describe('Rules in the editor', () => {
  it('shows a new rule violation in the Problems panel when the file is saved', async () => {
    const ws = workspaceDir();
    await new CandidateStore(ws).create({ id: 5, parent: 0, status: 'coding' }); // the record first, then the directory
    const cand = path.join(ws, 'SATLUTION_5');
    fs.cpSync(path.join(ws, 'SATLUTION_0'), cand, { recursive: true });
    const src = vscode.Uri.file(path.join(cand, 'tinysat.c'));
    const doc = await vscode.workspace.openTextDocument(src);
    const editor = await vscode.window.showTextDocument(doc);
    const line = doc.lineCount;
    await editor.edit((e) => e.insert(new vscode.Position(line, 0), '\nstatic int helper (void) { return fork (); } /* fork() in a comment is fine */\n'));
    await doc.save();
    const a = await api();
    const diags = await eventually(() => {
      const d = a.ruleDiagnostics(src);
      return d.length ? d : undefined;
    }, 'a rule diagnostic after saving');
    assert.equal(diags.length, 1);
    assert.equal(diags[0]!.code, 'R04-forbidden-patterns/threads-and-processes');
    assert.equal(diags[0]!.range.start.line, line);
    assert.equal(diags[0]!.severity, vscode.DiagnosticSeverity.Error);
    // Fixing it and saving clears it.
    await editor.edit((e) => e.delete(new vscode.Range(line, 0, doc.lineCount, 0)));
    await doc.save();
    await eventually(() => a.ruleDiagnostics(src).length === 0, 'the diagnostic to clear');
  });
});

describe('Rule patches in the editor', () => {
  it('shows a pending patch as a diff and applies it', async () => {
    const ws = workspaceDir();
    const at = new Date().toISOString();
    const sig = (candidate: string) => ({
      at,
      candidate,
      kind: 'crash' as const,
      key: 'crash:SIGSEGV',
      example: `segfault (SIGSEGV) on sat-small.cnf after 0.01 s`,
    });
    await new SignatureLog(ws).record([sig('SATLUTION_1'), sig('SATLUTION_5')]);
    const [patch] = await proposePatches(ws, await new SignatureLog(ws).all());
    assert.ok(patch, 'no patch proposed');
    const r = await vscode.commands.executeCommand('satlution.reviewRulePatches', { id: patch.id, decision: 'apply' });
    assert.equal(r, 'applied');
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, 'the patch was shown as a diff');
    assert.equal((tab.input as vscode.TabInputTextDiff).modified.scheme, 'satlution-patch');
    const proposed = await vscode.workspace.openTextDocument((tab.input as vscode.TabInputTextDiff).modified);
    assert.match(proposed.getText(), /## FORBIDDEN: changes that crash the solver \(SIGSEGV\)/);
    assert.equal(fs.readFileSync(path.join(ws, '.rules', patch.file), 'utf8'), patch.after);
    assert.ok(fs.existsSync(path.join(ws, '.rules', '.history', 'v2', patch.file)));
  });
});

describe('Evolution cycles from the editor', () => {
  it('Set API Key stores a key; Start Evolution Cycle runs the tuner through the gates and records the outcome', async () => {
    assert.equal(await vscode.commands.executeCommand('satlution.setApiKey', { provider: 'anthropic', key: 'sk-ant-test-key' }), true);
    const ws = workspaceDir();
    fs.mkdirSync(path.join(ws, 'SATLUTION_0', 'src'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'SATLUTION_0', 'src', 'options.h'), '#define OPTIONS \\\n  OPTION (walkeffort, 50, 0, 1000000, "not read by tinysat")\n');
    const before = (await new CandidateStore(ws).load()).index.candidates.length;
    const outcome = (await vscode.commands.executeCommand('satlution.startCycle', { agent: 'tuner', yes: true })) as string | undefined;
    assert.ok(outcome, 'the cycle reported no outcome');
    // The smoke set holds an UNSAT formula and tinysat writes no proofs: the gate stops the candidate.
    assert.match(outcome, /failed the smoke gate/);
    const { index } = await new CandidateStore(ws).load();
    const created = index.candidates[index.candidates.length - 1]!;
    assert.equal(index.candidates.length, before + 1);
    assert.equal(created.status, 'failed');
    assert.match(fs.readFileSync(path.join(ws, created.dir, 'HYPOTHESIS.md'), 'utf8'), /tune walkeffort 50 -> \d+/);
    assert.match(fs.readFileSync(path.join(ws, created.dir, 'RESULTS.md'), 'utf8'), /Verdict: \*\*fail\*\*/);
    assert.equal(await vscode.commands.executeCommand('satlution.resumeCycle'), undefined, 'nothing left to resume');
  });
});
