// "SATLUTION: Set API Key": a provider's key in SecretStorage, never in settings, logs or webviews. A
// key for a provider no model of satlution.yaml uses would go unused (the next cycle would run the
// tuner), so it then offers Configure Models for that provider.
import * as vscode from 'vscode';
import { z } from 'zod';
import { loadConfig } from '../../core/config/load';
import { Provider } from '../../core/config/schema';
import type { WorkspaceModel } from '../workspaceModel';

/** Where a provider's key is kept in SecretStorage. */
export const secretKey = (provider: string) => `satlution.apiKey.${provider}`;

/** From scripts, Configure Models and the palette (every field asked for when absent). */
const SetKeyArgs = z.object({ provider: Provider.optional(), key: z.string().min(1).optional(), offerModels: z.boolean().optional() }).strict();

/** Stores the key; true when stored. */
export async function setApiKey(raw: unknown, secrets: vscode.SecretStorage, model: WorkspaceModel): Promise<boolean> {
  const given = SetKeyArgs.safeParse(raw ?? {}).data ?? {};
  const provider =
    given.provider ??
    Provider.safeParse(await vscode.window.showQuickPick(Provider.options, { title: 'SATLUTION: Set API Key', placeHolder: 'For which provider?' })).data;
  if (!provider) return false;
  const key =
    given.key ??
    (await vscode.window.showInputBox({
      title: `SATLUTION: API key for ${provider}`,
      password: true,
      ignoreFocusOut: true,
      prompt: "Stored in VS Code's SecretStorage (the OS keychain where available).",
    }));
  if (!key?.trim()) return false;
  await secrets.store(secretKey(provider), key.trim());
  const ws = model.workspaceRoot;
  const config = ws ? await loadConfig(ws).catch(() => undefined) : undefined;
  const used = config ? [config.models.planner, config.models.coder].some((m) => m?.provider === provider) : true;
  const configure = 'Configure Models…';
  if (!used && given.offerModels !== false)
    void vscode.window
      .showInformationMessage(
        `SATLUTION: API key for ${provider} stored, but no model in satlution.yaml uses ${provider}: cycles would run the offline tuner.`,
        configure,
      )
      .then((a) => {
        if (a === configure) void vscode.commands.executeCommand('satlution.configureModels', { provider });
      });
  else if (given.key === undefined) void vscode.window.showInformationMessage(`SATLUTION: API key for ${provider} stored.`);
  return true;
}
