// Turns a workspace snapshot into what the Overview webview shows (no vscode import: unit-testable).
import { unisolated } from '../../core/isolation/settings';
import * as path from 'node:path';
import { formatIssue } from '../../core/config/load';
import { candidateDirName } from '../../core/layout';
import type { CalibrationDoc } from '../../core/decide/calibration';
import { ruleInForce } from '../../core/dashboard/verdictsView';
import type { WorkspaceSnapshot } from '../../core/workspace/snapshot';
import type { Overview } from '../../shared/protocol';

/** `warnings`: by candidate directory, its latest evaluation's gates that checked nothing (WorkspaceModel.warnings); `calibration`: the kept noise band (WorkspaceModel.calibration); `cpuHere`: whether this machine measures CPU time (WorkspaceModel.cpuHere). */
export function toOverview(
  s: WorkspaceSnapshot | undefined,
  latestCount = 5,
  warnings: ReadonlyMap<string, string[]> = new Map(),
  calibration?: CalibrationDoc,
  cpuHere?: boolean,
): Overview {
  if (!s) return { state: 'none' };
  const champ = s.candidates.find((c) => c.champion);
  const counts: Partial<Record<(typeof s.candidates)[number]['status'], number>> = {};
  for (const c of s.candidates) counts[c.status] = (counts[c.status] ?? 0) + 1;
  const latest = [...s.candidates].sort((a, b) => b.id - a.id).slice(0, latestCount);
  // Only the candidates shown: the message stays small however many there are.
  const shown = [...(champ ? [champ] : []), ...latest].flatMap((c) => (warnings.has(c.dir) ? [[c.dir, warnings.get(c.dir)!] as const] : []));
  const rule = s.config.ok ? ruleInForce(s.config.config, calibration, cpuHere) : undefined;
  return {
    state: 'workspace',
    name: path.basename(s.dir),
    champion: champ ? { dir: champ.dir, status: champ.status, seed: champ.seed ?? null } : null,
    total: s.candidates.length,
    counts,
    latest: latest.map((c) => ({
      dir: c.dir,
      status: c.status,
      parent: c.parent === null ? null : candidateDirName(c.parent),
      updated: c.updated_at,
      missing: c.missing,
    })),
    warnings: Object.fromEntries(shown),
    config: s.config.ok
      ? { ok: true, problems: 0, first: null }
      : { ok: false, problems: s.config.issues.length, first: s.config.issues[0] ? formatIssue(s.config.issues[0]) : null },
    rule: rule ? { short: rule.short, full: rule.line, calibrated: rule.calibrated !== null } : null,
    unisolated: s.config.ok ? unisolated(s.config.config) : { workspace: false, runners: [] },
    seeds: s.seeds.map((x) => ({ name: x.name, files: x.files, source: x.source })),
    benchmarks: s.benchmarks.map((b) => ({ name: b.name, dir: b.dir, exists: b.exists, instances: b.instances, hasMeta: b.hasMeta })),
  };
}
