// The bench's own unit tests (`npm test --prefix bench`): the pure parts of the runner and the
// report. Not part of the library's `npm test`, which never loads bench/.
import { defineConfig } from "vitest/config";

export default defineConfig({ test: { environment: "node", include: ["lib/**/*.test.ts"] } });
