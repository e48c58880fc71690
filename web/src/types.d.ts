// Modules the page's bundler (build.mjs) makes, declared for the type check.
declare module 'arena-tasks' {
  const tasks: { name: string; task: string; before: Record<string, string>; after: Record<string, string> }[];
  export default tasks;
}
