import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Test support: what a request can reach, found from the files on disk, so that a new action or route is called by
// the tests that go over all of them (lib/actions/fuzz.test.ts) without anyone listing it. Every export of a
// "use server" module in lib/actions/, every app/**/route.ts and the HTTP methods it exports. Import it after the
// test file's vi.mock calls have been registered (they are hoisted, so any import in a test file is).

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

export type AnyAction = (...args: unknown[]) => Promise<unknown>;
export type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string | string[]>> },
) => Promise<Response> | Response;

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/** The "use server" modules of lib/actions/, by file name. */
export function actionFiles(): string[] {
  const dir = path.join(ROOT, "lib", "actions");
  return readdirSync(dir)
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .filter((file) => /^\s*["']use server["']/.test(readFileSync(path.join(dir, file), "utf8")))
    .sort();
}

/** Every server action, by its exported name. */
export async function loadActions(): Promise<Record<string, AnyAction>> {
  const actions: Record<string, AnyAction> = {};
  for (const file of actionFiles()) {
    const exported = (await import(/* @vite-ignore */ path.join(ROOT, "lib", "actions", file))) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(exported))
      if (typeof value === "function") actions[name] = value as AnyAction;
  }
  return actions;
}

/** Every route handler file, as `app/…/route.ts`. */
export function routeFiles(): string[] {
  return (readdirSync(path.join(ROOT, "app"), { recursive: true }) as string[])
    .filter((file) => file.endsWith(`${path.sep}route.ts`) || file === "route.ts")
    .map((file) => `app/${file.split(path.sep).join("/")}`)
    .sort();
}

/** A route file's handlers, by HTTP method. */
export async function loadRoute(file: string): Promise<Partial<Record<(typeof HTTP_METHODS)[number], RouteHandler>>> {
  const exported = (await import(/* @vite-ignore */ path.join(ROOT, file))) as Record<string, unknown>;
  return Object.fromEntries(
    HTTP_METHODS.filter((method) => typeof exported[method] === "function").map((method) => [
      method,
      exported[method] as RouteHandler,
    ]),
  );
}

/** A route file's dynamic segments, as Next.js names its params: `[jobId]` is jobId, `[...nextauth]` is nextauth. */
export function routeParams(file: string): { name: string; catchAll: boolean }[] {
  return [...file.matchAll(/\[(\.\.\.)?([^\]]+)\]/g)].map((match) => ({
    name: match[2]!,
    catchAll: Boolean(match[1]),
  }));
}

/** The URL path a route file serves, with each dynamic segment filled in by `fill` (already %-escaped). */
export function routePath(file: string, fill: (name: string) => string): string {
  return (
    file
      .replace(/^app/, "")
      .replace(/\/route\.ts$/, "")
      // Route groups, "(dashboard)", are not part of the URL.
      .replace(/\/\([^)]+\)/g, "")
      .replace(/\[(?:\.\.\.)?([^\]]+)\]/g, (_, name: string) => fill(name)) || "/"
  );
}
