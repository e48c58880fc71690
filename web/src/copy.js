// Copy buttons: the clipboard when the page may write it, else a selection
// for Ctrl+C. The label says which happened, for a moment.

/**
 * Makes `button` copy `text()`; `select()` selects the text when the clipboard is refused.
 * @param {HTMLButtonElement} button
 * @param {() => string} text
 * @param {() => void} [select]
 */
export function copyButton(button, text, select) {
  const label = button.textContent;
  /** What the button says happened, until it shows its label again (null: its label). */
  const state = { said: /** @type {string | null} */ (null) };
  const render = () => {
    button.textContent = state.said ?? label;
  };
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      state.said = 'Copied';
    } catch {
      // No clipboard permission (an insecure origin, a denied prompt).
      select?.();
      state.said = select ? 'Selected' : 'Copy failed';
    }
    render();
    setTimeout(() => {
      state.said = null;
      render();
    }, 1500);
  });
}
