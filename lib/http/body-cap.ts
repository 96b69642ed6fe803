import "server-only";
import { randomUUID } from "node:crypto";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { bodyLimitFor } from "./request-guard";

// Request bodies are capped where they enter the process, before Next.js sees them. Next.js copies every body it hands
// to proxy.ts into two buffers as it arrives, whether or not the proxy reads it, up to proxyClientMaxBodySize (26 MB
// here, for the Import page's upload), and answers only once the whole body has arrived, even when the proxy refused
// the request (next/dist/server/body-streams.js, next-server.js). So a dozen anonymous 25 MB bodies cost the process
// half a gigabyte whatever the proxy decided, and a declared 40 MB with no body behind it got no answer at all.
//
// Node publishes each request on the "http.server.request.start" diagnostics channel before the server's handler
// sees it (lib/http/in-flight-requests.ts follows requests the same way), and a request's body reaches its readers
// through the stream's push(), which the HTTP parser calls chunk by chunk. The cap counts there, and stops a body
// the way Node drops one nobody reads:
// - a body passes to Next.js up to the path's limit (bodyLimitFor: 1 MB, the Import page's 26 MB) and one chunk more,
//   so the proxy's guard sees it is over and refuses with 413; the rest is read off the wire and dropped;
// - a declared length over the limit passes nothing: the body ends at once and the guard refuses on the header;
// - when the proxy answers without passing a request on (no session, a refusal), it calls abandonRequestBody, and
//   the rest of that body is dropped too: a body is never buffered for someone the proxy turned away.
// Once the answer to a body cut short is sent, its connection is closed after a short grace.

/** The header by which the proxy names the request it abandons. Set here only; a client's own is removed. */
export const BODY_TICKET_HEADER = "x-linkdesk-body-ticket";

/** How long a refused client may go on sending after its answer before the connection is closed. */
const LINGER_MS = 2_000;

interface Shared {
  subscribed?: boolean;
  /** Open bodies by ticket: each one's "stop passing it on". */
  open: Map<string, () => void>;
  /** The last request each connection carried. */
  latest: WeakMap<Socket, IncomingMessage>;
}
// The proxy and the server's start-up are bundled apart, each with its own copy of this module: one state per process.
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.body-cap")] ??= {
  open: new Map(),
  latest: new WeakMap(),
});

/** Caps every request body of this process's HTTP servers (once; instrumentation.ts calls it at start). */
export function capRequestBodies(): void {
  if (shared.subscribed) return;
  shared.subscribed = true;
  subscribe("http.server.request.start", (message) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    try {
      capBody(request, response);
    } catch {
      // The cap must never be the reason a request fails; the proxy's guard still counts what it reads.
    }
  });
}

function capBody(request: IncomingMessage, response: ServerResponse): void {
  shared.latest.set(request.socket, request);
  delete request.headers[BODY_TICKET_HEADER];
  const declared = request.headers["content-length"];
  if (request.headers["transfer-encoding"] === undefined && (declared === undefined || declared === "0")) return;

  const limit = bodyLimitFor(new URL(request.url ?? "/", "http://linkdesk.invalid").pathname).bytes;
  const internals = request as unknown as { _dumped: boolean; _readableState: { autoDestroy: boolean } };
  let stopped = false;
  const stop = () => {
    if (stopped || request.readableEnded) return;
    stopped = true;
    // Node's own way to drop a request's body: the HTTP parser reads it off the wire and passes nothing on (it does
    // this itself for a body nobody reads). And a stream destroys itself once it has ended, which for a request whose
    // body has not all arrived means destroying its connection: the answer would be lost. This one ends early on
    // purpose and keeps its connection for the answer.
    internals._dumped = true;
    internals._readableState.autoDestroy = false;
    push(null);
    // The rest of the body may still be arriving (or never come: a declared length with nothing behind it). Unless the
    // connection has carried a request since, it is closed a little after the answer, time for the client to read it.
    const socket = request.socket;
    response.once("finish", () => {
      setTimeout(() => {
        if (shared.latest.get(socket) === request) socket.destroy();
      }, LINGER_MS).unref();
    });
  };
  const push = request.push.bind(request);
  let passed = 0;
  request.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === null || stopped) return push(chunk, encoding);
    passed += (chunk as Buffer).length;
    const more = push(chunk, encoding);
    // The readers have more than the limit now: enough for the proxy's guard to refuse with 413.
    if (passed > limit) stop();
    return more;
  };
  if (Number(declared) > limit) stop();

  const ticket = randomUUID();
  request.headers[BODY_TICKET_HEADER] = ticket;
  shared.open.set(ticket, stop);
  response.once("close", () => shared.open.delete(ticket));
}

/**
 * For the proxy, when it answers a request itself: the rest of the request's body is dropped as it arrives, and the
 * body ends now, so Next.js sends the answer at once instead of waiting for the whole body.
 */
export function abandonRequestBody(headers: Headers): void {
  const ticket = headers.get(BODY_TICKET_HEADER);
  if (ticket) shared.open.get(ticket)?.();
}
