// Which candidates were last measured on another version of the perf set: their PAR-2 is not
// comparable with one measured now (a champion timed on the old set makes every challenger look
// slower, or faster), so views mark them instead of letting the figures mislead.
import * as path from 'node:path';
import { setDir, type Config } from '../config/schema';
import { InstanceCache } from '../instances/instances';
import { cnfFiles } from '../instances/sets';
import { setVersion } from '../instances/setVersion';
import { STATE_DIR } from '../layout';
import { measuredInFull, type EvalDoc } from './evalDoc';
import { EvalStore } from './evalStore';

/**
 * By candidate directory: why its latest evaluation's perf figures are from another version of the
 * perf set. Documents with a recorded set version are compared by version; older ones (no version)
 * only when they measured the whole set, by its instance names. Candidates whose perf never ran, or
 * a set that cannot be read, are left out: there is nothing to say about them.
 */
export async function stalePerfMeasurements(ws: string, config: Config, dirs: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const store = new EvalStore(ws);
  const docs = (await Promise.all(dirs.map(async (d) => [d, await store.get(d)] as const))).filter(
    (x): x is readonly [string, EvalDoc] => x[1] !== undefined && ranPerf(x[1]),
  );
  if (!docs.length) return out;
  const dir = setDir(config, ws, config.stages.perf.set);
  const now = await setVersion(dir, new InstanceCache(path.join(ws, STATE_DIR, 'cache')));
  if (!now) return out;
  let names: Set<string> | undefined;
  for (const [d, doc] of docs) {
    if (doc.perf_set) {
      if (doc.perf_set.version !== now.version)
        out.set(
          d,
          `measured on an older perf set (${doc.perf_set.instances} instances, version ${doc.perf_set.version}); it now has ${now.instances} (version ${now.version})`,
        );
      continue;
    }
    if (!measuredInFull(doc)) continue;
    names ??= new Set(((await cnfFiles(dir)) ?? []).map((f) => f.name));
    const then = new Set(doc.instances.map((r) => r.instance));
    if (then.size !== names.size || [...then].some((n) => !names!.has(n)))
      out.set(d, `measured on an older perf set (${then.size} instances); it now has ${names.size}, not all the same`);
  }
  return out;
}

/** Whether the document's figures come from the perf gate (it ran, so `instances` holds perf's results). */
const ranPerf = (doc: EvalDoc): boolean => doc.gates.some((g) => g.gate === 'perf');
