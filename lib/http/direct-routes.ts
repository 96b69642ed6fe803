import "server-only";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";

// A few machine-to-machine routes answered by plain Node beside Next.js, on the same server, port and path. Next.js
// costs several milliseconds of CPU a request before a route handler runs (routing, the proxy, its Request and
// Response objects): nothing to a person's page view, but a ceiling of a few hundred a second for the upstream's
// webhooks on two cores, where one verified event costs well under a millisecond (docs/decisions/direct-webhooks.md).
//
// Node publishes each request on the "http.server.request.start" diagnostics channel with its server, before the
// server's "request" listeners run (lib/http/in-flight-requests.ts learns the server the same way). The first time a
// server is seen, its listeners are put behind one that answers a registered method and exact path itself and hands
// every other request to them unchanged. Nothing else about the server (its upgrades, timeouts, shutdown) is touched.

export type DirectHandler = (request: IncomingMessage, response: ServerResponse) => void;

interface Shared {
  routes: Map<string, DirectHandler>;
  servers: WeakSet<Server>;
  subscribed?: boolean;
}
// The start-up and the route handlers are bundled apart, each with its own copy of this module: one state per process.
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.direct-routes")] ??= {
  routes: new Map(),
  servers: new WeakSet(),
});

const keyOf = (method: string | undefined, url: string | undefined) => {
  const target = url ?? "/";
  const query = target.indexOf("?");
  return `${method ?? "GET"} ${query === -1 ? target : target.slice(0, query)}`;
};

/** Answers `method path` (exact; any query string) with `handler` on every HTTP server of this process. */
export function serveDirectly(method: string, path: string, handler: DirectHandler): void {
  shared.routes.set(`${method} ${path}`, handler);
  if (shared.subscribed) return;
  shared.subscribed = true;
  subscribe("http.server.request.start", (message) => {
    const { server } = message as { server?: Server };
    if (server && !shared.servers.has(server)) {
      shared.servers.add(server);
      routeAround(server, shared.routes);
    }
  });
}

/** Puts `server`'s request listeners behind one that answers `routes` itself (exported for its tests). */
export function routeAround(server: Server, routes: ReadonlyMap<string, DirectHandler>): void {
  const others = server.listeners("request") as RequestListener[];
  server.removeAllListeners("request");
  server.on("request", function dispatch(this: Server, request: IncomingMessage, response: ServerResponse) {
    const handler = routes.get(keyOf(request.method, request.url));
    if (handler) return handler(request, response);
    for (const listener of others) listener.call(this, request, response);
  });
}
