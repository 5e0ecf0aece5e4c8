import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../../src/core/ports';
import { CandidateStore } from '../../src/core/store/candidates';
import { initWorkspace } from '../../src/core/workspace/initWorkspace';
import { readSnapshot } from '../../src/core/workspace/snapshot';
import { toOverview } from '../../src/extension/webviews/overviewModel';
import type { CalibrationDoc } from '../../src/core/decide/calibration';
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
    await initWorkspace({
      dir,
      seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
      benchmarks: { smoke },
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
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
    assert.deepEqual(
      o.latest.map((c) => [c.dir, c.parent, c.missing]),
      [
        ['SATLUTION_2', 'SATLUTION_0', true],
        ['SATLUTION_1', 'SATLUTION_0', true],
        ['SATLUTION_0', null, false],
      ],
    );
    assert.deepEqual(
      o.benchmarks.map((b) => [b.name, b.exists, b.instances, b.hasMeta]),
      [
        ['smoke', true, 2, true],
        ['verify', true, 0, false],
        ['perf', false, 0, false],
      ],
    );
    assert.deepEqual(toOverview(undefined), { state: 'none' });
  });

  it('says the promotion rule in force in one short line; a noise band, once measured, is shown for information', async () => {
    const dir = tempDir();
    await initWorkspace({
      dir,
      seeds: [{ name: 'tinysat', source: path.join(FIXTURES, 'seeds', 'tinysat') }],
      defaultRulesDir: RULES,
      approver: { confirm: async () => true },
      log: silentLogger,
    });
    const snap = await readSnapshot(dir);
    assert.ok(snap.config.ok);
    const { decide_on: on } = snap.config.config.evaluation;
    const { min_improvement_pct: margin, alpha } = snap.config.config.strategy;
    assert.deepEqual([on, margin, alpha], ['cpu', 5, 0.05], "the template's defaults");
    const none = toOverview(snap);
    assert.ok(none.state === 'workspace');
    assert.deepEqual(none.rule, {
      short: 'Decisions: CPU time, raced side by side · PAR-2 test against run noise · margin 5% · ≤0.5% false promotions',
      full: none.rule!.full,
      calibrated: false,
    });
    assert.match(none.rule!.full, /PAR-2 test against the session's run noise, no noise band needed/);
    const noise = { diff_pct: 0.4, p: 0.6, spread_median_pct: 1, spread_p90_pct: 3, aa_significant: false };
    const cal: CalibrationDoc = {
      at: '2026-11-02T10:00:00.000Z',
      scope: { machine: 'box', runner: 'local', set: '0123456789abcdef', timeout_s: 60 },
      session: 's',
      solver: 'SATLUTION_0',
      n: 30,
      wall: { ...noise, band_pct: 7.25 },
      cpu: { ...noise, band_pct: 3.14 },
      alpha: 0.05,
    };
    const o = toOverview(snap, 5, new Map(), cal);
    assert.ok(o.state === 'workspace');
    assert.equal(o.rule!.short, 'Decisions: CPU time, raced side by side · PAR-2 test against run noise · margin 5% · ≤0.5% false promotions');
    assert.ok(o.rule!.calibrated);
    assert.match(o.rule!.full, /noise band 3\.1% \(calibrated 2026-11-02, 30 instances; for information\)/);
    // A machine without CPU accounting: decisions fall back to wall time; the band is no margin.
    const wallOnly = toOverview(snap, 5, new Map(), { ...cal, cpu: null });
    assert.ok(wallOnly.state === 'workspace');
    assert.equal(wallOnly.rule!.short, 'Decisions: wall time, raced side by side · PAR-2 test against run noise · margin 5% · ≤0.5% false promotions');
    // Before any calibration, on a machine that measures no CPU time (no cgroup of this user's): wall, not the config's wish.
    const noCpuHere = toOverview(snap, 5, new Map(), undefined, false);
    assert.ok(noCpuHere.state === 'workspace');
    assert.equal(noCpuHere.rule!.short, 'Decisions: wall time, raced side by side · PAR-2 test against run noise · margin 5% · ≤0.5% false promotions');
    assert.match(noCpuHere.rule!.full, /^raced side by side on wall time;/);
    assert.equal(
      (toOverview(snap, 5, new Map(), undefined, true) as { rule: { short: string } }).rule.short,
      none.rule!.short,
      'CPU where this machine measures it',
    );
    assert.ok(HostMessage.safeParse({ type: 'overview', overview: o }).success);
    // A state saved before the rule existed still loads (as no rule); an invalid config has none.
    const { rule: _rule, ...before } = o;
    const restored = HostMessage.safeParse({ type: 'overview', overview: before });
    assert.ok(restored.success && restored.data.overview.state === 'workspace' && restored.data.overview.rule === null);
    fs.writeFileSync(path.join(dir, 'satlution.yaml'), 'version: 1\nnot: valid\n');
    const broken = toOverview(await readSnapshot(dir), 5, new Map(), cal);
    assert.ok(broken.state === 'workspace' && broken.rule === null);
  });
});
