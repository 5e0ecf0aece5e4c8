// The webview side of VS Code's message API, typed by each view's outbound message contract.
export interface VsCodeApi<Out> {
  postMessage(m: Out): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi<unknown>;

/** Call once per page (VS Code allows one acquisition). */
export function vscodeApi<Out>(): VsCodeApi<Out> {
  return acquireVsCodeApi() as VsCodeApi<Out>;
}
