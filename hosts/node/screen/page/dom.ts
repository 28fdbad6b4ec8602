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
