import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL(".", import.meta.url)),
      // server-only throws outside React Server Components; unit tests run server code directly.
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: ["{lib,sandbox,components,app,scripts}/**/*.test.{ts,tsx}"],
    environment: "node",
    testTimeout: 60_000,
  },
});
