// Compliance for a candidate of a workspace: its rules (.rules/), its parent (from the store) and the
// instance names and hashes of its benchmark sets. Shared by `satlution rules check`, the compliance
// gate of `satlution eval`, and the editor's diagnostics.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { listSet } from '../instances/instances';
import { primarySeed, type Config } from '../config/schema';
import { CandidateStore } from '../store/candidates';
import { candidateDirName, parseCandidateDir, RULES_DIR, SEEDS_DIR, STATE_DIR } from '../layout';
import { checkCompliance, type ComplianceReport, protectedChanges } from './check';
import { loadRules } from './loadRules';
import type { Phase } from './ruleSchema';

export async function checkCandidate(workspaceDir: string, config: Config, candidateDir: string, phase: Phase = 'pre-evaluation'): Promise<ComplianceReport> {
  const rules = await loadRules(path.join(workspaceDir, RULES_DIR));
  const parentDir = await judgedAgainst(workspaceDir, config, candidateDir);
  const instanceNames: string[] = [];
  for (const dir of Object.values(config.benchmarks)) for (const i of await listSet(path.resolve(workspaceDir, dir)).catch(() => [])) instanceNames.push(i.name);
  const instanceHashes = await knownHashes(workspaceDir);
  return checkCompliance({ dir: candidateDir, rules, phase, ...(parentDir ? { parentDir } : {}), instanceNames, instanceHashes });
}

/**
 * The protected paths of the rules (protected_path checks of the pre-evaluation phase) that differ
 * from the parent's, as lines: asked again after the build, whose code could have rewritten them.
 */
export async function protectedAfterBuild(workspaceDir: string, config: Config, candidateDir: string): Promise<string[]> {
  const rules = (await loadRules(path.join(workspaceDir, RULES_DIR))).filter((r) => r.phases.includes('pre-evaluation'));
  const globs = rules.flatMap((r) => r.checks.flatMap((c) => (c.kind === 'protected_path' && (!c.phases || c.phases.includes('pre-evaluation')) ? c.paths : [])));
  const parentDir = await judgedAgainst(workspaceDir, config, candidateDir);
  if (!globs.length || !parentDir) return [];
  return (await protectedChanges(candidateDir, parentDir, globs)).map((c) => c.message);
}

/**
 * The baseline a candidate is judged against: its parent; for a directory with no known parent (made
 * by hand, or found on disk) the primary seed, so it cannot pass as a trusted seed itself; none for a seed.
 */
async function judgedAgainst(workspaceDir: string, config: Config, candidateDir: string): Promise<string | undefined> {
  const id = parseCandidateDir(path.basename(candidateDir));
  let parentDir: string | undefined = path.join(workspaceDir, SEEDS_DIR, primarySeed(config).name);
  if (id !== undefined && path.dirname(path.resolve(candidateDir)) === path.resolve(workspaceDir)) {
    const { index } = await new CandidateStore(workspaceDir).load();
    const rec = index.candidates.find((c) => c.id === id);
    if (rec?.status === 'seed') parentDir = undefined;
    else if (rec?.parent !== null && rec?.parent !== undefined) parentDir = path.join(workspaceDir, candidateDirName(rec.parent));
  }
  if (parentDir && !(await fs.stat(parentDir).then((s) => s.isDirectory(), () => false))) parentDir = undefined;
  return parentDir;
}

/** Content hashes of instances the evaluator has seen (its cache index). */
async function knownHashes(workspaceDir: string): Promise<string[]> {
  try {
    const idx = JSON.parse(await fs.readFile(path.join(workspaceDir, STATE_DIR, 'cache', 'instances.json'), 'utf8')) as Record<string, { hash?: unknown }>;
    return Object.values(idx).flatMap((e) => (typeof e.hash === 'string' ? [e.hash] : []));
  } catch {
    return [];
  }
}
