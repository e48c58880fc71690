import type { Extension, StateEffectType, Text } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import type { MergeView } from '@codemirror/merge';
import type { Code, Level, Position, Report, StreamEvent } from './index.js';

/** The matcher levels, strict to tolerant; each has the class `pb-level-LEVEL`. */
export declare const LEVELS: readonly Level[];
/** What a level means, for legends and tooltips. */
export declare const LEVEL_NOTES: Readonly<Record<Level, string>>;

/** An applied edit's range in the original, by the level that found it. */
export interface AppliedMatch {
  index: number;
  from: Position;
  to: Position;
  level: Level;
  failed?: undefined;
}
/** A failed edit's closest region, and the first character where it differs from the edit's old text. */
export interface FailedMatch {
  index: number;
  from: Position;
  to: Position;
  failed: true;
  code: Code;
  similarity: number;
  difference?: Position;
}
export type Match = AppliedMatch | FailedMatch;

/** The offset of a receipt's position in `doc`, clamped to it (one more on line 1 when the document keeps a BOM). */
export declare function offsetOf(doc: Text, pos: Position): number;
/** Replaces the decorated matches. */
export declare const setMatches: StateEffectType<readonly Match[]>;
/** The matches of `report` in the file at `path`: applied edits by level, failed ones at their closest region. */
export declare function matchesFromReport(report: Report | null | undefined, path: string): Match[];
/** The matches of a stream's events so far in the file at `path`: decorate them while the reply arrives. */
export declare function matchesFromEvents(events: readonly StreamEvent[], path: string): Match[];
/** Match decorations and their theme; add `tagGutter()` where tags are wanted. */
export declare function patchbayMatches(): Extension;

/** Replaces the gutter's tags: one `N:TAG` string a line, or null to clear. */
export declare const setTags: StateEffectType<readonly string[] | null>;
/** The tags of a tag view text (`N:TAG content` lines), one a line. */
export declare function tagsFromView(view: string): string[];
/** The `N:TAG` gutter. */
export declare function tagGutter(): Extension;

/**
 * An editor showing the result against `original` as one unified diff, with Accept/Reject on each change,
 * each change labelled with the edit of `matches` that made it; `onChange(doc)` hears every decision.
 */
export declare function reviewExtensions(original: string, onChange?: (doc: string) => void, matches?: readonly Match[]): Extension;
/** Accepts every change edit `index` made in a review; false when it made none left to decide. */
export declare function acceptEdit(view: EditorView, matches: readonly Match[], index: number): boolean;
/** Reverts every change edit `index` made in a review; false when it made none left to decide. */
export declare function rejectEdit(view: EditorView, matches: readonly Match[], index: number): boolean;
/** Replaces the document with `path`'s new text in `report` in one transaction; false when there is none. */
export declare function acceptResult(view: EditorView, report: Report | null | undefined, path: string): boolean;
/** Side by side: `original` left, `result` right, with revert buttons. */
export declare function sideBySide(parent: HTMLElement, original: string, result: string, extensions?: Extension): MergeView;
