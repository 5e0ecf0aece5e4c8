import * as vscode from 'vscode';
import type { Approver } from '../core/ports';

/** Asks with a modal dialog; dismissing it means no. */
export const modalApprover: Approver = {
  async confirm(question, detail, yesLabel) {
    const yes = yesLabel ?? 'Yes';
    return (await vscode.window.showInformationMessage(question, { modal: true, ...(detail ? { detail } : {}) }, yes)) === yes;
  },
};
