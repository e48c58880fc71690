/** What `init` accepts: a URL (or request) to fetch, a `Response`, the bytes, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;
/** What `initSync` accepts: the bytes or a compiled module. */
export type SyncInitInput = BufferSource | WebAssembly.Module;
export declare function wasmInput(input: InitInput | Promise<InitInput> | undefined, url: URL): Promise<InitInput>;
export declare function wasmInputSync(input: SyncInitInput | undefined, url: URL): SyncInitInput;
/** Compiles what `init` takes (a file: URL is read, any other fetched). */
export declare function compileModule(input: InitInput | Promise<InitInput>): Promise<WebAssembly.Module>;
/** The `init`/`initSync` pair of one module: loads its glue once, from `input` or the .wasm at `url`. */
export declare function loader(
  url: URL,
  glueInit: (options: { module_or_path: InitInput }) => Promise<unknown>,
  glueInitSync: (options: { module: SyncInitInput }) => unknown,
): {
  init(input?: InitInput | Promise<InitInput>): Promise<void>;
  initSync(input?: SyncInitInput): void;
  /** Instantiates the module `prepare` compiled and takes its `after` step in the same task. */
  initCompiled(prepare: () => Promise<{ module: WebAssembly.Module; after: () => void }>): Promise<void>;
};
