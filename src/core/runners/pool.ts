// The local runner's heart: N slots, each taking the next task as soon as it is free.

/** Work a free slot takes before its next task (the perf audit's checks); undefined when none waits. */
export type Between = () => (() => Promise<void>) | undefined;

/** Runs `tasks` on `slots` slots; `between`'s work, when there is any, goes first in a slot that comes free. */
export async function runPool<T>(
  tasks: T[],
  slots: number,
  work: (t: T, slot: number) => Promise<void>,
  signal?: AbortSignal,
  between?: Between,
): Promise<void> {
  let next = 0;
  let failure: unknown;
  const slot = async (index: number) => {
    while (next < tasks.length && failure === undefined && !signal?.aborted) {
      const extra = between?.();
      try {
        if (extra) await extra();
        else await work(tasks[next++]!, index);
      } catch (e) {
        failure ??= e; // stop handing out work; runs in flight finish or are aborted by the caller
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(slots, tasks.length)) }, (_, i) => slot(i)));
  if (failure !== undefined) throw failure;
}
