import { strict as assert } from 'node:assert';
import { familiesAgainstParent, type FamilyDuel } from '../../src/core/dashboard/parentFamilies';

/** A duel of B with A on set "perf": each family as [name, PAR-2 under A, PAR-2 under B], 8 instances. */
const duel = (a: number, b: number, at: string, fams: [string, number, number][], set = 'perf'): FamilyDuel => ({
  a,
  b,
  set,
  at,
  families: fams.map(([family, par2A, par2B]) => ({ family, instances: 8, par2A, par2B })),
});

const near = (x: number, y: number) => Math.abs(x - y) < 1e-9;

describe('families against the parent', () => {
  it('multiplies the same-session ratios along the path, turning a duel round where the path walks from B to A', () => {
    // 1 was the champion; 2 was promoted over it (20% faster on f1, 10% slower on f2); 3 met 2 (50% slower on f1, 10% faster on f2).
    const duels = [
      duel(1, 2, '2026-01-01', [
        ['f1', 10, 8],
        ['f2', 10, 11],
      ]),
      duel(2, 3, '2026-01-02', [
        ['f1', 8, 12],
        ['f2', 20, 18],
      ]),
    ];
    const r = familiesAgainstParent(3, 1, duels)!;
    assert.deepEqual(r.via, [1, 2, 3]);
    const by = new Map(r.families.map((f) => [f.family, f.changePct]));
    assert.ok(near(by.get('f1')!, (0.8 * 1.5 - 1) * 100), `f1: ${by.get('f1')}`);
    assert.ok(near(by.get('f2')!, (1.1 * 0.9 - 1) * 100), `f2: ${by.get('f2')}`);
    // Slowest first.
    assert.deepEqual(
      r.families.map((f) => f.family),
      ['f1', 'f2'],
    );
    // The other way round: the parent against its descendant is the inverse.
    const back = familiesAgainstParent(1, 3, duels)!;
    assert.deepEqual(back.via, [3, 2, 1]);
    assert.ok(near(back.families.find((f) => f.family === 'f1')!.changePct, (1 / 1.2 - 1) * 100));
  });

  it('takes the later of two duels between the same candidates, and the shortest path', () => {
    const duels = [
      duel(5, 6, '2026-01-01', [['f1', 10, 20]]),
      duel(5, 6, '2026-01-03', [['f1', 10, 5]]),
      duel(5, 7, '2026-01-02', [['f1', 10, 10]]),
      duel(7, 6, '2026-01-02', [['f1', 10, 30]]),
    ];
    const r = familiesAgainstParent(6, 5, duels)!;
    assert.deepEqual(r.via, [5, 6]);
    assert.ok(near(r.families[0]!.changePct, -50));
  });

  it('gives nothing where the duels were on different sets, no path is measured, or no family is on every duel with one size', () => {
    assert.equal(familiesAgainstParent(3, 1, [duel(1, 2, 'x', [['f1', 1, 1]]), duel(2, 3, 'y', [['f1', 1, 1]], 'other')]), undefined);
    assert.equal(familiesAgainstParent(3, 1, [duel(1, 2, 'x', [['f1', 1, 1]]), duel(4, 3, 'y', [['f1', 1, 1]])]), undefined);
    // More than three duels apart: too far to say anything.
    const long = [duel(1, 2, 'a', [['f1', 1, 1]]), duel(2, 3, 'b', [['f1', 1, 1]]), duel(3, 4, 'c', [['f1', 1, 1]]), duel(4, 5, 'd', [['f1', 1, 1]])];
    assert.equal(familiesAgainstParent(5, 1, long), undefined);
    assert.ok(familiesAgainstParent(4, 1, long));
    const resized = duel(2, 3, 'y', [
      ['f1', 1, 2],
      ['f2', 1, 2],
    ]);
    const r = familiesAgainstParent(3, 1, [
      duel(1, 2, 'x', [
        ['f1', 1, 1],
        ['f2', 1, 1],
      ]),
      { ...resized, families: [resized.families[0]!, { ...resized.families[1]!, instances: 9 }] },
    ])!;
    assert.deepEqual(
      r.families.map((f) => f.family),
      ['f1'],
    );
    assert.equal(familiesAgainstParent(1, 1, [duel(1, 2, 'x', [['f1', 1, 1]])]), undefined);
  });
});
