import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { initWorkspace } from '../../src/core/workspace/init';
import { readSnapshot } from '../../src/core/workspace/snapshot';
import { toOverview } from '../../src/extension/webviews/overviewModel';
import { HostMessage, ViewMessage } from '../../src/shared/protocol';
import { FIXTURES, RULES, tempDir, write } from './helpers';

describe('webview protocol and the Overview model', () => {
  it('accepts the messages of the contract and rejects anything else', () => {
    assert.ok(ViewMessage.safeParse({ type: 'ready' }).success);
    assert.ok(ViewMessage.safeParse({ type: 'action', action: 'openConfig' }).success);
    assert.ok(ViewMessage.safeParse({ type: 'openCandidate', dir: 'SATLUTION_12' }).success);
    for (const bad of [{ type: 'action', action: 'rm -rf' }, { type: 'openCandidate', dir: '../../etc' }, { type: 'eval', code: '1' }, 'ready', null])
      assert.equal(ViewMessage.safeParse(bad).success, false, JSON.stringify(bad));
    assert.equal(HostMessage.safeParse({ type: 'overview', overview: { state: 'workspace' } }).success, false);
  });

  it('summarizes a workspace: champion, counts, latest first, benchmark sets', async () => {
    const dir = tempDir();
    const smoke = tempDir();
    write(path.join(smoke, 'a.cnf'), 'p cnf 1 1\n1 0\n');
    write(path.join(smoke, 'sub', 'b.cnf.xz'), 'x');
    write(path.join(smoke, 'meta.csv'), 'instance,family,expected\n');
    await initWorkspace({ dir, seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }], benchmarks: { smoke }, defaultRulesDir: RULES, approver: { confirm: async () => true }, log: silentLogger });
    const store = new CandidateStore(dir);
    await store.create({ parent: 0, status: 'failed' });
    await store.create({ parent: 0, status: 'verified' });
    fs.rmSync(path.join(dir, 'benchmarks', 'perf'), { recursive: true });
    const o = toOverview(await readSnapshot(dir));
    assert.ok(o.state === 'workspace');
    assert.ok(HostMessage.safeParse({ type: 'overview', overview: o }).success, 'the model satisfies the protocol');
    assert.deepEqual(o.champion, { dir: 'SATLUTION_0', status: 'seed', seed: 'tinysat' });
    assert.equal(o.total, 3);
    assert.deepEqual(o.counts, { seed: 1, failed: 1, verified: 1 });
    assert.deepEqual(o.latest.map((c) => [c.dir, c.parent, c.missing]), [['SATLUTION_2', 'SATLUTION_0', true], ['SATLUTION_1', 'SATLUTION_0', true], ['SATLUTION_0', null, false]]);
    assert.deepEqual(o.benchmarks.map((b) => [b.name, b.exists, b.instances, b.hasMeta]), [['smoke', true, 2, true], ['verify', true, 0, false], ['perf', false, 0, false]]);
    assert.deepEqual(toOverview(undefined), { state: 'none' });
  });
});
