import type { FullConfig } from "@playwright/test";
import { build, buildIsStale } from "../scripts/processes";

// Builds the production dashboard if the sources changed since the last build. The servers are each worker's own
// (./fixtures.ts): started before its first test, stopped after its last.
export default async function globalSetup(config: FullConfig) {
  void config;
  if (buildIsStale()) await build();
}
