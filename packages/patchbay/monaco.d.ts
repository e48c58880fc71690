import type { editor as monacoEditor } from 'monaco-editor';
import type { ApplyOptions, Files, Level, Position, Report, StreamEvent } from './index.js';

/** The matcher levels, strict to tolerant; each has the class `pb-level-LEVEL`. */
export declare const LEVELS: readonly Level[];
/** What a level means, for hovers and legends. */
export declare const LEVEL_NOTES: Readonly<Record<Level, string>>;

/** A position as Monaco counts it (columns from 1). */
export declare function toMonaco(pos: Position): { lineNumber: number; column: number };
/** The first and last line `from`-`to` cover (`to` past the last one's break; an insertion: the line at `from`). */
export declare function coveredLines(from: Position, to: Position): [number, number];
/** The decorations of `report` for the file at `path`: applied edits by level, failed ones' closest region and first difference. */
export declare function decorationsFromReport(report: Report | null | undefined, path: string): monacoEditor.IModelDeltaDecoration[];
/** The decorations of a stream's events so far for `path`: show them while the reply arrives. */
export declare function decorationsFromEvents(events: readonly StreamEvent[], path: string): monacoEditor.IModelDeltaDecoration[];
/** Shows `report`'s decorations for `path` in `editor`; `.clear()` on the result removes them. */
export declare function showReport(editor: monacoEditor.ICodeEditor, report: Report | null | undefined, path: string): monacoEditor.IEditorDecorationsCollection;
/** The result of `reply` with the edits in `rejected` left out: the engine run again with `skip`. */
export declare function keepOnly(files: Files, reply: string, options: ApplyOptions | null | undefined, rejected: Iterable<number>): Report;
/** Replaces the editor's text with `path`'s new text in `report` as one undo step; false when there is none. */
export declare function acceptReport(editor: monacoEditor.ICodeEditor, report: Report | null | undefined, path: string): boolean;
/** `original` against `result` in Monaco's diff editor under `parent`. */
export declare function diffView(
  monaco: { editor: Pick<typeof monacoEditor, 'createDiffEditor' | 'createModel'> },
  parent: HTMLElement,
  original: string,
  result: string,
  options?: monacoEditor.IStandaloneDiffEditorConstructionOptions,
): monacoEditor.IStandaloneDiffEditor;
/** The `lineNumbers` option that shows each line's `N:TAG`, else its number. */
export declare function tagLineNumbers(tags: readonly string[] | null | undefined): (lineNumber: number) => string;
/** The tags of a tag view text (`N:TAG content` lines), one a line. */
export declare function tagsFromView(view: string): string[];
/** A `<style>` with the classes' colours; add it once to the page. */
export declare function styleSheet(): HTMLStyleElement;
