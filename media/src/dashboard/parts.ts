// Building blocks the tabs share: an empty state, a chart box with its hidden summary, toolbars,
// checkboxes and stat cards.
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import { h, uid, type Child } from '../shared/dom';

/** A dashed box saying what would fill the view. */
export function empty(text: string, hint?: string): HTMLElement {
  return h('div', { class: 'empty-state' }, h('p', {}, text), hint && h('p', { class: 'muted' }, hint));
}

/** A sized box for a chart's canvas, with a visually hidden summary of its data for screen readers. */
export function chartBox(el: HTMLElement, aria: string, summary: Child[], height: number): HTMLCanvasElement {
  const id = uid('summary');
  const canvas = h('canvas', { role: 'img', 'aria-label': aria, 'aria-describedby': id });
  const box = h('div', { class: 'chart-box' }, canvas);
  box.style.height = `${height}px`;
  el.append(box, h('div', { id, class: 'visually-hidden' }, ...summary));
  return canvas;
}

/** A chart's height for this window, at least `min`. */
export const chartHeight = (min = 300) => Math.max(min, Math.min(560, Math.round(window.innerHeight * 0.56)));

/** A row of controls above a chart. */
export function toolbar(...children: Child[]): HTMLElement {
  return h('div', { class: 'toolbar' }, ...children);
}

/** A labelled checkbox that reports its new state. */
export function checkbox(text: string, checked: boolean, onChange: (v: boolean) => void): HTMLElement {
  const c = h('vscode-checkbox', {});
  c.label = text;
  c.checked = checked;
  c.addEventListener('change', () => onChange(c.checked));
  return c;
}

/** A figure with its name below. */
export function stat(name: string, value: string): HTMLElement {
  return h('div', { class: 'stat' }, h('div', { class: 'stat-value' }, value), h('div', { class: 'stat-name muted' }, name));
}
