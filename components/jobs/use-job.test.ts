import { describe, expect, it } from "vitest";
import type { JobView } from "@/lib/jobs/view";
import { summary } from "./job-progress";
import { jobIsLive, jobMovement } from "./use-job";

const counts = (over: Partial<JobView["counts"]> = {}): JobView["counts"] => ({
  pending: 0,
  sent: 0,
  done: 0,
  failed: 0,
  skipped: 0,
  cancelled: 0,
  ...over,
});

function view(over: Partial<JobView> = {}): JobView {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    kind: "correction",
    kindLabel: "Category correction",
    title: "50 transactions to Travel",
    state: "running",
    linkId: "mk_1",
    createdByEmail: "support@desk.test",
    createdAt: "2026-11-20T12:00:00.000Z",
    finishedAt: null,
    undoesJobId: null,
    total: 50,
    counts: counts({ pending: 20, done: 30 }),
    settled: 30,
    perMinute: 30,
    etaSeconds: 40,
    waiting: null,
    controls: ["pause", "cancel"],
    undoable: false,
    undoneBy: null,
    ...over,
  };
}

describe("jobIsLive", () => {
  it("polls until the job is over and its last item has settled, then stops", () => {
    expect(jobIsLive(undefined)).toBe(true);
    expect(jobIsLive(view())).toBe(true);
    // Paused: the calls in flight still settle; then nothing moves until someone resumes it.
    expect(jobIsLive(view({ state: "paused", counts: counts({ pending: 20, sent: 2, done: 28 }) }))).toBe(true);
    expect(jobIsLive(view({ state: "paused", counts: counts({ pending: 20, done: 30 }) }))).toBe(false);
    // Cancelled: its calls in flight are still answered or checked, and it is over once they are.
    expect(jobIsLive(view({ state: "cancelled", counts: counts({ sent: 1, done: 30, cancelled: 19 }) }))).toBe(true);
    expect(jobIsLive(view({ state: "cancelled", counts: counts({ done: 30, cancelled: 20 }) }))).toBe(true);
    expect(
      jobIsLive(
        view({
          state: "cancelled",
          counts: counts({ done: 30, cancelled: 20 }),
          finishedAt: "2026-11-20T12:02:00.000Z",
        }),
      ),
    ).toBe(false);
    // Done as read while its last items were still being recorded: one more poll.
    expect(
      jobIsLive(view({ state: "done", counts: counts({ sent: 1, done: 49 }), finishedAt: "2026-11-20T12:02:00.000Z" })),
    ).toBe(true);
    expect(
      jobIsLive(view({ state: "done", counts: counts({ done: 50 }), finishedAt: "2026-11-20T12:02:00.000Z" })),
    ).toBe(false);
  });

  it("sees the last items settle as movement, so the page's chips and items table are read once more", () => {
    const before = view({ state: "done", counts: counts({ done: 30, pending: 20 }) });
    const after = view({ state: "done", counts: counts({ done: 50 }) });
    expect(jobMovement(before)).not.toBe(jobMovement(after));
    expect(jobMovement(after)).toBe(
      jobMovement(view({ state: "done", counts: counts({ done: 50 }), perMinute: 0, etaSeconds: null })),
    );
  });
});

describe("summary", () => {
  it("says which limit a job waits on and when its next slot frees, with the time left counting the wait", () => {
    const limit = "the per-link limit of GET /links/{id}/transactions";
    expect(summary(view({ waiting: { limit, nextSlotInS: 12 }, etaSeconds: 12 }))).toBe(
      "30 done of 50, 30/min. Waiting for the per-link limit of GET /links/{id}/transactions, next slot in 12 s; about 15 s left.",
    );
    // Closed after a 429: said so, with the time its Retry-After ends.
    expect(
      summary(
        view({
          waiting: { limit: `${limit} (closed after a 429 from the upstream)`, nextSlotInS: 30 },
          etaSeconds: 95,
        }),
      ),
    ).toBe(
      "30 done of 50, 30/min. Waiting for the per-link limit of GET /links/{id}/transactions (closed after a 429 from the upstream), next slot in 30 s; about 2 min left.",
    );
    expect(summary(view())).toBe("30 done of 50, 30/min, about 40 s left.");
  });

  it("never shows NaN or undefined, even for an answer missing the newer figures", () => {
    const partial = view({ etaSeconds: Number.NaN, perMinute: undefined as never, waiting: undefined as never });
    expect(summary(partial)).toBe("30 done of 50.");
    expect(
      summary(
        view({
          waiting: { limit: "the per-app limit of POST /links/import", nextSlotInS: Number.NaN },
          etaSeconds: null,
        }),
      ),
    ).toBe("30 done of 50, 30/min.");
    // An older instance's answer named only the scope: its wait is left out rather than shown as "undefined".
    expect(summary(view({ waiting: { scope: "per-app", nextSlotInS: 12 } as never, etaSeconds: null }))).toBe(
      "30 done of 50, 30/min.",
    );
  });
});
