// Fresh state (issue 17, item 5): the last good satlution.yaml is kept and can be restored, an
// interrupted cycle can be abandoned for good, and a measurement on an older perf set is recognised.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LAST_GOOD_CONFIG, restoreConfig, RestoreConfigError, workspaceState } from '../../src/core/config/lastGood';
import { ConfigError, loadConfig, parseConfig } from '../../src/core/config/load';
import type { Config } from '../../src/core/config/schema';
import { EvalStore } from '../../src/core/eval/evalStore';
import { evaluateSolver } from '../../src/core/eval/service';
import { stalePerfMeasurements } from '../../src/core/eval/staleSet';
import { planted3Sat } from '../../src/core/instances/generators';
import { InstanceCache } from '../../src/core/instances/instances';
import { setVersion } from '../../src/core/instances/setVersion';
import { ABANDONED, AbandonError, abandonCycle } from '../../src/core/store/abandonInterrupted';
import { CandidateStore } from '../../src/core/store/candidates';
import { readCycle, saveCycle, type CycleStateInput } from '../../src/core/store/cycleState';
import { readSnapshot } from '../../src/core/workspace/snapshot';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { silentLogger } from '../../src/core/ports';
import { sampleEvalDoc } from '../fixtures/evalDocs';
import { CLI, FIXTURES, RULES, tempDir, WORKER, write } from './helpers';

const YAML =
  'seeds: [{ name: s, source: . }]\n# a comment that must survive a restore byte for byte\nstages:\n  perf: { timeout_s: 5, audit: { min: 0, share: 0 } }\n';

/** A workspace with a store (SATLUTION_0 the champion) and the config above. */
async function workspace(): Promise<{ ws: string; store: CandidateStore }> {
  const ws = tempDir();
  const store = new CandidateStore(ws);
  await store.create({ id: 0, parent: null, seed: 's', status: 'seed' });
  fs.mkdirSync(path.join(ws, 'SATLUTION_0'));
  await store.setChampion(0);
  write(path.join(ws, 'satlution.yaml'), YAML);
  return { ws, store };
}

describe('fresh state: the last good satlution.yaml', () => {
  it('keeps a copy whenever the config loads, not when it is invalid', async () => {
    const { ws } = await workspace();
    const kept = path.join(ws, LAST_GOOD_CONFIG);
    assert.ok(!fs.existsSync(kept));
    await readSnapshot(ws);
    assert.equal(fs.readFileSync(kept, 'utf8'), YAML);
    write(path.join(ws, 'satlution.yaml'), 'approval: sometimes\n');
    assert.equal((await readSnapshot(ws)).config.ok, false);
    await assert.rejects(loadConfig(ws), ConfigError);
    assert.equal(fs.readFileSync(kept, 'utf8'), YAML, 'an invalid config does not replace the good copy');
    const edited = YAML.replace('timeout_s: 5', 'timeout_s: 7');
    write(path.join(ws, 'satlution.yaml'), edited);
    await loadConfig(ws);
    assert.equal(fs.readFileSync(kept, 'utf8'), edited, 'loadConfig keeps the copy too');
  });

  it('never creates a store where there is none', async () => {
    const dir = tempDir();
    write(path.join(dir, 'satlution.yaml'), YAML);
    await loadConfig(dir);
    assert.ok(!fs.existsSync(path.join(dir, '.satlution')));
  });

  it('recognises a workspace whose config was deleted, and restores it byte for byte', async () => {
    const { ws } = await workspace();
    await readSnapshot(ws);
    assert.equal(await workspaceState(ws), 'workspace');
    fs.rmSync(path.join(ws, 'satlution.yaml'));
    assert.equal(await workspaceState(ws), 'configMissing');
    assert.equal(await workspaceState(tempDir()), undefined);
    const snap = await readSnapshot(ws);
    assert.deepEqual(snap.configMissing, { restorable: true });
    assert.deepEqual(
      snap.candidates.map((c) => c.dir),
      ['SATLUTION_0'],
      'the history is still read',
    );
    await assert.rejects(loadConfig(ws), /satlution restore-config/);
    assert.equal(await restoreConfig(ws), path.join(ws, 'satlution.yaml'));
    assert.equal(fs.readFileSync(path.join(ws, 'satlution.yaml'), 'utf8'), YAML);
    assert.equal((await readSnapshot(ws)).configMissing, undefined);
    await assert.rejects(restoreConfig(ws), RestoreConfigError, 'an existing config is never overwritten');
  });

  it('says so when there is no copy to restore', async () => {
    const { ws } = await workspace();
    fs.rmSync(path.join(ws, 'satlution.yaml'));
    assert.deepEqual((await readSnapshot(ws)).configMissing, { restorable: false });
    await assert.rejects(restoreConfig(ws), /no last good copy/);
    await assert.rejects(loadConfig(ws), /satlution init/);
  });

  it('init and status point at restore-config instead of starting a second history', async () => {
    const { ws } = await workspace();
    await loadConfig(ws);
    fs.rmSync(path.join(ws, 'satlution.yaml'));
    await assert.rejects(
      initWorkspace({
        dir: ws,
        seeds: [{ name: 's', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
        defaultRulesDir: RULES,
        approver: { confirm: async () => true },
        log: silentLogger,
      }),
      /satlution.yaml is missing.*satlution restore-config/,
    );
    assert.ok(!fs.existsSync(path.join(ws, 'satlution.yaml')) && fs.existsSync(path.join(ws, 'SATLUTION_0')), 'init left the folder as it was');
    const r = spawnSync(process.execPath, [CLI, 'status', '--dir', ws], { encoding: 'utf8' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /satlution restore-config/);
  });

  it('satlution restore-config puts it back from a subdirectory', async () => {
    const { ws } = await workspace();
    await loadConfig(ws);
    fs.rmSync(path.join(ws, 'satlution.yaml'));
    const r = spawnSync(process.execPath, [CLI, 'restore-config', '--dir', path.join(ws, 'SATLUTION_0')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(fs.readFileSync(path.join(ws, 'satlution.yaml'), 'utf8'), YAML);
    const again = spawnSync(process.execPath, [CLI, 'restore-config', '--dir', ws], { encoding: 'utf8' });
    assert.equal(again.status, 2);
    assert.match(again.stderr, /nothing to restore/);
  });
});

/** A cycle state as the engine saves it, interrupted at `step`. */
const interrupted = (over: Partial<CycleStateInput> = {}): CycleStateInput => ({
  cycle: 3,
  step: 'code',
  parent: 0,
  candidate: 2,
  title: 'a change',
  started_at: '2026-11-26T00:00:00.000Z',
  updated_at: '2026-11-26T00:00:00.000Z',
  outcome: null,
  champion_changed: false,
  ...over,
});

describe('fresh state: abandoning an interrupted cycle', () => {
  it('discards the unfinished candidates and ends the cycle, so the next one is new', async () => {
    const { ws, store } = await workspace();
    await store.create({ parent: 0, status: 'failed' }); // 1: settled earlier, stays failed
    await store.create({ parent: 0, status: 'coding' }); // 2: the cycle's current candidate
    await store.create({ parent: 0, status: 'verified' }); // 3: an earlier proposal of the cycle
    await saveCycle(
      ws,
      interrupted({
        proposals: [
          { candidate: 1, title: null, coded: false },
          { candidate: 3, title: null, coded: true },
        ],
      }),
    );
    const r = await abandonCycle(ws);
    assert.deepEqual(r, { cycle: 3, discarded: [2, 3] });
    const { index } = await store.load();
    assert.deepEqual(
      index.candidates.map((c) => [c.id, c.status, c.detail ?? null]),
      [
        [0, 'seed', null],
        [1, 'failed', null],
        [2, 'discarded', ABANDONED],
        [3, 'discarded', ABANDONED],
      ],
    );
    assert.equal(index.champion, 0);
    const s = await readCycle(ws);
    assert.equal(s?.step, 'done');
    assert.equal(s?.outcome, ABANDONED);
    assert.equal(s?.cycle, 3, 'the engine numbers the next cycle after it');
    const log = fs
      .readFileSync(path.join(ws, '.satlution', 'cycles.jsonl'), 'utf8')
      .trim()
      .split('\n');
    assert.match(log[log.length - 1]!, /"step":"done".*"outcome":"abandoned by the user"/, 'the history records it like any ended cycle');
    await assert.rejects(abandonCycle(ws), AbandonError, 'nothing is left to abandon');
  });

  it('ends a cycle paused before it made a candidate, and never discards the champion', async () => {
    const { ws, store } = await workspace();
    await saveCycle(ws, interrupted({ step: 'plan', candidate: null }));
    assert.deepEqual(await abandonCycle(ws), { cycle: 3, discarded: [] });
    await saveCycle(ws, interrupted({ step: 'decide', candidate: 0 }));
    assert.deepEqual((await abandonCycle(ws)).discarded, []);
    assert.equal((await store.load()).index.candidates[0]!.status, 'seed');
  });

  it('refuses while a cycle holds the lock, and when there is no cycle', async () => {
    const { ws, store } = await workspace();
    await assert.rejects(abandonCycle(ws), /nothing to abandon/);
    await store.create({ parent: 0, status: 'coding' });
    await saveCycle(ws, interrupted({ candidate: 1 }));
    write(path.join(ws, '.satlution', 'cycle.lock'), String(process.pid)); // a live holder: this process
    await assert.rejects(abandonCycle(ws), /a cycle is running/);
    assert.equal((await readCycle(ws))?.step, 'code');
    assert.equal((await store.load()).index.candidates[1]!.status, 'coding');
    fs.rmSync(path.join(ws, '.satlution', 'cycle.lock'));
    assert.ok(!fs.existsSync(path.join(ws, '.satlution', 'cycle.lock')));
  });

  it('satlution abandon does the same from a terminal', async () => {
    const { ws, store } = await workspace();
    await store.create({ parent: 0, status: 'planning' });
    await saveCycle(ws, interrupted({ step: 'approve', candidate: 1 }));
    const r = spawnSync(process.execPath, [CLI, 'abandon', '--dir', ws], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /cycle 3 abandoned; discarded SATLUTION_1/);
    assert.equal((await readCycle(ws))?.step, 'done');
    const again = spawnSync(process.execPath, [CLI, 'abandon', '--dir', ws], { encoding: 'utf8' });
    assert.equal(again.status, 2);
    assert.match(again.stderr, /nothing to abandon/);
  });
});

/** The config of a workspace with the default set paths. */
function config(): Config {
  const r = parseConfig(YAML);
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('\n'));
  return r.config;
}

describe('fresh state: the perf set version', () => {
  it('changes with an instance added, removed or rewritten, not with meta.csv or a renamed-back file', async () => {
    const dir = tempDir();
    const cache = () => new InstanceCache(path.join(dir, '.cache'));
    write(path.join(dir, 'a.cnf'), planted3Sat(20, 4.0, 1));
    write(path.join(dir, 'sub', 'b.cnf'), planted3Sat(20, 4.0, 2));
    const v1 = await setVersion(dir, cache());
    assert.equal(v1?.instances, 2);
    assert.deepEqual(await setVersion(dir, cache()), v1, 'the same files, the same version');
    write(path.join(dir, 'meta.csv'), 'instance,family,expected\na.cnf,p,SAT\n');
    assert.deepEqual(await setVersion(dir, cache()), v1, 'meta.csv labels; it does not change the runs');
    write(path.join(dir, 'c.cnf'), planted3Sat(20, 4.0, 3));
    const v2 = await setVersion(dir, cache());
    assert.notEqual(v2?.version, v1?.version);
    assert.equal(v2?.instances, 3);
    fs.rmSync(path.join(dir, 'c.cnf'));
    assert.deepEqual(await setVersion(dir, cache()), v1);
    write(path.join(dir, 'a.cnf'), planted3Sat(20, 4.0, 9));
    assert.notEqual((await setVersion(dir, cache()))?.version, v1?.version, 'same names, other contents');
    assert.equal(await setVersion(path.join(dir, 'nope'), cache()), undefined);
  });

  it('marks the candidates whose latest evaluation ran on another version of the perf set', async () => {
    const { ws } = await workspace();
    const perf = path.join(ws, 'benchmarks', 'perf');
    write(path.join(perf, 'a.cnf'), planted3Sat(20, 4.0, 1));
    const now = (await setVersion(perf, new InstanceCache(path.join(ws, '.satlution', 'cache'))))!;
    const evals = new EvalStore(ws);
    await evals.write('SATLUTION_1', sampleEvalDoc({ perf_set: now }));
    await evals.write('SATLUTION_2', sampleEvalDoc({ perf_set: { version: '0123456789abcdef', instances: 40 } }));
    await evals.write('SATLUTION_3', sampleEvalDoc()); // before set versions: a.cnf, as the set has now
    await evals.write('SATLUTION_4', sampleEvalDoc({ instances: [{ ...sampleEvalDoc().instances[0]!, instance: 'gone.cnf' }] }));
    await evals.write('SATLUTION_5', sampleEvalDoc({ gates: [{ gate: 'smoke', ok: true, detail: '', failures: [] }] })); // perf never ran
    const dirs = ['SATLUTION_0', 'SATLUTION_1', 'SATLUTION_2', 'SATLUTION_3', 'SATLUTION_4', 'SATLUTION_5'];
    const stale = await stalePerfMeasurements(ws, config(), dirs);
    assert.deepEqual([...stale.keys()], ['SATLUTION_2', 'SATLUTION_4']);
    assert.match(stale.get('SATLUTION_2')!, /older perf set \(40 instances.*now has 1/);
    write(path.join(perf, 'b.cnf'), planted3Sat(20, 4.0, 2));
    assert.deepEqual(
      [...(await stalePerfMeasurements(ws, config(), dirs)).keys()],
      ['SATLUTION_1', 'SATLUTION_2', 'SATLUTION_3', 'SATLUTION_4'],
      'an instance added makes every earlier measurement stale',
    );
  });

  it('the evaluation records the perf set it ran on', async function () {
    this.timeout(120000);
    const { ws } = await workspace();
    for (const set of ['smoke', 'verify', 'perf']) fs.mkdirSync(path.join(ws, 'benchmarks', set), { recursive: true });
    write(path.join(ws, 'benchmarks', 'perf', 'a.cnf'), planted3Sat(20, 4.0, 1));
    write(path.join(ws, 'benchmarks', 'perf', 'b.cnf'), planted3Sat(20, 4.0, 2));
    const solverDir = path.join(FIXTURES, 'liars', 'honest');
    const e = await evaluateSolver({
      ws,
      config: config(),
      solverDir,
      overrides: { stage: 'perf', jobs: 2, noProofs: true },
      build: false,
      rules: false,
      record: false,
      runnerEnv: { workerFile: WORKER },
    });
    assert.equal(e.verdict, 'pass', e.gates.map((g) => g.detail).join('; '));
    const expected = await setVersion(path.join(ws, 'benchmarks', 'perf'), new InstanceCache(path.join(ws, '.satlution', 'cache')));
    assert.deepEqual(e.doc.perf_set, expected);
    write(path.join(ws, 'benchmarks', 'smoke', 'a.cnf'), planted3Sat(20, 4.0, 1));
    const smoke = await evaluateSolver({
      ws,
      config: config(),
      solverDir,
      overrides: { stage: 'smoke', jobs: 1, noProofs: true },
      build: false,
      rules: false,
      record: false,
      runnerEnv: { workerFile: WORKER },
    });
    assert.equal(smoke.verdict, 'pass', smoke.gates.map((g) => g.detail).join('; '));
    assert.equal(smoke.doc.perf_set, undefined, 'no perf, no perf set');
  });
});
