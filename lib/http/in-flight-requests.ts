import "server-only";
import { subscribe } from "node:diagnostics_channel";
import type { Server, ServerResponse } from "node:http";

// The HTTP part of a graceful shutdown. `next start` owns its HTTP server and, with NEXT_MANUAL_SIG_HANDLE set (so
// that Linkdesk's shutdown decides when the process ends), no longer closes it on SIGTERM. Node publishes every
// request it starts on the "http.server.request.start" diagnostics channel, with its server and response: that is how
// Linkdesk learns the server and which requests are in flight, without reaching into Next.js.

interface Shared {
  servers: Set<Server>;
  inFlight: Set<ServerResponse>;
  subscribed?: boolean;
  draining?: boolean;
  onIdle?: () => void;
}
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.in-flight-requests")] ??= {
  servers: new Set(),
  inFlight: new Set(),
});

interface RequestStart {
  server: Server;
  response: ServerResponse;
}

/** Starts following this process's HTTP requests (once; the server's start-up calls it). */
export function trackHttpRequests(): void {
  if (shared.subscribed) return;
  shared.subscribed = true;
  subscribe("http.server.request.start", (message) => {
    const { server, response } = message as RequestStart;
    if (!shared.servers.has(server)) {
      shared.servers.add(server);
      if (shared.draining) server.close();
    }
    shared.inFlight.add(response);
    response.once("close", () => {
      shared.inFlight.delete(response);
      // Its keep-alive connection is idle now: close it, so the client opens its next one elsewhere.
      if (shared.draining) server.closeIdleConnections();
      if (shared.inFlight.size === 0) shared.onIdle?.();
    });
  });
}

/** Requests being answered right now. */
export function requestsInFlight(): number {
  return shared.inFlight.size;
}

/**
 * Stops accepting connections and resolves once every request in flight has been answered (or `signal` aborts).
 * Idle keep-alive connections are closed at once, busy ones as soon as their response is complete.
 */
export async function drainHttpRequests(signal: AbortSignal): Promise<void> {
  shared.draining = true;
  for (const server of shared.servers) {
    server.close();
    server.closeIdleConnections();
  }
  if (shared.inFlight.size > 0 && !signal.aborted) {
    await new Promise<void>((resolve) => {
      shared.onIdle = resolve;
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
  }
  shared.onIdle = undefined;
}
