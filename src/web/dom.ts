// Text from users (names, notes, chat) reaches the page only through textContent: never HTML.

type Attrs = Record<string, string | boolean | number | undefined>;
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

/** A labelled form field: the label names the control for screen readers and tests alike. */
export function field(
  label: string,
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  const wrapper = el('div', { class: 'field' }, el('label', { for: id, text: label }), control);
  if (hint) {
    const hintEl = el('p', { class: 'hint', id: `${id}-hint`, text: hint });
    control.setAttribute('aria-describedby', hintEl.id);
    wrapper.append(hintEl);
  }
  return wrapper;
}

/**
 * A role or state marker (Moderator, System, Muted): drawn by the client from a field of the
 * message, in an element of its own beside the name, never appended to the name's text, so
 * no name can look like one.
 */
export function badge(label: string, kind = 'role'): HTMLElement {
  return el('span', { class: `badge ${kind}`, text: label });
}

export function button(label: string, onClick: (event: MouseEvent) => void, attrs: Attrs = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs, text: label });
  b.addEventListener('click', onClick);
  return b;
}

export function show(root: HTMLElement, ...screens: Node[]): void {
  root.replaceChildren(...screens);
}
