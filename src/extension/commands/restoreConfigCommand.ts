// "SATLUTION: Restore satlution.yaml": puts back the last config that loaded, when satlution.yaml is
// gone but the store (.satlution/) remains, and warns once when the file disappears. Initializing such
// a folder again would start a second history beside the first.
import * as vscode from 'vscode';
import { z } from 'zod';
import { restoreConfig, RestoreConfigError, workspaceState } from '../../core/config/lastGood';
import { CONFIG_FILE } from '../../core/layout';
import type { WorkspaceSnapshot } from '../../core/workspace/snapshot';
import type { WorkspaceModel } from '../workspaceModel';
import { Disposable } from '../disposable';

export const RESTORE_ACTION = 'Restore satlution.yaml';

/** `{ dir }`: another folder than the open workspace (Initialize Workspace on a folder it was pointed at). */
const Args = z.object({ dir: z.string().min(1).optional() }).strict();

/** Restores the config of the model's workspace (or `dir`); returns the file written, or undefined (said why). */
export async function restoreConfigCommand(arg: unknown, model: WorkspaceModel): Promise<string | undefined> {
  const root = Args.safeParse(arg ?? {}).data?.dir ?? model.workspaceRoot;
  if (!root || (await workspaceState(root)) !== 'configMissing') {
    void vscode.window.showInformationMessage(`SATLUTION: ${CONFIG_FILE} is not missing; nothing to restore.`);
    return undefined;
  }
  try {
    const file = await restoreConfig(root);
    await model.refresh();
    void vscode.window.showInformationMessage(`SATLUTION: restored ${CONFIG_FILE} from the last copy that loaded.`);
    return file;
  } catch (e) {
    const known = e instanceof RestoreConfigError;
    void vscode.window.showErrorMessage(`SATLUTION: could not restore ${CONFIG_FILE}: ${(e as Error).message}`);
    if (!known) throw e;
    return undefined;
  }
}

/** Warns when the config disappears (once per disappearance, also when the window opens on such a folder). */
export class ConfigMissingWarning extends Disposable {
  private warned = false;

  constructor(model: WorkspaceModel) {
    super();
    this.register(model.onDidChange((s) => this.onSnapshot(s)));
  }

  private onSnapshot(s: WorkspaceSnapshot | undefined): void {
    if (!s?.configMissing) {
      this.warned = false;
      return;
    }
    if (this.warned) return;
    this.warned = true;
    const text = `SATLUTION: ${CONFIG_FILE} is missing. The candidates and their history are still in .satlution/.`;
    if (!s.configMissing.restorable) {
      void vscode.window.showWarningMessage(`${text} No copy of it was kept: write ${CONFIG_FILE} again (do not initialize, that starts a new history).`);
      return;
    }
    void vscode.window.showWarningMessage(text, RESTORE_ACTION).then((a) => {
      if (a === RESTORE_ACTION) void vscode.commands.executeCommand('satlution.restoreConfig');
    });
  }
}
