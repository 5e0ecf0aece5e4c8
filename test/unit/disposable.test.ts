// The adapter's Disposable base: what it promises its subclasses (it imports vscode for types only).
import * as assert from 'node:assert/strict';
import { Disposable } from '../../src/extension/disposable';

/** A subclass that registers what it is given. */
class Owner extends Disposable {
  add(d: { dispose(): void }) {
    return this.register(d);
  }
}

describe('adapter: the Disposable base', () => {
  it('disposes what was registered, last first, once', () => {
    const seen: string[] = [];
    const o = new Owner();
    for (const n of ['a', 'b', 'c']) o.add({ dispose: () => seen.push(n) });
    o.dispose();
    o.dispose();
    assert.deepEqual(seen, ['c', 'b', 'a']);
  });

  it('disposes the others when one throws, then throws', () => {
    const seen: string[] = [];
    const o = new Owner();
    o.add({ dispose: () => seen.push('a') });
    o.add({
      dispose: () => {
        throw new Error('boom');
      },
    });
    o.add({ dispose: () => seen.push('c') });
    assert.throws(() => o.dispose(), /boom/);
    assert.deepEqual(seen, ['c', 'a']);
  });

  it('disposes at once what is registered after disposal', () => {
    const o = new Owner();
    o.dispose();
    let disposed = false;
    o.add({ dispose: () => (disposed = true) });
    assert.equal(disposed, true);
  });
});
