import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type ShutdownLog,
  closeReserveMs,
  createShutdownCoordinator,
  drainPeriodMs,
  installShutdownSignals,
  isShuttingDown,
  loadBalancerDrain,
  onShutdown,
} from "./shutdown";

function recordingLog() {
  const lines: { level: string; obj: object; msg: string }[] = [];
  const log: ShutdownLog = {
    info: (obj, msg) => lines.push({ level: "info", obj, msg }),
    warn: (obj, msg) => lines.push({ level: "warn", obj, msg }),
    error: (obj, msg) => lines.push({ level: "error", obj, msg }),
  };
  return { log, lines };
}

function coordinatorWith(timeoutMs: number) {
  const { log, lines } = recordingLog();
  return { coordinator: createShutdownCoordinator(() => ({ timeoutMs, log })), lines };
}

/** A promise with its resolve at hand. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the shutdown coordinator", () => {
  it("runs the phases in order, each phase's steps side by side, and says it is shutting down from the start", async () => {
    const { coordinator } = coordinatorWith(10_000);
    const events: string[] = [];
    const bothDrainsStarted = { count: 0, all: deferred() };
    const drain = (name: string) => async () => {
      events.push(`${name} started`);
      // Each waits for the other to have started: only possible if they run at the same time.
      if (++bothDrainsStarted.count === 2) bothDrainsStarted.all.resolve();
      await bothDrainsStarted.all.promise;
      events.push(`${name} done`);
    };
    // Registered out of order on purpose: the phase decides, not the order of registration.
    coordinator.onShutdown("database", () => void events.push("database closed"), "close");
    coordinator.onShutdown("requests", () => void events.push("requests answered"), "requests");
    coordinator.onShutdown("sync run", drain("sync run"), "drain");
    coordinator.onShutdown("jobs", drain("jobs"), "drain");
    coordinator.onShutdown(
      "scheduler",
      () => void events.push(`scheduler stopped (shutting down: ${coordinator.isShuttingDown()})`),
      "stop-intake",
    );

    expect(coordinator.isShuttingDown()).toBe(false);
    const outcome = await coordinator.shutdown("SIGTERM");

    expect(outcome).toEqual({ clean: true, failed: [], abandoned: [] });
    expect(events).toEqual([
      "scheduler stopped (shutting down: true)",
      "sync run started",
      "jobs started",
      "sync run done",
      "jobs done",
      "requests answered",
      "database closed",
    ]);
  });

  it("runs once however often it is asked, and skips unregistered steps", async () => {
    const { coordinator } = coordinatorWith(10_000);
    const ran: string[] = [];
    coordinator.onShutdown("kept", () => void ran.push("kept"), "drain");
    const unregister = coordinator.onShutdown("finished early", () => void ran.push("finished early"), "drain");
    unregister();

    const first = coordinator.shutdown("SIGTERM");
    expect(coordinator.shutdown("SIGINT")).toBe(first);
    await first;
    expect(ran).toEqual(["kept"]);
  });

  it("goes on past a step that throws, and reports it", async () => {
    const { coordinator, lines } = coordinatorWith(10_000);
    const closed: string[] = [];
    coordinator.onShutdown("jobs", () => Promise.reject(new Error("lease table gone")), "drain");
    coordinator.onShutdown("database", () => void closed.push("database"), "close");

    const outcome = await coordinator.shutdown("SIGTERM");

    expect(outcome).toEqual({ clean: false, failed: ["jobs"], abandoned: [] });
    expect(closed).toEqual(["database"]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: "error",
        msg: "a shutdown step failed",
        obj: expect.objectContaining({ step: "jobs" }),
      }),
    );
  });

  it("ends within the timeout: a step that hangs is told its time is up and abandoned, and close still runs", async () => {
    vi.useFakeTimers();
    const timeoutMs = 10_000;
    const { coordinator, lines } = coordinatorWith(timeoutMs);
    let drainSignal: AbortSignal | undefined;
    let abortedAt: number | undefined;
    const closedAt: number[] = [];
    coordinator.onShutdown(
      "sync run",
      (signal) => {
        drainSignal = signal;
        signal.addEventListener("abort", () => (abortedAt = Date.now()));
        return new Promise(() => undefined);
      },
      "drain",
    );
    coordinator.onShutdown("database", () => void closedAt.push(Date.now()), "close");
    coordinator.onShutdown("stuck socket", () => new Promise(() => undefined), "close");

    const startedAt = Date.now();
    let outcome: Awaited<ReturnType<typeof coordinator.shutdown>> | undefined;
    void coordinator.shutdown("SIGTERM").then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(timeoutMs - 1);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);

    expect(outcome).toEqual({ clean: false, failed: [], abandoned: ["sync run", "stuck socket"] });
    expect(Date.now() - startedAt).toBe(timeoutMs);
    // The drain was cut early enough to leave the close phase its reserve.
    expect(drainSignal?.aborted).toBe(true);
    expect(abortedAt! - startedAt).toBe(timeoutMs - closeReserveMs(timeoutMs));
    expect(closedAt).toEqual([startedAt + timeoutMs - closeReserveMs(timeoutMs)]);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: "warn", obj: { phase: "drain", steps: ["sync run"] } }),
    );
  });

  it("keeps a reserve for close that fits short timeouts", () => {
    expect(closeReserveMs(10_000)).toBe(2_000);
    expect(closeReserveMs(1_000)).toBe(250);
  });
});

describe("the load balancer's drain", () => {
  /** The server as startup.ts wires it: readiness (isShuttingDown) and the listener, which closes in `requests`. */
  function serverWith(timeoutMs: number, drainMs: number) {
    const { coordinator } = coordinatorWith(timeoutMs);
    const events: { at: number; what: string }[] = [];
    const startedAt = Date.now();
    coordinator.onShutdown("load balancer drain", loadBalancerDrain(drainMs), "drain");
    coordinator.onShutdown(
      "http requests",
      () => void events.push({ at: Date.now() - startedAt, what: "listener closed" }),
      "requests",
    );
    coordinator.onShutdown(
      "database",
      () => void events.push({ at: Date.now() - startedAt, what: "database closed" }),
      "close",
    );
    return { coordinator, events };
  }

  it("on SIGTERM, an idle server says 'not ready' for the drain period before it closes its listener", async () => {
    vi.useFakeTimers();
    const { coordinator, events } = serverWith(10_000, 5_000);
    let outcome: Awaited<ReturnType<typeof coordinator.shutdown>> | undefined;
    void coordinator.shutdown("SIGTERM").then((o) => (outcome = o));

    await vi.advanceTimersByTimeAsync(4_999);
    // Readiness answers 503 all along (it asks isShuttingDown), and the listener still takes the probes.
    expect(coordinator.isShuttingDown()).toBe(true);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(events).toEqual([
      { at: 5_000, what: "listener closed" },
      { at: 5_000, what: "database closed" },
    ]);
    expect(outcome).toEqual({ clean: true, failed: [], abandoned: [] });
  });

  it("does not wait on SIGINT (Ctrl-C at a terminal) nor when the period is 0", async () => {
    vi.useFakeTimers();
    for (const [reason, drainMs] of [
      ["SIGINT", 5_000],
      ["SIGTERM", 0],
    ] as const) {
      const { coordinator, events } = serverWith(10_000, drainMs);
      await coordinator.shutdown(reason);
      expect(events.map((e) => e.at)).toEqual([0, 0]);
    }
  });

  it("takes at most half the shutdown's time, and ends cleanly when it is cut short", async () => {
    expect(drainPeriodMs(5, 10_000)).toBe(5_000);
    expect(drainPeriodMs(30, 10_000)).toBe(5_000);
    expect(drainPeriodMs(5, 4_000)).toBe(2_000);
    expect(drainPeriodMs(0, 10_000)).toBe(0);

    const cut = new AbortController();
    const held = loadBalancerDrain(60_000)(cut.signal, "SIGTERM");
    cut.abort();
    await expect(held).resolves.toBeUndefined();
  });
});

describe("the server's shutdown on signals", () => {
  const before = { SIGTERM: process.listeners("SIGTERM"), SIGINT: process.listeners("SIGINT") };
  afterEach(() => {
    // The test process must keep ending normally on a real signal.
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      for (const listener of process.listeners(signal))
        if (!before[signal].includes(listener)) process.off(signal, listener);
    }
  });

  it("runs the registered steps on SIGTERM, then exits with 0", async () => {
    const exit = deferred();
    const codes: number[] = [];
    const ran: string[] = [];
    const { log } = recordingLog();
    installShutdownSignals({
      timeoutMs: 5_000,
      log: () => log,
      exit: (code) => {
        codes.push(code);
        exit.resolve();
      },
    });
    onShutdown("database", () => void ran.push("database"), "close");
    onShutdown("scheduler", () => void ran.push(`scheduler (shutting down: ${isShuttingDown()})`), "stop-intake");

    expect(isShuttingDown()).toBe(false);
    // Emitting calls the listeners without delivering a real signal to the test process.
    process.emit("SIGTERM");
    process.emit("SIGINT");
    await exit.promise;

    expect(ran).toEqual(["scheduler (shutting down: true)", "database"]);
    expect(codes).toEqual([0]);
    expect(isShuttingDown()).toBe(true);
  });
});
