// "SATLUTION: Initialize Workspace": asks for the seed (a folder or a git URL) and its name, then runs
// the core's init with a cancellable progress notification. Accepts arguments for automation.
import * as vscode from 'vscode';
import * as path from 'node:path';
import { z } from 'zod';
import { initWorkspace, type InitResult } from '../../core/workspace/initWorkspace';
import { CONFIG_FILE } from '../../core/layout';
import { hasLastGoodConfig, workspaceState } from '../../core/config/lastGood';
import { isGitUrl, parseSeedArg, type SeedSpec } from '../../core/workspace/seeds';
import type { Logger } from '../../core/ports';
import { modalApprover } from '../approver';

/** Arguments for scripted use: `executeCommand('satlution.initializeWorkspace', { seeds: [...] })`. */
export const InitializeArgs = z
  .object({
    dir: z.string().optional(),
    seeds: z
      .array(z.object({ name: z.string(), source: z.string() }))
      .min(1)
      .optional(),
    /** Generate missing StarExec scripts without asking. */
    generate: z.boolean().optional(),
  })
  .strict();
export type InitializeArgs = z.infer<typeof InitializeArgs>;

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const CANCELLED = 'cancelled';

/** `restoreOffered`: the folder was a workspace whose satlution.yaml is gone; Restore was offered instead. */
export async function initializeWorkspace(raw: unknown, ctx: { rulesDir: string; log: Logger }): Promise<InitResult | 'restoreOffered' | undefined> {
  const parsed = InitializeArgs.safeParse(raw ?? {});
  if (!parsed.success) {
    void vscode.window.showErrorMessage(`SATLUTION: invalid arguments for Initialize Workspace: ${parsed.error.issues[0]?.message}`);
    return undefined;
  }
  const args = parsed.data;
  const dir = args.dir ?? (await pickFolder());
  if (!dir) return undefined;
  // A fresh init beside the store would start a second history and orphan the first: restore instead.
  if ((await workspaceState(dir)) === 'configMissing') {
    const restore = 'Restore satlution.yaml';
    const kept = await hasLastGoodConfig(dir);
    const text = `${dir} is a SATLUTION workspace whose ${CONFIG_FILE} is missing: its candidates and history are in .satlution/. ${kept ? 'Restore the last good copy instead of initializing again.' : `Write ${CONFIG_FILE} again instead of initializing (no copy of it was kept).`}`;
    void (kept ? vscode.window.showWarningMessage(`SATLUTION: ${text}`, restore) : vscode.window.showWarningMessage(`SATLUTION: ${text}`)).then((a) => {
      if (a === restore) void vscode.commands.executeCommand('satlution.restoreConfig', { dir });
    });
    return 'restoreOffered';
  }
  if (await exists(path.join(dir, CONFIG_FILE))) {
    const open = 'Open satlution.yaml';
    if ((await vscode.window.showInformationMessage(`${dir} is already a SATLUTION workspace.`, open)) === open)
      await vscode.window.showTextDocument(vscode.Uri.file(path.join(dir, CONFIG_FILE)));
    return undefined;
  }
  const seeds = args.seeds ?? (await askSeed());
  if (!seeds) return undefined;
  const approver = args.generate === undefined ? modalApprover : { confirm: async () => args.generate! };
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SATLUTION: Initializing workspace', cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort(new Error(CANCELLED)));
        try {
          return await initWorkspace({
            dir,
            seeds,
            defaultRulesDir: ctx.rulesDir,
            approver,
            log: ctx.log,
            signal: abort.signal,
            onStep: (message) => progress.report({ message }),
          });
        } finally {
          sub.dispose();
        }
      },
    );
    const generated = result.generated.length ? ` Generated ${result.generated.join(', ')} — review ${result.generated.length > 1 ? 'them' : 'it'}.` : '';
    const open = 'Open satlution.yaml';
    void vscode.window
      .showInformationMessage(`SATLUTION workspace ready: ${path.basename(result.candidateDir)} is the champion.${generated}`, open)
      .then(async (a) => {
        if (a === open) await vscode.window.showTextDocument(vscode.Uri.file(result.configFile));
      });
    return result;
  } catch (e) {
    const msg = (e as Error).message;
    if (msg === CANCELLED) {
      void vscode.window.showInformationMessage('SATLUTION: initialization cancelled; the folder is as it was.');
      return undefined;
    }
    ctx.log.error(`Initialize Workspace failed: ${msg}`);
    void vscode.window.showErrorMessage(`SATLUTION: could not initialize the workspace: ${msg}`);
    return undefined;
  }
}

async function pickFolder(): Promise<string | undefined> {
  const folders = vscode.workspace.workspaceFolders?.filter((f) => f.uri.scheme === 'file') ?? [];
  if (folders.length === 0) {
    const open = 'Open Folder';
    if ((await vscode.window.showWarningMessage('SATLUTION: open a folder to hold the workspace first.', open)) === open)
      await vscode.commands.executeCommand('vscode.openFolder');
    return undefined;
  }
  if (folders.length === 1) return folders[0]!.uri.fsPath;
  const f = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Folder to turn into a SATLUTION workspace' });
  return f?.uri.fsPath;
}

async function askSeed(): Promise<SeedSpec[] | undefined> {
  const title = 'SATLUTION: Initialize Workspace';
  const fromFolder = { label: '$(folder) Seed from a folder…', detail: "A solver's source tree on this machine, e.g. kissat or CaDiCaL" };
  const fromGit = { label: '$(repo) Seed from a git URL…', detail: 'Cloned; append #ref for a branch, tag or commit' };
  const how = await vscode.window.showQuickPick([fromFolder, fromGit], { title: `${title} (1/2)`, placeHolder: 'Where is the seed solver?' });
  if (!how) return undefined;
  let source: string | undefined;
  if (how === fromFolder) {
    const picked = await vscode.window.showOpenDialog({
      title: "Select the seed solver's source folder",
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
      openLabel: 'Use as seed',
    });
    source = picked?.[0]?.fsPath;
  } else {
    source = await vscode.window.showInputBox({
      title: `${title} (1/2)`,
      prompt: 'Git URL of the seed solver (optionally #branch, tag or commit)',
      placeHolder: 'https://example.org/solvers/kissat.git#rel-4.0.2',
      ignoreFocusOut: true,
      validateInput: (v) => (isGitUrl(v.trim()) ? undefined : 'Enter a git URL: https://…, ssh://…, git@host:path or file://…'),
    });
    source = source?.trim();
  }
  if (!source) return undefined;
  const name = await vscode.window.showInputBox({
    title: `${title} (2/2)`,
    prompt: 'Name of this seed (its baseline goes to seeds/<name>/)',
    value: safeName(source),
    ignoreFocusOut: true,
    validateInput: (v) => (NAME_RE.test(v) ? undefined : "Use letters, digits, '.', '_' or '-'"),
  });
  return name ? [{ name, source }] : undefined;
}

function safeName(source: string): string {
  try {
    return parseSeedArg(source).name;
  } catch {
    return 'seed';
  }
}

const exists = (p: string) =>
  vscode.workspace.fs.stat(vscode.Uri.file(p)).then(
    () => true,
    () => false,
  );
