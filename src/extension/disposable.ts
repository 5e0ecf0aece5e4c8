// A base for the adapter's classes that own subscriptions, emitters, watchers and the like: each is
// registered once where it is created, and `dispose()` releases them all. In the style of VS Code's
// own `Disposable` (src/vs/base/common/lifecycle.ts, and the extensions' dispose.ts): registered items
// are disposed in reverse order (the last registered may depend on an earlier one), disposing twice
// does nothing, and one that throws does not keep the others from being disposed (the error is
// rethrown afterwards). Something registered after disposal is disposed at once.
import type * as vscode from 'vscode';

export abstract class Disposable implements vscode.Disposable {
  private readonly registered: vscode.Disposable[] = [];
  private disposed = false;

  /** True once `dispose()` has run. */
  protected get isDisposed(): boolean {
    return this.disposed;
  }

  /** Ties `d` to this object's lifetime; returns `d`. */
  protected register<T extends vscode.Disposable>(d: T): T {
    if (this.disposed) d.dispose();
    else this.registered.push(d);
    return d;
  }

  /** Subclasses with more to release (timers, a replaceable child) override this and call `super.dispose()`. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    disposeAll(this.registered);
  }
}

/** Disposes every item, last first, and empties the array; throws the error (or all of them) afterwards. */
export function disposeAll(items: vscode.Disposable[]): void {
  const errors: unknown[] = [];
  while (items.length) {
    try {
      items.pop()!.dispose();
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, 'Errors while disposing');
}
