import { describe, expect, it } from "vitest";
import type { JobNotice } from "@/lib/jobs/notices";
import { decideNotices } from "./job-notice-rules";

const running = (id: string): JobNotice => ({ id, live: true, ended: false, message: null });
const ended = (
  id: string,
  message: string | null = `“Import of legacy.json: 50 links” finished: 48 imported, 2 failed.`,
): JobNotice => ({ id, live: false, ended: true, message });
const nowhere = () => false;

describe("decideNotices", () => {
  it("tells of a long job seen running once it ends while the person is elsewhere, once, then stops asking", () => {
    const first = decideNotices([running("a")], { watching: [], told: [] }, nowhere);
    expect(first).toEqual({ tell: [], memory: { watching: ["a"], told: [] }, live: true });
    const end = decideNotices([ended("a")], first.memory, nowhere);
    expect(end.tell).toEqual([
      { id: "a", message: "“Import of legacy.json: 50 links” finished: 48 imported, 2 failed." },
    ]);
    expect(end).toMatchObject({ memory: { watching: [], told: ["a"] }, live: false });
    // Another page, another tab or a reload asks again: told already.
    expect(decideNotices([ended("a")], end.memory, nowhere).tell).toEqual([]);
    expect(decideNotices([ended("a")], { watching: ["a"], told: ["a"] }, nowhere).tell).toEqual([]);
  });

  it("says nothing of a job that ended on screen, a short one, or one never seen running", () => {
    const watching = { watching: ["a", "b"], told: [] };
    const onScreen = decideNotices([ended("a")], watching, (id) => id === "a");
    expect(onScreen).toMatchObject({ tell: [], memory: { watching: [], told: ["a"] } });
    // A job under 30 s has no message: it ended before anyone looked away.
    expect(decideNotices([ended("b", null)], watching, nowhere)).toMatchObject({
      tell: [],
      memory: { watching: [], told: ["b"] },
    });
    // Ended before this browser saw it run (signed in afterwards): not news.
    expect(decideNotices([ended("c")], { watching: [], told: [] }, nowhere).tell).toEqual([]);
  });

  it("keeps a paused job watched without asking again, and forgets one no longer listed", () => {
    const paused: JobNotice = { id: "p", live: false, ended: false, message: null };
    expect(decideNotices([paused], { watching: ["p", "gone"], told: [] }, nowhere)).toEqual({
      tell: [],
      memory: { watching: ["p"], told: [] },
      live: false,
    });
  });

  it("keeps asking while any of the person's jobs moves", () => {
    const decision = decideNotices([running("a"), ended("b")], { watching: ["b"], told: [] }, nowhere);
    expect(decision.live).toBe(true);
    expect(decision.tell.map((t) => t.id)).toEqual(["b"]);
    expect(decision.memory.watching).toEqual(["a"]);
  });
});
