// The example's worker: the npm package's core behind `patchbay/worker`,
// nothing of the playground's. The .wasm files (the core's two parts) are
// the ones the site serves (a bundle does not keep the package's files
// beside its own).
import { serve } from 'patchbay/worker';

serve(self, new URL('/pkg/patchbay_wasm_bg.wasm', self.location.origin), {}, {
  rest: new URL('/pkg/patchbay_wasm_rest.wasm', self.location.origin),
});
