// "SATLUTION: Add Sample Benchmarks": small sets with answers known by construction, written into the
// smoke, verify and perf sets that have no instance yet, so a first evaluation can run at once.
import * as vscode from 'vscode';
import { loadConfig } from '../../core/config/load';
import { candidateDirName } from '../../core/layout';
import { addSampleBenchmarks, type SampleSetResult } from '../../core/workspace/samples';
import type { WorkspaceModel } from '../workspaceModel';

/** Writes the samples and offers to evaluate the champion on them; returns what was written per set. */
export async function addSamples(model: WorkspaceModel): Promise<SampleSetResult[] | undefined> {
  const ws = model.workspaceRoot;
  if (!ws) {
    void vscode.window.showWarningMessage('SATLUTION: initialize a workspace first.');
    return undefined;
  }
  let results: SampleSetResult[];
  try {
    results = await addSampleBenchmarks(ws, await loadConfig(ws));
  } catch (e) {
    void vscode.window
      .showErrorMessage(`SATLUTION: no sample benchmarks: ${(e as Error).message.split('\n')[0]}`, 'Open satlution.yaml')
      .then((a) => a && vscode.commands.executeCommand('satlution.openConfig'));
    return undefined;
  }
  await model.refresh();
  const written = results.filter((r) => r.written);
  const kept = results.filter((r) => r.kept);
  const keptText = kept.length ? ` ${kept.map((r) => r.set).join(', ')} already had instances and ${kept.length > 1 ? 'were' : 'was'} left alone.` : '';
  if (!written.length) {
    void vscode.window.showInformationMessage(`SATLUTION: no sample was added:${keptText}`);
    return results;
  }
  const champion = model.snapshot?.champion ?? model.snapshot?.candidates.find((c) => c.seed)?.id;
  const evaluate = 'Evaluate the Seed';
  void vscode.window
    .showInformationMessage(
      `SATLUTION: sample benchmarks written: ${written.map((r) => `${r.set} ${r.written}`).join(', ')} (planted SAT and pigeonhole UNSAT, answers known by construction).${keptText}`,
      ...(champion !== undefined ? [evaluate] : []),
    )
    .then((a) => {
      if (a === evaluate && champion !== undefined)
        void vscode.commands.executeCommand('satlution.evaluateCandidate', { candidate: candidateDirName(champion) });
    });
  return results;
}
