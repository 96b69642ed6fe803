import { describe, expect, it } from "vitest";
import { UpstreamError } from "../upstream/errors";
import { FailureStreak, type SyncBackoff, type SyncFailing, failureWords } from "./backoff";

// The streak alone, with waits of a few milliseconds: when the sync slows down, how the wait grows, that it lets one
// try through at a time while failing, and what it stores. The sync through a real outage is engine.test.ts's.

const config: SyncBackoff = { afterFailures: 3, firstDelayMs: 1, maxDelayMs: 8 };
const at = new Date("2026-11-20T10:42:00Z");

function streak(stored: SyncFailing | null = null) {
  const changes: (SyncFailing | null)[] = [];
  return { streak: new FailureStreak(config, (failing) => changes.push(failing), stored), changes };
}

const signal = () => new AbortController().signal;

describe("FailureStreak", () => {
  it("lets tries through at once until a few fail in a row; a success in between starts the count again", async () => {
    const { streak: s, changes } = streak();
    s.failed("the upstream answers 503", at, false);
    s.failed("the upstream answers 503", at, false);
    s.succeeded();
    s.failed("the upstream answers 503", at, false);
    s.failed("the upstream answers 503", at, false);
    expect(s.failing).toBe(false);
    expect(await s.take(signal())).toMatchObject({ probe: false });
    expect(changes).toEqual([]);
  });

  it("once failing, doubles the wait after each failed try up to the ceiling, storing since when and why", () => {
    const { streak: s, changes } = streak();
    const first = new Date(at.getTime() - 2000);
    s.failed("the upstream cannot be reached", first, false);
    s.failed("the upstream cannot be reached", at, false);
    s.failed("the upstream answers 503", at, false);
    // Reads under way before it slowed down fail too: they do not lengthen the wait.
    s.failed("the upstream answers 503", at, false);
    for (let i = 0; i < 5; i++) s.failed("the upstream answers 503", at, true);
    expect(changes.map((c) => c?.retryMs)).toEqual([1, 1, 2, 4, 8, 8, 8]);
    expect(s.state()).toEqual({ since: first, failure: "the upstream answers 503", retryMs: 8 });
    s.succeeded();
    expect(changes.at(-1)).toBeNull();
    expect(s.state()).toBeNull();
  });

  it("while failing, lets one try through at a time; after a success, all at once again", async () => {
    const { streak: s } = streak();
    for (let i = 0; i < 3; i++) s.failed("the upstream answers 503", at, false);
    const order: string[] = [];
    const a = s.take(signal()).then((t) => (order.push("a"), t));
    const b = s.take(signal()).then((t) => (order.push("b"), t));
    const first = await a;
    expect(first.probe).toBe(true);
    // b waits for a's try to be done.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual(["a"]);
    s.succeeded();
    first.done();
    expect(await b).toMatchObject({ probe: false });
    expect(order).toEqual(["a", "b"]);
  });

  it("stops waiting when the run is stopped", async () => {
    const { streak: s } = streak();
    for (let i = 0; i < 3; i++) s.failed("the upstream answers 503", at, false);
    const held = await s.take(signal());
    const stopper = new AbortController();
    const waiting = s.take(stopper.signal);
    stopper.abort(new Error("shutting down"));
    await expect(waiting).rejects.toThrow("shutting down");
    held.done();
  });

  it("carries on a streak stored before it: failing at once, at the stored wait", async () => {
    const stored = { since: at, failure: "the upstream is rate limiting Linkdesk", retryMs: 4 };
    const { streak: s, changes } = streak(stored);
    expect(s.failing).toBe(true);
    expect(s.state()).toEqual(stored);
    const first = await s.take(signal());
    expect(first.probe).toBe(true);
    s.failed("the upstream is rate limiting Linkdesk", new Date(), true);
    first.done();
    expect(changes).toEqual([{ ...stored, retryMs: 8 }]);
  });
});

describe("failureWords", () => {
  const http = (status: number, more: Partial<ConstructorParameters<typeof UpstreamError>[0]> = {}) =>
    new UpstreamError({ kind: "http", endpoint: "GET /links/{id}", status, ...more });

  it("names the kind of failure in words, never the upstream's own message", () => {
    expect(failureWords(new UpstreamError({ kind: "network", endpoint: "GET /links" }))).toBe(
      "the upstream cannot be reached",
    );
    expect(failureWords(new UpstreamError({ kind: "timeout", endpoint: "GET /links" }))).toBe(
      "the upstream does not answer in time",
    );
    expect(
      failureWords(new UpstreamError({ kind: "invalid_response", endpoint: "GET /links", field: "links.3" })),
    ).toBe(`the upstream's answers cannot be read (field "links.3")`);
    expect(failureWords(http(401, { endpoint: "POST /auth/token", errorMessage: "bad secret s3cr3t" }))).toBe(
      "the upstream refuses Linkdesk's credentials",
    );
    expect(failureWords(http(401, { errorCode: "api_error.auth.unauthorized" }))).toBe(
      "the upstream refuses Linkdesk's credentials",
    );
    expect(failureWords(http(429))).toBe("the upstream is rate limiting Linkdesk");
    expect(failureWords(http(503, { errorCode: "api_error.internal", errorMessage: "boom" }))).toBe(
      "the upstream answers 503",
    );
    expect(failureWords(http(403, { errorCode: "link_error.forbidden_action" }))).toBe(
      "the upstream answers 403 (link_error.forbidden_action)",
    );
    expect(failureWords(new Error("database away"))).toBe("an error inside Linkdesk (see the server log)");
  });
});
