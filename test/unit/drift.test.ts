// Between-session drift (decide/drift.ts): what a pair of separate measurements of one binary records, and
// what it refuses to record (other load, too few instances).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { driftBand, driftFile, driftOf, readDrift, recordDrift } from '../../src/core/decide/drift';
import type { InstanceResult } from '../../src/core/run/result';
import { tempDir } from './helpers';

const run = (instance: string, wall: number, cpu: number | null, status: InstanceResult['status'] = 'solved'): InstanceResult => ({
  instance,
  family: null,
  expected: null,
  expected_from: 'none',
  answer: status === 'solved' ? 'SAT' : null,
  status,
  time_s: wall,
  cpu_s: cpu,
  mem_mb: null,
  exit_code: 0,
  signal: null,
  check: { kind: 'none', ok: null, time_s: 0, detail: '' },
  detail: '',
});
/** 20 runs of 1..20 s CPU scaled by `speed`, getting `share` of a core. */
const session = (speed: number, share = 0.95) => Array.from({ length: 20 }, (_, i) => run(`i${i}`, (speed * (i + 1)) / share, speed * (i + 1)));

describe('drift between separate measurements', () => {
  it('measures how far a later session of one binary is from the stored one, with its 99% interval', () => {
    const d = driftOf(session(1), session(1.15), 100, 'cpu')!;
    assert.equal(d.n, 20);
    assert.equal(d.diff_pct, 15);
    assert.ok(d.drift_pct >= 15 && d.drift_pct < 22, JSON.stringify(d));
  });

  it('records nothing from measurements under different load, with too few instances, or with nothing solved', () => {
    assert.equal(driftOf(session(1, 0.95), session(1.3, 0.62), 100, 'cpu'), undefined, 'a loaded reference would blind every later comparison');
    assert.equal(driftOf(session(1).slice(0, 4), session(1.1).slice(0, 4), 100, 'cpu'), undefined);
    const none = (s: number) => Array.from({ length: 8 }, (_, i) => run(`i${i}`, 100 * s, null, 'timeout'));
    assert.equal(driftOf(none(1), none(1), 100, 'wall'), undefined, 'timeouts at 2T show no speed');
  });

  it('keeps the observations in .satlution/drift.json, and the band is their upper median on the basis asked, which more observations do not widen', async () => {
    const ws = tempDir();
    assert.equal(driftBand(await readDrift(ws), 'cpu'), undefined);
    await recordDrift(ws, { solver: 'SATLUTION_0', from: 'calibration', stored: session(1), now: session(1.04), timeoutS: 100, on: 'cpu' });
    await recordDrift(ws, { solver: 'SATLUTION_0', from: 'decision', stored: session(1), now: session(0.88), timeoutS: 100, on: 'cpu' });
    assert.equal(
      await recordDrift(ws, { solver: 'SATLUTION_0', from: 'decision', stored: session(1), now: session(1.2, 0.6), timeoutS: 100, on: 'cpu' }),
      undefined,
    );
    const doc = (await readDrift(ws))!;
    assert.deepEqual(
      doc.observations.map((o) => [o.from, o.diff_pct]),
      [
        ['calibration', 4],
        ['decision', -12],
      ],
    );
    const band = driftBand(doc, 'cpu')!;
    assert.equal(band.n, 2);
    assert.equal(band.pct, Math.max(...doc.observations.map((o) => o.drift_pct)));
    assert.ok(band.pct >= 12);
    assert.equal(driftBand(doc, 'wall'), undefined, 'drift on CPU time says nothing about wall time');
    // Many observations of a steady machine and one outlier: the band is a typical one, not the outlier.
    const many = { version: 1 as const, observations: [...Array(21)].map((_, i) => ({ ...doc.observations[0]!, drift_pct: i === 20 ? 60 : 5 + i / 10 })) };
    assert.equal(driftBand(many, 'cpu')!.pct, 6);
    assert.equal(driftBand(many, 'cpu')!.n, 21);
    // A damaged record is ignored (and rebuilt by the next observation), never a crash.
    fs.writeFileSync(driftFile(ws), '{"version": 1, "observations": [{"at": 3}]}');
    assert.equal(await readDrift(ws), undefined);
  });
});
