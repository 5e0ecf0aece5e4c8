// The last satlution.yaml that loaded, kept in the store (`.satlution/config.last-good.yaml`), so a
// deleted or mangled config can be put back without re-initializing, which would orphan the history.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic';
import { CONFIG_FILE, STATE_DIR } from '../layout';

/** Where the copy lives, relative to the workspace. */
export const LAST_GOOD_CONFIG = path.join(STATE_DIR, 'config.last-good.yaml');

/** What a folder is to SATLUTION: a workspace, one whose config is gone but whose store remains, or neither. */
export type WorkspaceState = 'workspace' | 'configMissing' | undefined;

const isFile = (p: string) =>
  fs.stat(p).then(
    (s) => s.isFile(),
    () => false,
  );

/** The store's index marks a folder that was a workspace, whatever happened to its config since. */
export async function workspaceState(dir: string): Promise<WorkspaceState> {
  if (await isFile(path.join(dir, CONFIG_FILE))) return 'workspace';
  return (await isFile(path.join(dir, STATE_DIR, 'candidates.json'))) ? 'configMissing' : undefined;
}

/**
 * Keeps `text` (a config that just loaded) as the last good copy. Writes only when it differs, and
 * only into an existing store: loading a config must never create a workspace's state by itself.
 * A failure to keep the copy is no reason to fail the load: it is best effort.
 */
export async function rememberConfig(workspaceDir: string, text: string): Promise<void> {
  const state = path.join(workspaceDir, STATE_DIR);
  if (
    !(await fs.stat(state).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return;
  const file = path.join(workspaceDir, LAST_GOOD_CONFIG);
  if ((await fs.readFile(file, 'utf8').catch(() => undefined)) === text) return;
  await writeFileAtomic(file, text).catch(() => undefined);
}

/** Whether a last good copy exists to restore from. */
export const hasLastGoodConfig = (workspaceDir: string): Promise<boolean> => isFile(path.join(workspaceDir, LAST_GOOD_CONFIG));

/** Why a restore cannot happen, in words a person can act on. */
export class RestoreConfigError extends Error {}

/** Puts the last good copy back as satlution.yaml (atomically); refuses to overwrite an existing config. */
export async function restoreConfig(workspaceDir: string): Promise<string> {
  const target = path.join(workspaceDir, CONFIG_FILE);
  if (await isFile(target)) throw new RestoreConfigError(`${target} exists; nothing to restore`);
  const text = await fs.readFile(path.join(workspaceDir, LAST_GOOD_CONFIG), 'utf8').catch(() => undefined);
  if (text === undefined)
    throw new RestoreConfigError(
      `no last good copy of ${CONFIG_FILE} in ${path.join(workspaceDir, STATE_DIR)}; write ${CONFIG_FILE} by hand (the schema: \`satlution schema\`)`,
    );
  await writeFileAtomic(target, text);
  return target;
}
