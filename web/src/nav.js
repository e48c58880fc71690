// The section bar: one tab a panel, the shown one named in the address's
// query (`?panel=model`), so a link opens the page on it and Back returns
// to the one before. A hidden panel keeps its elements and their state; the
// editors and the result stay beside every panel. The hash is the case's
// (share.js) and is kept as it is.
import { PANELS } from './state.js';

/** @typedef {import('./state.js').Panel} Panel */

/**
 * The panel `search` (an address's query) names, or the first.
 * @param {string} search
 * @returns {Panel}
 */
export function panelFromQuery(search) {
  const name = new URLSearchParams(search).get('panel');
  return PANELS.find((p) => p === name) ?? PANELS[0];
}

/**
 * The address that shows `panel`, keeping the other query parameters and the hash.
 * @param {Location | URL} at
 * @param {Panel} panel
 */
export function addressOf(at, panel) {
  const url = new URL(at.href);
  url.searchParams.set('panel', panel);
  return `${url.search}${url.hash}`;
}

/**
 * Shows `panel` and marks its tab; every other panel is hidden. The bar's
 * page's `<body data-panel>` names it, for the layout.
 * @param {HTMLElement} bar the section bar, one `[data-panel]` link a panel
 * @param {ParentNode} root where the `#panel-NAME` elements are
 * @param {Panel} panel
 */
export function renderNav(bar, root, panel) {
  bar.ownerDocument.body.dataset.panel = panel;
  for (const tab of bar.querySelectorAll('[data-panel]')) {
    const on = tab instanceof HTMLElement && tab.dataset.panel === panel;
    tab.setAttribute('aria-selected', String(on));
    tab.setAttribute('tabindex', on ? '0' : '-1');
    // A narrow bar scrolls sideways: the shown tab is kept in it.
    if (on && tab.parentElement.scrollWidth > tab.parentElement.clientWidth) {
      tab.parentElement.scrollLeft = /** @type {HTMLElement} */ (tab).offsetLeft - tab.parentElement.offsetLeft - 16;
    }
  }
  for (const name of PANELS) {
    const element = root.querySelector(`#panel-${name}`);
    if (element instanceof HTMLElement) element.hidden = name !== panel;
  }
}

/**
 * Wires the bar: a click (or arrow keys on a focused tab) asks for a panel
 * with `pick(panel)`, which records it and renders; Back and Forward too.
 * @param {HTMLElement} bar
 * @param {(panel: Panel, how: 'click' | 'history') => void} pick
 */
export function setupNav(bar, pick) {
  bar.addEventListener('click', (e) => {
    const tab = e.target instanceof Element ? e.target.closest('[data-panel]') : null;
    if (!(tab instanceof HTMLElement) || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    pick(panelFromQuery(`?panel=${tab.dataset.panel}`), 'click');
  });
  bar.addEventListener('keydown', (e) => {
    const tab = e.target instanceof HTMLElement ? e.target : null;
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (!tab?.dataset.panel || !step) return;
    const i = PANELS.indexOf(panelFromQuery(`?panel=${tab.dataset.panel}`));
    const next = PANELS[(i + step + PANELS.length) % PANELS.length];
    pick(next, 'click');
    bar.querySelector(`[data-panel="${next}"]`)?.closest('a')?.focus();
  });
  addEventListener('popstate', () => pick(panelFromQuery(location.search), 'history'));
}
