// The small secondary button of a card (a comparison's format, a lab
// lesson) that loads its text into the editors.

/** A `secondary small` button with `data-testid` `testid`, saying `text`, calling `onClick`. */
export function loadButton(testid, text, onClick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary small';
  button.dataset.testid = testid;
  button.textContent = text;
  button.addEventListener('click', onClick);
  return button;
}
