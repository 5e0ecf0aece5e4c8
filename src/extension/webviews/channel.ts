// A typed, validated message channel to one webview. Messages posted before the webview says
// `ready` are held back (only the latest state matters, so only the latest is kept) and delivered
// after the handshake; a view that is re-created after hiding says `ready` again and gets it again.
import * as vscode from 'vscode';
import type { z } from 'zod';
import { Disposable } from '../disposable';

export class WebviewChannel<Out, In extends { type: string }> extends Disposable {
  private ready = false;
  private latest: Out | undefined;

  constructor(
    private readonly webview: vscode.Webview,
    private readonly inbound: z.ZodType<In>,
    onMessage: (m: In) => void,
    private readonly log: (m: string) => void,
  ) {
    super();
    this.register(
      webview.onDidReceiveMessage((raw: unknown) => {
        const r = this.inbound.safeParse(raw);
        if (!r.success) return this.log(`Ignored a malformed webview message: ${r.error.issues[0]?.message ?? ''}`);
        if (r.data.type === 'ready') {
          this.ready = true;
          if (this.latest !== undefined) void this.webview.postMessage(this.latest);
        }
        onMessage(r.data);
      }),
    );
  }

  post(message: Out): void {
    this.latest = message;
    if (this.ready) void this.webview.postMessage(message);
  }
}
