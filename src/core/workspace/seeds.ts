// Importing a seed solver from a directory or a git URL into seeds/<name>/, a read-only baseline.
// Imports are staged beside the target and renamed into place, so an interrupted import leaves
// nothing that looks like a finished seed.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { simpleGit } from 'simple-git';
import { SEEDS_DIR } from '../layout';
import { copyCandidate } from './candidateCopy';

export interface SeedSpec {
  name: string;
  /** A directory, or a git URL with an optional `#ref` (branch, tag or commit). */
  source: string;
}

export interface ImportedSeed {
  name: string;
  source: string;
  dir: string;
  /** Commit of a git import (provenance). */
  commit?: string;
  files: number;
  bytes: number;
}

/** Parses `NAME=PATH_OR_GIT` (or a bare path/URL, naming the seed after its last component). */
export function parseSeedArg(arg: string): SeedSpec {
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)=(.+)$/.exec(arg);
  if (m) return { name: m[1]!, source: m[2]! };
  const base = path.basename(
    arg
      .replace(/#.*$/, '')
      .replace(/\/+$/, '')
      .replace(/\.git$/, ''),
  );
  const name = base.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  if (!name) throw new Error(`cannot name a seed after "${arg}"; use NAME=${arg}`);
  return { name, source: arg };
}

export function isGitUrl(source: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(source) || /^[\w.-]+@[\w.-]+:/.test(source) || /\.git(#.*)?$/.test(source);
}

export async function importSeed(workspaceDir: string, spec: SeedSpec, signal?: AbortSignal): Promise<ImportedSeed> {
  const target = path.join(workspaceDir, SEEDS_DIR, spec.name);
  if (await exists(target)) throw new Error(`seeds/${spec.name} already exists; remove it or import the seed under another name (NAME=${spec.source})`);
  const staging = path.join(workspaceDir, SEEDS_DIR, `.${spec.name}.importing`);
  await fs.rm(staging, { recursive: true, force: true });
  await fs.mkdir(path.dirname(staging), { recursive: true });
  let commit: string | undefined;
  try {
    if (isGitUrl(spec.source)) commit = await cloneInto(spec.source, staging, signal);
    else await copyDirInto(path.resolve(workspaceDir, spec.source), staging, workspaceDir);
    signal?.throwIfAborted();
    const { files, bytes } = await measure(staging);
    if (files === 0) throw new Error(`seed "${spec.name}" (${spec.source}) has no files`);
    await fs.rename(staging, target);
    return { name: spec.name, source: spec.source, dir: target, files, bytes, ...(commit ? { commit } : {}) };
  } catch (e) {
    await fs.rm(staging, { recursive: true, force: true });
    throw e;
  }
}

async function cloneInto(source: string, dest: string, signal?: AbortSignal): Promise<string> {
  const [url, ref] = source.split('#', 2) as [string, string | undefined];
  const git = simpleGit({ abort: signal });
  try {
    await git.clone(url, dest, ['--quiet', ...(ref ? [] : ['--depth', '1'])]);
    const repo = simpleGit({ baseDir: dest, abort: signal });
    if (ref) await repo.checkout(['--quiet', '--detach', ref]);
    const commit = (await repo.revparse(['HEAD'])).trim();
    await fs.rm(path.join(dest, '.git'), { recursive: true, force: true }); // a seed is a snapshot
    return commit;
  } catch (e) {
    const msg = (e as Error).message.trim().split('\n').filter(Boolean).slice(-2).join(' ');
    throw new Error(`git could not fetch seed ${source}: ${msg}`, { cause: e });
  }
}

async function copyDirInto(src: string, dest: string, workspaceDir: string): Promise<void> {
  const st = await fs.stat(src).catch(() => undefined);
  if (!st) throw new Error(`seed directory ${src} does not exist`);
  if (!st.isDirectory()) throw new Error(`seed source ${src} is not a directory or a git URL`);
  const rel = path.relative(src, path.resolve(workspaceDir));
  if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)))
    throw new Error(`seed directory ${src} contains the workspace itself; import the solver from its own directory`);
  // Links into the seed's own tree (a configure run there) are made relative; links elsewhere are refused.
  await copyCandidate(src, dest, { skip: (rel) => path.posix.basename(rel) === '.git' });
}

/** Copies a seed into a fresh candidate directory (writable, unlike the seed). */
export async function copySeedTo(seedDir: string, dest: string): Promise<void> {
  const staging = `${path.dirname(dest)}/.${path.basename(dest)}.partial`;
  await fs.rm(staging, { recursive: true, force: true });
  await copyCandidate(seedDir, staging);
  await setWritable(staging, true);
  await fs.rename(staging, dest);
}

/** Seeds are baselines: their files are made read-only so nothing edits them by accident. */
export async function setWritable(dir: string, writable: boolean): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const mode = (await fs.stat(file)).mode & 0o777;
    await fs.chmod(file, writable ? mode | 0o200 : mode & ~0o222);
  }
}

async function measure(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      files++;
      bytes += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
    }
  return { files, bytes };
}

const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );
