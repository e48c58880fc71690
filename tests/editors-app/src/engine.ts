// The engine's worker: the core behind patchbay/worker, and one method of
// its own: what it fetched (the test checks nothing is fetched twice).
import { serve } from 'patchbay/worker';

export const extra = {
  resources: () => performance.getEntriesByType('resource').map((e) => [e.name, (e as PerformanceResourceTiming).initiatorType]),
};

serve(self, undefined, extra);
