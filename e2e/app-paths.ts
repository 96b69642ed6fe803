import { readdirSync } from "node:fs";
import path from "node:path";

// The app's pages and route handlers, found from the files, as URLs to request: a new page or route is covered by
// the specs that use this without anyone adding it to a list.

const APP = path.join(import.meta.dirname, "..", "app");

/** URL paths of every `page.tsx` (kind "page") or `route.ts` (kind "route"), dynamic segments filled from `samples`. */
export function appPaths(kind: "page" | "route", samples: Record<string, string>): string[] {
  const file = kind === "page" ? "page.tsx" : "route.ts";
  return (readdirSync(APP, { recursive: true }) as string[])
    .filter((entry) => path.basename(entry) === file)
    .map((entry) => {
      const segments = path
        .dirname(entry)
        .split(path.sep)
        .filter((segment) => segment !== "." && !/^\(.*\)$/.test(segment))
        .map((segment) => {
          const dynamic = /^\[(?:\.\.\.)?(\w+)\]$/.exec(segment);
          if (!dynamic) return segment;
          const sample = samples[dynamic[1]!];
          if (sample === undefined)
            throw new Error(`app/${entry}: no sample value for [${dynamic[1]}]; add one where appPaths is called`);
          return sample;
        });
      return `/${segments.join("/")}`;
    })
    .sort();
}
