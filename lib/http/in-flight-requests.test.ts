import { type IncomingMessage, createServer, get } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { drainHttpRequests, requestsInFlight, trackHttpRequests } from "./in-flight-requests";

// A plain Node HTTP server stands in for Next.js's: both publish their requests on the same diagnostics channel.

const held = new Map<string, () => void>();
const arrived = new Map<string, () => void>();
const servers = [serverAnswering(), serverAnswering()];
afterAll(() => servers.forEach((s) => s.closeAllConnections()));

/** Answers "/" at once; holds "/slow…" until the test lets it go. */
function serverAnswering() {
  return createServer((request, response) => {
    const name = request.url ?? "/";
    if (!name.startsWith("/slow")) return void response.end("quick");
    held.set(name, () => response.end(`done ${name}`));
    arrived.get(name)?.();
  });
}

async function listen(server: ReturnType<typeof createServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function whenArrived(name: string): Promise<void> {
  return new Promise((resolve) => arrived.set(name, resolve));
}

/** A GET on a fresh connection; resolves with the body, or rejects (refused connection). */
function fetchBody(port: number, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: name, agent: false }, (response: IncomingMessage) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve(body));
    }).on("error", reject);
  });
}

// The tests run in order: draining is once per process, as on a real shutdown.
describe("draining the HTTP server on shutdown", () => {
  it("refuses new connections and resolves once every request in flight is answered", async () => {
    trackHttpRequests();
    const port = await listen(servers[0]!);
    expect(await fetchBody(port, "/")).toBe("quick");

    const first = fetchBody(port, "/slow-1");
    const second = fetchBody(port, "/slow-2");
    await Promise.all([whenArrived("/slow-1"), whenArrived("/slow-2")]);
    expect(requestsInFlight()).toBe(2);

    let drained = false;
    const draining = drainHttpRequests(new AbortController().signal).then(() => (drained = true));
    await expect(fetchBody(port, "/")).rejects.toMatchObject({ code: "ECONNREFUSED" });

    held.get("/slow-1")?.();
    expect(await first).toBe("done /slow-1");
    expect(drained).toBe(false);
    held.get("/slow-2")?.();
    expect(await second).toBe("done /slow-2");
    await draining;
    expect(requestsInFlight()).toBe(0);
  });

  it("stops waiting when its time is up, and closes a server first seen while draining", async () => {
    const port = await listen(servers[1]!);
    const late = fetchBody(port, "/slow-3");
    await whenArrived("/slow-3");
    // Its first request showed the server: it stops accepting at once.
    await expect(fetchBody(port, "/")).rejects.toMatchObject({ code: "ECONNREFUSED" });

    const timeUp = new AbortController();
    const draining = drainHttpRequests(timeUp.signal);
    timeUp.abort();
    await draining;
    expect(requestsInFlight()).toBe(1);
    // Still answered if it comes back before the process ends.
    held.get("/slow-3")?.();
    expect(await late).toBe("done /slow-3");
  });
});
