import { readFileSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";

// Server actions as a crafted request reaches them: by the id in the build's manifest, posted to any page.

export interface BuiltAction {
  id: string;
  name: string;
  /** Source file, relative to the project. */
  file: string;
}

/** Every server action in the production build. */
export function builtActions(): BuiltAction[] {
  const manifest = JSON.parse(
    readFileSync(path.join(import.meta.dirname, "..", ".next", "server", "server-reference-manifest.json"), "utf8"),
  ) as {
    node: Record<string, { exportedName?: string; filename?: string }>;
  };
  return Object.entries(manifest.node).map(([id, entry]) => ({
    id,
    name: entry.exportedName ?? "",
    file: entry.filename ?? "",
  }));
}

/** Posts raw bytes to a server action the way Next.js's client does (text/plain JSON), headers overridable. */
export function postAction(
  request: APIRequestContext,
  action: BuiltAction,
  body: string | Buffer,
  headers: Record<string, string> = {},
) {
  return request.post("/", {
    headers: {
      "Next-Action": action.id,
      "Content-Type": "text/plain;charset=UTF-8",
      Accept: "text/x-component",
      ...headers,
    },
    data: body,
    maxRedirects: 0,
  });
}
