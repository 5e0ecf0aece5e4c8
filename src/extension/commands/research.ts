// Editor commands around the search itself: exporting the agents' trajectories for fine-tuning, and
// the consensus objective portfolio (a starting set, or one written by the judge model). The same
// engine functions as `satlution export` and `satlution objectives`.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { loadConfig } from '../../core/config/load';
import { exportTrajectories } from '../../core/export/trajectories';
import { apiKeyFromEnv, createClient } from '../../core/llm/factory';
import { addObjective, DEFAULT_OBJECTIVES } from '../../core/objectives/portfolio';
import { proposeObjective } from '../../core/objectives/propose';
import type { Logger } from '../../core/ports';
import type { WorkspaceModel } from '../workspaceModel';
import { secretKey } from './apiKey';

const ExportArgs = z.object({ file: z.string().min(1) }).strict();

export async function exportTrajectoriesCommand(arg: unknown, model: WorkspaceModel): Promise<{ file: string; sessions: number } | undefined> {
  const ws = model.workspaceRoot;
  if (!ws) return void vscode.window.showWarningMessage('SATLUTION: open a SATLUTION workspace first.');
  const given = ExportArgs.safeParse(arg ?? {});
  const file = given.success
    ? given.data.file
    : (
        await vscode.window.showSaveDialog({
          title: 'SATLUTION: Export Trajectories',
          defaultUri: vscode.Uri.file(path.join(ws, 'trajectories.jsonl')),
          filters: { 'JSON Lines': ['jsonl'] },
        })
      )?.fsPath;
  if (!file) return undefined;
  const records = await exportTrajectories(ws);
  await fs.writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : ''));
  const rewarded = records.filter((r) => r.metadata.reward !== null).length;
  void vscode.window.showInformationMessage(
    `SATLUTION: exported ${records.length} agent session${records.length === 1 ? '' : 's'} (${rewarded} with a reward) to ${path.basename(file)}.${records.length ? '' : ' The offline tuner keeps no transcripts; LLM agents do.'}`,
  );
  return { file, sessions: records.length };
}

export async function addDefaultObjectives(model: WorkspaceModel): Promise<string[] | undefined> {
  const ws = model.workspaceRoot;
  if (!ws) return void vscode.window.showWarningMessage('SATLUTION: open a SATLUTION workspace first.');
  for (const o of DEFAULT_OBJECTIVES) await addObjective(ws, { ...o, author: 'person' });
  const names = DEFAULT_OBJECTIVES.map((o) => o.name);
  void vscode.window.showInformationMessage(`SATLUTION: objectives ${names.join(', ')} added; the dashboard's Strategy tab shows their consensus.`);
  return names;
}

export async function proposeObjectiveCommand(model: WorkspaceModel, secrets: vscode.SecretStorage, log: Logger): Promise<string | undefined> {
  const ws = model.workspaceRoot;
  if (!ws) return void vscode.window.showWarningMessage('SATLUTION: open a SATLUTION workspace first.');
  try {
    const config = await loadConfig(ws);
    const m = config.models.judge ?? config.models.planner;
    if (!m) throw new Error('proposing an objective needs a model: set models.judge (or models.planner) in satlution.yaml');
    const key = (await secrets.get(secretKey(m.provider))) ?? apiKeyFromEnv(m);
    const e = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'SATLUTION: the model is writing an objective', cancellable: true },
      (_p, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return proposeObjective(ws, createClient(m, key), { signal: abort.signal });
      },
    );
    log.info(`Objective ${e.name} added (by the model): ${e.rationale}`);
    void vscode.window.showInformationMessage(`SATLUTION: objective ${e.name} added: ${e.rationale}`);
    return e.name;
  } catch (err) {
    log.error(`Proposing an objective failed: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(`SATLUTION: ${(err as Error).message}`);
    return undefined;
  }
}
