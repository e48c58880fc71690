// What the editor adapters (patchbay/codemirror, patchbay/monaco) share:
// the matcher levels and their notes, and how a report or a stream's
// events name the receipts of one file. Internal: each adapter re-exports
// what its users see.

/** The matcher levels, strict to tolerant; each has the class `pb-level-LEVEL`. */
export const LEVELS = Object.freeze(['exact', 'trailing_ws', 'indent', 'blank_lines', 'tabs', 'unicode']);

/** What a level means, for legends, hovers and tooltips. */
export const LEVEL_NOTES = Object.freeze({
  exact: 'matched character for character',
  trailing_ws: 'matched with trailing whitespace ignored',
  indent: 'matched at another indentation',
  blank_lines: 'matched with blank lines ignored',
  tabs: 'matched with tabs and spaces treated alike',
  unicode: 'matched with look-alike characters (quotes, dashes) treated alike',
});

/**
 * The background of each level's lines and of a failed edit's closest
 * region, and the colour that marks what differs, in a light and a dark
 * theme: one palette for both editors.
 */
export const COLORS = Object.freeze({
  light: Object.freeze({
    exact: '#dcf5e3', trailing_ws: '#e5f3d0', indent: '#fbf0c9', blank_lines: '#fde3c8', tabs: '#f6d8ea', unicode: '#e3dcf8',
    closest: '#fbdada', mark: '#d33',
  }),
  dark: Object.freeze({
    exact: '#1f3d2a', trailing_ws: '#2c3d1f', indent: '#3d3519', blank_lines: '#40301c', tabs: '#3d2236', unicode: '#2e2645',
    closest: '#4a2224', mark: '#f66',
  }),
});

/** What an applied edit's mark says: its number and how its level matched. */
export function levelTitle(index, level) {
  return `edit ${index}: ${LEVEL_NOTES[level] ?? level}`;
}

/** The receipts of the file at `path` in `report` (none when it is not there). */
export function receiptsOf(report, path) {
  return report?.files?.find((f) => f.path === path)?.edits ?? [];
}

/** A stream's events so far for `path`, as a report of that one file: each edit located alone. */
export function reportOfEvents(events, path) {
  const edits = events.filter((e) => e.path === path).map((e) => e.receipt);
  return { files: [{ path, edits }] };
}
