// Copy buttons: the clipboard when the page may write it, else a selection
// for Ctrl+C. The label says which happened.

/** Makes `button` copy `text()`; `select()` selects the text when the clipboard is refused. */
export function copyButton(button, text, select) {
  const label = button.textContent;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = 'Copied';
    } catch {
      // No clipboard permission (an insecure origin, a denied prompt).
      select?.();
      button.textContent = select ? 'Selected' : 'Copy failed';
    }
    setTimeout(() => (button.textContent = label), 1500);
  });
}
