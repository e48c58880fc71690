// The example's worker: the npm package's core behind `patchbay/worker`,
// nothing of the playground's. The .wasm is the one the site serves (a
// bundle does not keep the package's files beside its own).
import { serve } from 'patchbay/worker';

serve(self, new URL('/pkg/patchbay_wasm_bg.wasm', self.location.origin));
