// Matches a method and path against the route table; knows a path that exists for other methods (405, not 404).
import type { Route } from "./context";

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

export type RouteMatch =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "method_not_allowed"; allowed: string[] }
  | { kind: "not_found" };

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const source = route.template
        .split("/")
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment);
          if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
          names.push(param[1]);
          return "([^/]+)";
        })
        .join("/");
      return { route, pattern: new RegExp(`^${source}/?$`), names };
    });
  }

  match(method: string, path: string): RouteMatch {
    const allowed: string[] = [];
    for (const { route, pattern, names } of this.compiled) {
      const found = pattern.exec(path);
      if (!found) continue;
      if (route.method !== method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = safeDecode(found[i + 1] ?? "");
      });
      return { kind: "found", route, params };
    }
    return allowed.length > 0 ? { kind: "method_not_allowed", allowed } : { kind: "not_found" };
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
