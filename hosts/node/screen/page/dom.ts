// The page's elements, found and typed once: markup that lost one fails at start, naming it.

/** The element with `id`, which must be a `type`. */
export function byId<T extends Element>(id: string, type: abstract new () => T): T {
  return checked(document.getElementById(id), `#${id}`, type);
}

/** The first element matching `selector`, which must be a `type`. */
export function bySelector<T extends Element>(selector: string, type: abstract new () => T): T {
  return checked(document.querySelector(selector), selector, type);
}

function checked<T extends Element>(element: Element | null, name: string, type: abstract new () => T): T {
  if (!(element instanceof type)) throw new Error(`the screen page has no ${name} (${type.name})`);
  return element;
}

/**
 * Sets `element`'s text when it differs from what it shows. Every state the event stream brings
 * is drawn whole, and the same text written again is a new text node the browser styles and lays
 * out anew: at a video's start, that frame's work would stand between the media's first bytes and
 * the page's main thread, which hands them to the player.
 */
export function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** Shows or hides `element` when it is not so already (as setText, for the same reason). */
export function setHidden(element: HTMLElement, hidden: boolean): void {
  if (element.hidden !== hidden) element.hidden = hidden;
}
