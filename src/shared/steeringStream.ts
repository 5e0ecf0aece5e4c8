// The agents' live log as a bounded list, reduced the same way by the host (which keeps the recent
// history to replay to a reopened view) and by the webview (which applies the batches it is sent).
// No `vscode`, no Node APIs.
import { LIMITS, type StreamEntry, type StreamItem } from './steeringProtocol';

const ELLIPSIS = '…';

/** Keeps the tail of a text that grew past the limit, marking the cut. */
function tail(text: string, max: number): string {
  return text.length <= max ? text : ELLIPSIS + text.slice(text.length - max + ELLIPSIS.length);
}

/**
 * Appends items in place and returns the entries; the oldest are dropped past `maxEntries`. Consecutive
 * text of one role is one entry, so a stream of deltas is a growing paragraph, not thousands of rows.
 */
export function appendStream(entries: StreamEntry[], items: readonly StreamItem[], maxEntries: number = LIMITS.entries): StreamEntry[] {
  for (const it of items) {
    const last = entries[entries.length - 1];
    if (it.kind === 'text') {
      if (!it.text) continue;
      if (last?.kind === 'text' && last.role === it.role) last.text = tail(last.text + it.text, LIMITS.text);
      else entries.push({ kind: 'text', role: it.role, text: tail(it.text, LIMITS.text) });
    } else entries.push({ ...it });
  }
  if (entries.length > maxEntries) entries.splice(0, entries.length - maxEntries);
  return entries;
}

/** Merges consecutive text deltas of one role, so a batch posts a few items instead of many. */
export function compactItems(items: readonly StreamItem[]): StreamItem[] {
  const out: StreamItem[] = [];
  for (const it of items) {
    const last = out[out.length - 1];
    if (it.kind === 'text' && last?.kind === 'text' && last.role === it.role)
      out[out.length - 1] = { ...last, text: tail(last.text + it.text, LIMITS.text * 4) };
    else out.push({ ...it });
  }
  return out;
}
