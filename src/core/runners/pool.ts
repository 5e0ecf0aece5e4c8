// The local runner's heart: N slots, each taking the next task as soon as it is free.
export async function runPool<T>(tasks: T[], slots: number, work: (t: T, slot: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  let failure: unknown;
  const slot = async (index: number) => {
    while (next < tasks.length && failure === undefined && !signal?.aborted) {
      const t = tasks[next++]!;
      try {
        await work(t, index);
      } catch (e) {
        failure ??= e; // stop handing out work; runs in flight finish or are aborted by the caller
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(slots, tasks.length)) }, (_, i) => slot(i)));
  if (failure !== undefined) throw failure;
}
