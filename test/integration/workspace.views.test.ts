// Runs after workspace.test.ts (files run in name order) on the workspace it built: SATLUTION_0 the
// champion, and the tuner's failed candidate from the cycle test.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseDocument, type YAMLSeq } from 'yaml';
import { TrajectoryRecord } from '../../src/core/export/trajectories';
import { readPortfolio } from '../../src/core/objectives/portfolio';
import { proposePatches } from '../../src/core/rules/evolution';
import { SignatureLog } from '../../src/core/rules/postmortem';
import { CandidateStore } from '../../src/core/store/candidates';
import { EvalStore } from '../../src/core/eval/evalStore';
import { planted3Sat } from '../../src/core/instances/generators';
import { InstanceCache } from '../../src/core/instances/instances';
import { setVersion } from '../../src/core/instances/setVersion';
import { readCycle, saveCycle } from '../../src/core/store/cycleState';
import { toOverview } from '../../src/extension/webviews/overviewModel';
import { sampleEvalDoc } from '../fixtures/evalDocs';
import type { RulesNode } from '../../src/extension/views/rulesTree';
import type { RunnersNode } from '../../src/extension/views/runnersTree';
import { api, eventually, workspaceDir } from './helpers';

type Pkg = {
  contributes: {
    commands: { command: string; category: string }[];
    menus: { commandPalette: { command: string; when: string }[] };
    configuration: { properties: Record<string, { description?: string; markdownDescription?: string }> };
    walkthroughs: { id: string; steps: unknown[] }[];
  };
};
const pkg = () => vscode.extensions.getExtension('satlution.satlution')!.packageJSON as Pkg;

/** The tuner's candidate: the newest one with SATLUTION_0 as parent. */
async function tunerCandidate() {
  const { index } = await new CandidateStore(workspaceDir()).load();
  const c = [...index.candidates].reverse().find((x) => x.parent === 0 && fs.existsSync(path.join(workspaceDir(), x.dir, 'src', 'options.h')));
  assert.ok(c, 'the cycle test left no candidate');
  return c;
}

describe('VS Code conventions', () => {
  it('registers every contributed command, in the SATLUTION category, with a palette when-clause', async () => {
    await api();
    const registered = new Set(await vscode.commands.getCommands(true));
    const p = pkg().contributes;
    for (const c of p.commands) {
      assert.ok(registered.has(c.command), `${c.command} is contributed but not registered`);
      assert.equal(c.category, 'SATLUTION', c.command);
      assert.ok(
        p.menus.commandPalette.some((m) => m.command === c.command),
        `${c.command} has no commandPalette when-clause`,
      );
    }
  });

  it('describes every setting and offers a Getting Started walkthrough', async () => {
    for (const [k, v] of Object.entries(pkg().contributes.configuration.properties)) {
      assert.match(k, /^satlution\./);
      assert.ok((v.description ?? v.markdownDescription ?? '').length > 20, `${k} has no description`);
    }
    const w = pkg().contributes.walkthroughs.find((x) => x.id === 'satlution.gettingStarted');
    assert.ok(w && w.steps.length >= 5);
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'satlution.satlution#satlution.gettingStarted', false);
  });

  it('shows the champion in the status bar', async () => {
    const a = await api();
    await a.refresh();
    await eventually(() => a.statusBar.text?.includes('SATLUTION_0'), 'the champion in the status bar');
  });
});

describe('Review', () => {
  it('Compare with Parent opens one multi-file diff of the changed sources, with HYPOTHESIS.md beside it', async () => {
    const c = await tunerCandidate();
    const r = (await vscode.commands.executeCommand('satlution.compareWithParent', c.dir)) as
      { from: string; to: string; changes: { path: string; kind: string }[] } | undefined;
    assert.ok(r, 'no review');
    assert.equal(r.from, 'SATLUTION_0');
    assert.deepEqual(r.changes.find((x) => x.path === 'src/options.h')?.kind, 'modified');
    assert.ok(!r.changes.some((x) => x.path === 'HYPOTHESIS.md' || x.path.startsWith('bin/tinysat')), 'docs and binaries stay out of the diff');
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    assert.ok(
      tabs.some((t) => t.label.includes(`${c.dir} ↔ SATLUTION_0`)),
      `no multi-diff tab; tabs: ${tabs.map((t) => t.label).join(', ')}`,
    );
    const beside = tabs.find((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === path.join(workspaceDir(), c.dir, 'HYPOTHESIS.md'));
    assert.ok(beside, 'HYPOTHESIS.md is not open');
    assert.notEqual(beside.group.viewColumn, vscode.ViewColumn.One);
  });

  it('puts CodeLens on HYPOTHESIS.md and RESULTS.md', async () => {
    const c = await tunerCandidate();
    // The command reads a loaded text model ("Illegal argument" otherwise): RESULTS.md now opens rendered, so load it here.
    const titles = async (doc: string) => {
      const uri = vscode.Uri.file(path.join(workspaceDir(), c.dir, doc));
      await vscode.workspace.openTextDocument(uri);
      return ((await vscode.commands.executeCommand('vscode.executeCodeLensProvider', uri)) as vscode.CodeLens[]).map((l) => l.command?.title ?? '');
    };
    const h = await titles('HYPOTHESIS.md');
    assert.ok(
      h.some((t) => t.includes('Compare with parent')),
      h.join(', '),
    );
    assert.ok(
      h.some((t) => t.includes('Open results')),
      h.join(', '),
    );
    const r = await titles('RESULTS.md');
    assert.ok(r.some((t) => t.includes('Open hypothesis')) && r.some((t) => t.includes('Open dashboard')), r.join(', '));
    // The seed's own documents get no "compare": it has no parent.
    assert.ok(!(await titles('../SATLUTION_0/HYPOTHESIS.md')).some((t) => t.includes('Compare')));
  });

  it('promotes a candidate to champion and discards another, as recorded decisions', async () => {
    const a = await api();
    const c = await tunerCandidate();
    assert.equal(await vscode.commands.executeCommand('satlution.promoteCandidate', c.dir, { yes: true }), true);
    assert.equal((await new CandidateStore(workspaceDir()).load()).index.champion, c.id);
    await eventually(() => a.statusBar.text?.includes(c.dir), 'the new champion in the status bar');
    assert.equal(await vscode.commands.executeCommand('satlution.discardCandidate', c.dir, { yes: true }), false, 'the champion cannot be discarded');
    assert.equal(await vscode.commands.executeCommand('satlution.promoteCandidate', 'SATLUTION_0', { yes: true }), true);
    assert.equal(await vscode.commands.executeCommand('satlution.discardCandidate', c.dir, { yes: true }), true);
    const { index } = await new CandidateStore(workspaceDir()).load();
    assert.equal(index.champion, 0);
    assert.equal(index.candidates.find((x) => x.id === c.id)?.status, 'discarded');
  });
});

describe('Rules and Runners views', () => {
  it('lists every rule with its state in the latest compliance check', async () => {
    const a = await api();
    const root = await a.rulesTree.getChildren();
    assert.deepEqual(
      root.map((n) => (n.kind === 'group' ? n.group : n.kind)),
      ['rules', 'patches'],
    );
    const rules = (await a.rulesTree.getChildren(root[0])) as Extract<RulesNode, { kind: 'rule' }>[];
    const files = fs.readdirSync(path.join(workspaceDir(), '.rules')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    assert.equal(rules.length, files.length);
    await vscode.commands.executeCommand('satlution.checkRules', { candidate: 'SATLUTION_0' });
    const item = await eventually(async () => {
      const i = await a.rulesTree.getTreeItem(rules.find((r) => r.rule.checks.length > 0)!);
      return (i.iconPath as vscode.ThemeIcon).id === 'pass' ? i : undefined;
    }, 'a rule marked compliant');
    assert.ok(String(item.description).includes('check'));
  });

  it('shows a pending rule patch and applies it from the tree', async () => {
    const a = await api();
    const ws = workspaceDir();
    const at = new Date().toISOString();
    const sig = (candidate: string) => ({
      at,
      candidate,
      kind: 'crash' as const,
      key: 'crash:SIGABRT',
      example: `abort (SIGABRT) on sat-small.cnf after 0.02 s`,
    });
    await new SignatureLog(ws).record([sig('SATLUTION_2'), sig('SATLUTION_3')]);
    const fresh = (await proposePatches(ws, await new SignatureLog(ws).all())).filter((p) => p.status === 'pending');
    assert.ok(fresh.length > 0, 'no patch proposed');
    a.rulesTree.refresh();
    const patches = await eventually(async () => {
      const root = await a.rulesTree.getChildren();
      const p = await a.rulesTree.getChildren(root.find((n) => n.kind === 'group' && n.group === 'patches'));
      return p.length ? p : undefined;
    }, 'the pending patch in the Rules view');
    const node = patches.find((n) => n.kind === 'patch' && n.patch.id === fresh[0]!.id)!;
    assert.equal(await vscode.commands.executeCommand('satlution.applyRulePatch', node), 'applied');
    const left = await a.rulesTree.getChildren({ kind: 'group', group: 'patches' });
    assert.ok(!left.some((n) => n.kind === 'patch' && n.patch.id === fresh[0]!.id));
  });

  it('lists the runners and checks the local one', async () => {
    const a = await api();
    const [local] = (await a.runnersTree.getChildren()) as RunnersNode[];
    assert.ok(local && local.kind === 'runner' && local.runner.kind === 'local');
    const found = (await vscode.commands.executeCommand('satlution.checkRunner', local)) as Record<string, { check: string; level: string }[]>;
    const checks = found[local.runner.name]!;
    assert.deepEqual(
      checks.map((f) => f.check),
      ['node', 'cores', 'drat-trim', 'sandbox', 'CPU time', 'memory limit', 'processes limit', 'disk limit', 'disk'],
    );
    assert.equal(checks[0]!.level, 'ok');
    // The Runners view says how the editor's own evaluator measures CPU time here (or what to do to get it).
    const cpu = (checks as { check: string; level: string; detail?: string }[]).find((f) => f.check === 'CPU time')!;
    assert.match(cpu.detail ?? '', cpu.level === 'ok' ? /of its own cgroup/ : /To get it: /);
    const shown = await a.runnersTree.getChildren(local);
    assert.equal(shown.filter((n) => n.kind === 'finding').length, checks.length, 'every finding is shown under the runner');
    // The editor shows whether evolved code runs sandboxed here.
    assert.deepEqual(checks.find((f) => f.check === 'sandbox')?.level, 'ok');
  });

  it('lists an evaluation in flight under its runner', async () => {
    const a = await api();
    const running = vscode.commands.executeCommand('satlution.evaluateCandidate', { candidate: 'SATLUTION_0', stage: 'smoke' });
    const job = await eventually(async () => {
      const [local] = await a.runnersTree.getChildren();
      return (await a.runnersTree.getChildren(local)).find((n) => n.kind === 'job');
    }, 'the evaluation job in the Runners view');
    assert.match((job as Extract<RunnersNode, { kind: 'job' }>).job.label, /Evaluate SATLUTION_0/);
    await running;
    await eventually(async () => {
      const [local] = await a.runnersTree.getChildren();
      return !(await a.runnersTree.getChildren(local)).some((n) => n.kind === 'job');
    }, 'the job to leave the view');
  });
});

describe('Plan approval outside the dialog', () => {
  it('shows "Approve plan" on the waiting HYPOTHESIS.md and approves it from there', async () => {
    const ws = workspaceDir();
    const started = vscode.commands.executeCommand('satlution.startCycle', { agent: 'tuner' }) as Thenable<string | undefined>;
    const dir = await eventually(
      () => {
        const s = JSON.parse(fs.readFileSync(path.join(ws, '.satlution', 'cycle.json'), 'utf8')) as { step: string; candidate: number | null };
        return s.step === 'approve' && s.candidate !== null ? `SATLUTION_${s.candidate}` : undefined;
      },
      'the cycle to wait for approval',
      60000,
    );
    // A CodeLens is computed for an open document only.
    await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(ws, dir, 'HYPOTHESIS.md')));
    let seen = '';
    const lens = await eventually(async () => {
      let lenses: vscode.CodeLens[];
      try {
        lenses = (await vscode.commands.executeCommand(
          'vscode.executeCodeLensProvider',
          vscode.Uri.file(path.join(ws, dir, 'HYPOTHESIS.md')),
        )) as vscode.CodeLens[];
      } catch (e) {
        seen = `threw ${(e as Error).stack}`;
        throw e;
      }
      seen = lenses.map((l) => l.command?.title).join(', ');
      return lenses.find((l) => l.command?.title.includes('Approve plan'));
    }, 'the Approve plan CodeLens').catch((e: Error) => assert.fail(`${e.message}; last lenses: ${seen}`));
    assert.equal(lens.command!.command, 'satlution.approvePlan');
    assert.equal(await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? [])), true);
    const outcome = await started;
    // Approved, coded, evaluated: tinysat fails the smoke gate here (UNSAT without a proof).
    assert.match(outcome ?? '', /failed the smoke gate/);
    assert.equal(await vscode.commands.executeCommand('satlution.approvePlan', dir), false, 'nothing waits any more');
  });
});

describe('Remote runners', function () {
  this.timeout(180000);
  // Set by the integration runner when it could bring up the project's test Slurm.
  const slurmConf = process.env.SATLUTION_TEST_SLURM_CONF;
  before(function () {
    if (!slurmConf) {
      console.log('    skipped: no test Slurm (scripts/slurm-test.sh could not start one here)');
      this.skip();
    }
  });

  it('evaluates a candidate on a Slurm runner, with its job and progress in the Runners view', async () => {
    const a = await api();
    const file = path.join(workspaceDir(), 'satlution.yaml');
    const original = fs.readFileSync(file, 'utf8');
    const workdir = fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-it-shared-'));
    // One runner entry is all it takes; the smoke stage's limits change so nothing stored is reused.
    const doc = parseDocument(original);
    (doc.get('runners') as YAMLSeq).add(doc.createNode({ name: 'cluster', kind: 'slurm', workdir, node: process.execPath }));
    doc.setIn(['stages', 'smoke', 'check_proofs'], false);
    doc.setIn(['stages', 'smoke', 'timeout_s'], 11);
    fs.writeFileSync(file, doc.toString());
    try {
      await a.refresh();
      const cluster = await eventually(
        async () => (await a.runnersTree.getChildren()).find((n) => n.kind === 'runner' && n.runner.name === 'cluster'),
        'the cluster runner in the Runners view',
      );
      const found = (await vscode.commands.executeCommand('satlution.checkRunner', cluster)) as Record<
        string,
        { check: string; level: string; detail: string }[]
      >;
      const slurm = found.cluster!.find((f) => f.check === 'slurm');
      assert.equal(slurm?.level, 'ok', JSON.stringify(found.cluster));

      const seen: string[] = [];
      const running = vscode.commands.executeCommand('satlution.evaluateCandidate', {
        candidate: 'SATLUTION_0',
        stage: 'smoke',
        runner: 'cluster',
      }) as Thenable<{ verdict: string; summary: string; file: string } | undefined>;
      await eventually(
        async () => {
          const job = (await a.runnersTree.getChildren(cluster)).find((n): n is Extract<RunnersNode, { kind: 'job' }> => n.kind === 'job');
          if (job) seen.push(job.job.message);
          return seen.some((m) => /^smoke: Slurm job \d+: \d+\/\d+ done/.test(m));
        },
        "the evaluation under the cluster runner, with the Slurm job's progress",
        120000,
      );
      const r = await running;
      assert.ok(r, 'the evaluation returned nothing');
      assert.equal(r.verdict, 'pass', r.summary);
      const json = JSON.parse(fs.readFileSync(r.file, 'utf8')) as { runner: string; instances: { status: string }[] };
      assert.equal(json.runner, 'cluster');
      assert.ok(json.instances.length > 0 && json.instances.every((i) => i.status === 'solved'));
      assert.ok(fs.readdirSync(path.join(workdir, 'results')).length >= json.instances.length, 'results written in the shared workdir');
    } finally {
      fs.writeFileSync(file, original);
      await a.refresh();
    }
  });
});

describe('Objectives and trajectories from the palette', () => {
  it("adds the default objective portfolio and exports the agents' trajectories", async () => {
    const ws = workspaceDir();
    const names = (await vscode.commands.executeCommand('satlution.addDefaultObjectives')) as string[] | undefined;
    assert.deepEqual(names, ['par2', 'unsolved', 'par2_unsat', 'geomean_speedup']);
    assert.deepEqual(
      (await readPortfolio(ws)).map((p) => [p.entry.name, p.entry.author]),
      names.map((n) => [n, 'person']),
    );
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'satlution-it-export-')), 'trajectories.jsonl');
    const out = (await vscode.commands.executeCommand('satlution.exportTrajectories', { file })) as { file: string; sessions: number } | undefined;
    assert.ok(out && out.file === file, 'the export returned nothing');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, out.sessions);
    for (const l of lines) TrajectoryRecord.parse(JSON.parse(l));
  });
});

describe('Fresh state: the editor never shows stale state', () => {
  /** The Cycles tree's item of a candidate, as rendered now. */
  const itemOf = async (dir: string) => {
    const a = await api();
    const node = a.cyclesTree.getChildren().find((n) => n.kind === 'candidate' && n.candidate.dir === dir);
    return node ? a.cyclesTree.getTreeItem(node) : undefined;
  };

  it('follows instances added to and removed from benchmarks/, and marks figures measured on the older perf set', async function () {
    this.timeout(120000);
    const a = await api();
    const ws = workspaceDir();
    const snap = (await a.refresh())!;
    assert.ok(snap.config.ok);
    const perfName = snap.config.config.stages.perf.set;
    const perfDir = path.resolve(ws, snap.config.config.benchmarks[perfName]!);
    const count = () => a.snapshot?.benchmarks.find((b) => b.name === perfName)?.instances;
    const before = count()!;
    // A candidate measured on the perf set as it is now (its document written as the evaluator writes one).
    const c = await tunerCandidate();
    const evals = new EvalStore(ws);
    const saved = fs.existsSync(evals.file(c.dir)) ? fs.readFileSync(evals.file(c.dir)) : undefined;
    const now = (await setVersion(perfDir, new InstanceCache(path.join(ws, '.satlution', 'cache'))))!;
    await evals.write(c.dir, sampleEvalDoc({ solver: path.join(ws, c.dir), perf_set: now }));
    const added = path.join(perfDir, 'fresh-state-added.cnf');
    try {
      await eventually(async () => (await itemOf(c.dir)) && !a.stalePerf.has(c.dir), 'the candidate measured on the current set, unmarked');
      assert.doesNotMatch(String((await itemOf(c.dir))!.description), /older perf set/);
      fs.writeFileSync(added, planted3Sat(20, 4.0, 77));
      // No refresh here: the watcher must notice the set changed.
      await eventually(() => count() === before + 1, 'the Overview count to follow the added instance');
      const overview = toOverview(a.snapshot);
      assert.equal(overview.state === 'workspace' ? overview.benchmarks.find((b) => b.name === perfName)?.instances : undefined, before + 1);
      const item = await eventually(async () => {
        const i = await itemOf(c.dir);
        return String(i?.description).includes('measured on an older perf set') ? i : undefined;
      }, 'the stale mark in the Cycles tree');
      assert.match((item.tooltip as vscode.MarkdownString).value, /Stale figures/);
      fs.rmSync(added);
      await eventually(() => count() === before, 'the count to follow the removed instance');
      await eventually(async () => !String((await itemOf(c.dir))?.description).includes('older perf set'), 'the mark to go with the set restored');
    } finally {
      fs.rmSync(added, { force: true });
      if (saved) fs.writeFileSync(evals.file(c.dir), saved);
      else fs.rmSync(evals.file(c.dir), { force: true });
    }
  });

  it('clears rule diagnostics when the file is fixed on disk or the candidate directory goes', async function () {
    this.timeout(60000);
    const a = await api();
    const ws = workspaceDir();
    const cand = path.join(ws, 'SATLUTION_5');
    const file = path.join(cand, 'tinysat.c');
    const src = vscode.Uri.file(file);
    const good = fs.readFileSync(file, 'utf8');
    const bad = `${good}\nstatic int helper (void) { return fork (); }\n`;
    const shown = async () => {
      await vscode.commands.executeCommand('satlution.checkRules', { candidate: 'SATLUTION_5' });
      await eventually(() => a.ruleDiagnostics(src).length > 0, 'the violation in the Problems panel');
    };
    try {
      fs.writeFileSync(file, bad); // changed outside the editor: no save event
      await shown();
      fs.writeFileSync(file, good);
      await eventually(() => a.ruleDiagnostics(src).length === 0, 'the diagnostic to clear once the file is fixed on disk');
      fs.writeFileSync(file, bad);
      await shown();
      fs.renameSync(cand, `${cand}.away`);
      await eventually(() => a.ruleDiagnostics(src).length === 0, 'the diagnostic to go with the directory');
    } finally {
      if (fs.existsSync(`${cand}.away`)) fs.renameSync(`${cand}.away`, cand);
      fs.writeFileSync(file, good);
    }
  });

  it('offers nothing that needs the directory for a candidate whose directory is missing, and its commands refuse', async () => {
    const a = await api();
    const ws = workspaceDir();
    await a.refresh();
    const missing = a.snapshot?.candidates.find((c) => c.missing);
    assert.ok(missing, 'workspace.test.ts leaves SATLUTION_1 missing');
    const item = (await itemOf(missing.dir))!;
    assert.equal(item.contextValue, 'candidate.missing');
    const menus = (
      vscode.extensions.getExtension('satlution.satlution')!.packageJSON as {
        contributes: { menus: { 'view/item/context': { command: string; when: string }[] } };
      }
    ).contributes.menus['view/item/context'];
    const needDir = [
      'satlution.compareWithParent',
      'satlution.evaluateCandidate',
      'satlution.openHypothesis',
      'satlution.openChangelog',
      'satlution.openResults',
      'satlution.revealCandidateFolder',
      'satlution.checkRules',
      'satlution.compareCandidates',
      'satlution.promoteCandidate',
    ];
    // The menus' when-clauses, evaluated for this item: `viewItem =~ /re/`, `viewItem == v` and `viewItem != v` terms.
    const shows = (when: string, viewItem: string) =>
      when
        .split('&&')
        .map((t) => t.trim())
        .every((t) => {
          const re = /^viewItem =~ \/(.*)\/$/.exec(t);
          if (re) return new RegExp(re[1]!).test(viewItem);
          const eq = /^viewItem (==|!=) (\S+)$/.exec(t);
          if (eq) return (eq[1] === '==') === (viewItem === eq[2]);
          return true;
        });
    for (const m of menus.filter((x) => x.when.includes('view == satlution.cycles'))) {
      if (needDir.includes(m.command)) assert.ok(!shows(m.when, 'candidate.missing'), `${m.command} is offered for a missing directory (${m.when})`);
      if (needDir.includes(m.command) && m.command !== 'satlution.promoteCandidate')
        assert.ok(shows(m.when, 'candidate'), `${m.command} is no longer offered for a candidate (${m.when})`);
    }
    assert.ok(
      menus.some((m) => m.command === 'satlution.discardCandidate' && shows(m.when, 'candidate.missing')),
      'a missing candidate can still be discarded',
    );
    const status = missing.status;
    assert.equal(await vscode.commands.executeCommand('satlution.evaluateCandidate', { candidate: missing.dir }), undefined);
    assert.equal(await vscode.commands.executeCommand('satlution.compareWithParent', missing.dir), undefined);
    assert.equal(await vscode.commands.executeCommand('satlution.promoteCandidate', missing.dir, { yes: true }), false);
    assert.ok(!fs.existsSync(new EvalStore(ws).file(missing.dir)), 'no evaluation was attempted');
    assert.equal((await new CandidateStore(ws).load()).index.candidates.find((c) => c.dir === missing.dir)?.status, status);
  });

  it('recognises a workspace whose satlution.yaml was deleted, offers Restore instead of Initialize, and restores it', async function () {
    this.timeout(60000);
    const a = await api();
    const ws = workspaceDir();
    const file = path.join(ws, 'satlution.yaml');
    await a.refresh();
    const original = fs.readFileSync(file, 'utf8');
    assert.equal(fs.readFileSync(path.join(ws, '.satlution', 'config.last-good.yaml'), 'utf8'), original, 'the copy follows the config that loaded');
    fs.renameSync(file, `${file}.away`);
    try {
      await eventually(() => a.snapshot?.configMissing?.restorable, 'the model to see the config missing');
      assert.equal(a.workspaceRoot, ws, 'the workspace is not forgotten');
      const [first] = a.cyclesTree.getChildren();
      assert.equal(first?.kind, 'configMissing');
      assert.equal(a.cyclesTree.getTreeItem(first!).command?.command, 'satlution.restoreConfig');
      assert.ok(
        a.cyclesTree.getChildren().some((n) => n.kind === 'candidate' && n.candidate.champion),
        'the history is still shown',
      );
      const init = await vscode.commands.executeCommand('satlution.initializeWorkspace', {
        dir: ws,
        seeds: [{ name: 'tinysat', source: path.join(ws, 'seeds', 'tinysat') }],
      });
      assert.deepEqual(init, { restoreOffered: true });
      assert.ok(!fs.existsSync(file), 'Initialize did not start a new history');
      assert.equal(await vscode.commands.executeCommand('satlution.restoreConfig'), file);
      assert.equal(fs.readFileSync(file, 'utf8'), original);
      await eventually(() => a.snapshot && !a.snapshot.configMissing && a.snapshot.config.ok, 'the workspace whole again');
    } finally {
      if (!fs.existsSync(file)) fs.renameSync(`${file}.away`, file);
      fs.rmSync(`${file}.away`, { force: true });
      await a.refresh();
    }
  });

  it('Abandon Interrupted Cycle ends a paused cycle and discards its candidate, so Start begins a new one', async () => {
    const a = await api();
    const ws = workspaceDir();
    const store = new CandidateStore(ws);
    const rec = await store.create({ parent: 0, status: 'coding' });
    fs.cpSync(path.join(ws, 'SATLUTION_0'), path.join(ws, rec.dir), { recursive: true });
    const prev = await readCycle(ws);
    const cycle = (prev?.cycle ?? 0) + 1;
    const at = new Date().toISOString();
    await saveCycle(ws, {
      cycle,
      step: 'code',
      parent: 0,
      candidate: rec.id,
      title: 'paused mid-way',
      started_at: at,
      updated_at: at,
      outcome: null,
      champion_changed: false,
    });
    await a.refresh();
    assert.equal(
      await vscode.commands.executeCommand('satlution.abandonCycle', { yes: true }).then((r) => JSON.stringify(r)),
      JSON.stringify({ cycle, discarded: [rec.id] }),
    );
    const s = await readCycle(ws);
    assert.equal(s?.step, 'done');
    assert.equal(s?.outcome, 'abandoned by the user');
    const c = (await store.load()).index.candidates.find((x) => x.id === rec.id);
    assert.deepEqual([c?.status, c?.detail], ['discarded', 'abandoned by the user']);
    await eventually(async () => String((await itemOf(rec.dir))?.description).includes('discarded'), 'the Cycles tree to show it discarded');
    assert.equal(await vscode.commands.executeCommand('satlution.abandonCycle', { yes: true }), undefined, 'nothing left to abandon');
  });
});
