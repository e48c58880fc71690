// The page's one DOM helper: every file finds its elements inside the root
// it is given (`byId`), checked to be the kind it uses, and builds new ones
// with `make`. A missing or mistyped element fails at setup with its id,
// not later as an `undefined` deep in a handler.

/**
 * The element `#id` inside `root`, checked to be a `type` (HTMLElement unless told).
 * @template {Element} [T=HTMLElement]
 * @param {ParentNode} root
 * @param {string} id
 * @param {new (...args: any[]) => T} [type]
 * @returns {T}
 */
export function byId(root, id, type) {
  const kind = type ?? /** @type {new (...args: any[]) => T} */ (/** @type {unknown} */ (HTMLElement));
  const found = root.querySelector(`#${CSS.escape(id)}`);
  if (!(found instanceof kind)) throw new Error(`the page has no ${kind.name} #${id}`);
  return found;
}

/**
 * A new `<tag>` with `props` assigned (`className`, `textContent`, `type`, ...),
 * `data` as its dataset, and `children` appended.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Partial<Omit<HTMLElementTagNameMap[K], 'dataset' | 'style'>> & { data?: Record<string, string> }} [props]
 * @param {...(Node | string)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function make(tag, props = {}, ...children) {
  const { data, ...rest } = props;
  const node = Object.assign(document.createElement(tag), rest);
  Object.assign(node.dataset, data ?? {});
  node.append(...children);
  return node;
}

/**
 * Sets `element`'s text to `text` unless it already holds it: a render that
 * runs each animation frame leaves an unchanged text (a long request) alone.
 * @param {Element} element
 * @param {string} text
 */
export function writeText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/** The object each element was last filled from (`fill`). */
const filledFrom = new WeakMap();

/**
 * Fills `parent` with `build()`'s nodes unless it already holds those built
 * from `from` (the same object): a render that redraws the rest of a panel
 * keeps these nodes, and with them the focus and a half-made selection.
 * @param {Element} parent
 * @param {object | null} from
 * @param {() => (Node | string)[]} build
 */
export function fill(parent, from, build) {
  if (from !== null && filledFrom.get(parent) === from) return;
  filledFrom.set(parent, from);
  parent.replaceChildren(...build());
}

/** The small secondary button of a card (a comparison's format, a lab lesson) that loads its text into the editors. */
export function loadButton(/** @type {string} */ testid, /** @type {string} */ text, /** @type {() => void} */ onClick) {
  const button = make('button', { type: 'button', className: 'secondary small', textContent: text, data: { testid } });
  button.addEventListener('click', onClick);
  return button;
}
