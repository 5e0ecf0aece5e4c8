import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CandidateStore } from '../../src/core/store/candidates';
import { readCycle } from '../../src/core/store/cycleState';
import { withLock } from '../../src/core/store/lock';
import { tempDir } from './helpers';

async function seeded(): Promise<{ dir: string; store: CandidateStore }> {
  const dir = tempDir();
  const store = new CandidateStore(dir);
  await store.create({ id: 0, parent: null, seed: 'kissat', status: 'seed' });
  fs.mkdirSync(path.join(dir, 'SATLUTION_0'));
  await store.setChampion(0);
  return { dir, store };
}

describe('store: candidates in .satlution/', () => {
  it('records candidates, lineage, status and the champion', async () => {
    const { store } = await seeded();
    const c1 = await store.create({ parent: 0, status: 'coding' });
    const c2 = await store.create({ parent: c1.id, status: 'coding' });
    assert.deepEqual([c1.id, c2.id], [1, 2]);
    await store.setStatus(2, 'failed', 'segfault (SIGSEGV) on smoke/add8.cnf');
    await store.setStatus(1, 'verified');
    await store.setChampion(1);
    const { index, report } = await store.load();
    assert.equal(report.rebuilt, undefined);
    assert.equal(index.champion, 1);
    assert.deepEqual(
      index.candidates.map((c) => [c.dir, c.parent, c.status]),
      [
        ['SATLUTION_0', null, 'seed'],
        ['SATLUTION_1', 0, 'verified'],
        ['SATLUTION_2', 1, 'failed'],
      ],
    );
    assert.equal(index.candidates[2]!.detail, 'segfault (SIGSEGV) on smoke/add8.cnf');
    assert.deepEqual(CandidateStore.lineage(index, 2), [2, 1, 0]);
  });

  it('refuses unknown parents and ids that are taken', async () => {
    const { store } = await seeded();
    await assert.rejects(store.create({ parent: 7, status: 'coding' }), /parent SATLUTION_7 is not a known candidate/);
    await assert.rejects(store.create({ id: 0, parent: null, status: 'seed' }), /SATLUTION_0 already exists/);
    await assert.rejects(store.setStatus(9, 'failed'), /SATLUTION_9 is not a known candidate/);
  });

  it('rebuilds a corrupt index from the log', async () => {
    const { dir, store } = await seeded();
    await store.create({ parent: 0, status: 'verified' });
    fs.writeFileSync(path.join(dir, '.satlution', 'candidates.json'), '{"version":1,"champ');
    const { index, report } = await new CandidateStore(dir).load();
    assert.equal(report.rebuilt, 'index is not valid JSON');
    assert.equal(index.champion, 0);
    assert.deepEqual(
      index.candidates.map((c) => c.status),
      ['seed', 'verified'],
    );
    // ...and the repaired index is written back
    assert.equal((await new CandidateStore(dir).load()).report.rebuilt, undefined);
  });

  it('survives a lost index and a torn last log line', async () => {
    const { dir, store } = await seeded();
    await store.setStatus(0, 'evaluated');
    fs.rmSync(path.join(dir, '.satlution', 'candidates.json'));
    fs.appendFileSync(path.join(dir, '.satlution', 'candidates.jsonl'), '{"type":"status","at":"2026-');
    const { index, report } = await new CandidateStore(dir).load();
    assert.equal(report.rebuilt, 'index missing');
    assert.equal(report.skippedLogLines, 1);
    assert.equal(index.candidates[0]!.status, 'evaluated');
  });

  it('adopts candidate directories that have no record, and never reuses their ids', async () => {
    const { dir, store } = await seeded();
    fs.mkdirSync(path.join(dir, 'SATLUTION_3'));
    fs.mkdirSync(path.join(dir, 'SATLUTION_x')); // not a candidate name
    const { index, report } = await store.load();
    assert.deepEqual(report.adopted, [3]);
    assert.equal(index.candidates.find((c) => c.id === 3)!.status, 'unknown');
    const next = await store.create({ parent: 0, status: 'coding' });
    assert.equal(next.id, 4);
    // a lost index and log still find it from disk
    fs.rmSync(path.join(dir, '.satlution'), { recursive: true });
    assert.deepEqual(
      (await new CandidateStore(dir).load()).index.candidates.map((c) => c.id),
      [0, 3],
    );
  });

  it('ignores a temporary file left by a killed atomic write, and keeps one a live process is writing', async () => {
    const { dir, store } = await seeded();
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.once('exit', r));
    const state = path.join(dir, '.satlution');
    fs.writeFileSync(path.join(state, `.candidates.json.${dead.pid}.deadbeef.tmp`), '{"half":');
    // A write in progress elsewhere in this process (cycle.json while the views reload the index).
    const live = `.cycle.json.${process.pid}.0badcafe.tmp`;
    fs.writeFileSync(path.join(state, live), '{"half":');
    const { report } = await store.load();
    assert.equal(report.rebuilt, undefined);
    assert.deepEqual(
      fs.readdirSync(state).filter((f) => f.endsWith('.tmp')),
      [live],
    );
  });

  it('loads a consistent state after a writer is killed half-way (SIGKILL)', async function () {
    this.timeout(30000);
    const { dir } = await seeded();
    const script = `
      const { CandidateStore } = require(${JSON.stringify(require.resolve('../../src/core/store/candidates'))});
      const s = new CandidateStore(${JSON.stringify(dir)});
      (async () => { for (let i = 0; ; i++) { const c = await s.create({ parent: 0, status: 'coding' }); await s.setStatus(c.id, i % 2 ? 'failed' : 'verified'); if (i === 3) process.stdout.write('go'); } })();`;
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((r) => child.stdout.once('data', () => r()));
      await new Promise((r) => setTimeout(r, 20 + round * 37));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const { index } = await new CandidateStore(dir).load(); // a stale lock of the dead writer is taken over
      const ids = index.candidates.map((c) => c.id);
      assert.deepEqual(
        ids,
        [...new Set(ids)].sort((a, b) => a - b),
        'ids are unique and ordered',
      );
      assert.ok(ids.length >= 5 + round * 4);
      assert.equal(index.champion, 0);
      assert.ok(index.candidates.every((c) => c.id === 0 || c.parent === 0));
    }
  });

  it('takes over a lock whose owner process is gone', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'store.lock'), '999999999');
    assert.equal(await withLock(dir, async () => 'ran'), 'ran');
    assert.ok(!fs.existsSync(path.join(dir, 'store.lock')));
  });

  it('waits for a live lock and fails clearly when it is never released', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'store.lock'), String(process.pid));
    await assert.rejects(
      withLock(dir, async () => 'ran', 300),
      /stayed locked/,
    );
  });
});

describe('cycle state on disk', () => {
  it('reads a cycle.json written before the screening step was renamed from judge to screen', async () => {
    const dir = tempDir();
    const state = {
      cycle: 3,
      step: 'judge',
      parent: 0,
      candidate: 4,
      title: 't',
      started_at: 'x',
      updated_at: 'x',
      outcome: null,
      champion_changed: false,
      proposals: [{ candidate: 4, title: 't', coded: true }],
    };
    fs.mkdirSync(path.join(dir, '.satlution'));
    fs.writeFileSync(path.join(dir, '.satlution', 'cycle.json'), JSON.stringify(state));
    const s = await readCycle(dir);
    assert.equal(s?.step, 'screen');
    assert.equal(s?.cycle, 3);
    assert.equal(await readCycle(tempDir()), undefined);
  });
});
