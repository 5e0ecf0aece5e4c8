// DOM helpers shared by the webviews: elements are built with DOM APIs only; data is always set as
// text or as an attribute's value, never parsed as markup (no innerHTML), and no handler is inline
// (the views' CSP allows only their own nonce'd script).
export type Child = Node | string | null | undefined | false;

/** An element with these attributes and children; falsy children (null, false, '') are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c) el.append(c);
  return el;
}

/** A native `<button type="button">` with a text label. */
export function button(label: string, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** A plain button styled as a link (keyboard-reachable, no extra chrome). */
export function linkButton(label: string, onClick: () => void, o: { aria?: string; title?: string; cls?: string } = {}): HTMLButtonElement {
  return button(label, onClick, {
    class: `link${o.cls ? ` ${o.cls}` : ''}`,
    ...(o.aria ? { 'aria-label': o.aria } : {}),
    ...(o.title ? { title: o.title } : {}),
  });
}

let ids = 0;
/** A page-unique id for aria links (`prefix-1`, `prefix-2`, …). */
export const uid = (prefix: string): string => `${prefix}-${++ids}`;
