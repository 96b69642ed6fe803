import "server-only";

// The dashboard server's shutdown, in one place. On SIGTERM or SIGINT (a deploy, a restart, Ctrl-C) the server runs
// the registered steps phase by phase and exits within SHUTDOWN_TIMEOUT_S:
//
//   stop-intake  take no new work: the readiness probe answers 503 from here on, schedulers stop, claimers stop
//                claiming. Quick steps (flip a flag, abort a controller).
//   drain        work in flight finishes (or is recorded for the next holder) and its leases are released at once, so
//                another instance takes over within seconds. The server still answers meanwhile, so a load balancer
//                reads "not ready" and moves people away instead of meeting refused connections; on SIGTERM the
//                phase lasts at least SHUTDOWN_DRAIN_S (loadBalancerDrain), however little work is in flight.
//   requests     the HTTP server stops accepting connections; page and API requests in flight complete.
//   close        the database closes (PGlite must be closed cleanly) and the log is flushed.
//
// The API other modules use (the sync scheduler, the job engine):
//
//   onShutdown(name, step, phase) registers `step(signal, reason)`: it runs once, at its phase, beside the other steps
//     of that phase (phases run in the order above, one after the other). `signal` aborts when the step's time is up;
//     a step that has not finished by then is abandoned (named in the log) and shutdown goes on. `reason` is what
//     started the shutdown ("SIGTERM", "SIGINT"). Returns a function that unregisters the step (for work that ends
//     before the server does).
//   isShuttingDown() is true from the first signal on: decline new work then.
//
// The steps of the first three phases have until SHUTDOWN_TIMEOUT_S minus a reserve for `close`; `close` has the rest.
// A step that throws is logged and does not stop the others. Nothing here exits by itself: installShutdownSignals
// (called once by the server's start-up) does, with 0 when every step finished and 1 otherwise.

export const SHUTDOWN_PHASES = ["stop-intake", "drain", "requests", "close"] as const;
export type ShutdownPhase = (typeof SHUTDOWN_PHASES)[number];

export type ShutdownStep = (signal: AbortSignal, reason: string) => Promise<void> | void;

export interface ShutdownLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ShutdownOutcome {
  /** Every step finished within its time and none threw. */
  clean: boolean;
  /** Steps that threw or were abandoned at their deadline, by name. */
  failed: string[];
  abandoned: string[];
}

export interface ShutdownCoordinator {
  onShutdown(name: string, step: ShutdownStep, phase: ShutdownPhase): () => void;
  isShuttingDown(): boolean;
  /** Runs every phase once; later calls return the same promise. Resolves within `timeoutMs` whatever the steps do. */
  shutdown(reason: string): Promise<ShutdownOutcome>;
}

interface Registered {
  name: string;
  step: ShutdownStep;
  phase: ShutdownPhase;
}

/** The part of the time kept for `close` (closing the database, flushing the log): at most 2 s, a quarter of short bounds. */
export function closeReserveMs(timeoutMs: number): number {
  return Math.min(2_000, timeoutMs / 4);
}

/** `settings` is read when shutdown starts, so the bound and the log may be configured after steps register. */
export function createShutdownCoordinator(
  settings: () => { timeoutMs: number; log: ShutdownLog },
): ShutdownCoordinator {
  const steps = new Set<Registered>();
  let running: Promise<ShutdownOutcome> | undefined;
  let started = false;

  const runPhase = async (
    phase: ShutdownPhase,
    deadline: number,
    outcome: ShutdownOutcome,
    log: ShutdownLog,
    reason: string,
  ): Promise<void> => {
    // Taken when the phase starts: a step registered later for this phase (or an earlier one) does not run.
    const due = [...steps].filter((s) => s.phase === phase);
    if (due.length === 0) return;
    const timeUp = new AbortController();
    const timer = setTimeout(
      () => timeUp.abort(new Error(`shutdown step time is up (phase ${phase})`)),
      Math.max(0, deadline - Date.now()),
    );
    const pending = new Set(due.map((s) => s.name));
    try {
      const finished = Promise.all(
        due.map(async (s) => {
          try {
            await s.step(timeUp.signal, reason);
          } catch (error) {
            outcome.failed.push(s.name);
            log.error({ err: error, step: s.name, phase }, "a shutdown step failed");
          } finally {
            pending.delete(s.name);
          }
        }),
      );
      const abandoned = new Promise<void>((resolve) =>
        timeUp.signal.addEventListener("abort", () => resolve(), { once: true }),
      );
      await Promise.race([finished, abandoned]);
      if (pending.size > 0) {
        outcome.abandoned.push(...pending);
        log.warn({ phase, steps: [...pending] }, "shutdown steps did not finish in time; going on without them");
      }
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    onShutdown(name, step, phase) {
      const entry = { name, step, phase };
      steps.add(entry);
      return () => void steps.delete(entry);
    },
    isShuttingDown: () => started,
    shutdown(reason) {
      // Set before the first step runs: steps of stop-intake already see it.
      started = true;
      running ??= (async () => {
        const { timeoutMs, log } = settings();
        const startedAt = Date.now();
        const end = startedAt + timeoutMs;
        const outcome: ShutdownOutcome = { clean: true, failed: [], abandoned: [] };
        log.info({ reason, timeoutMs }, "shutting down");
        for (const phase of SHUTDOWN_PHASES) {
          await runPhase(phase, phase === "close" ? end : end - closeReserveMs(timeoutMs), outcome, log, reason);
        }
        outcome.clean = outcome.failed.length === 0 && outcome.abandoned.length === 0;
        log.info({ reason, clean: outcome.clean, durationMs: Date.now() - startedAt }, "shut down");
        return outcome;
      })();
      return running;
    },
  };
}

/**
 * The load balancer's drain: how long readiness says 503 before the listener closes. The configured period, but at
 * most half of the whole shutdown's time, so the requests in flight keep the rest (a shorter SHUTDOWN_TIMEOUT_S must
 * not turn the drain into an abandoned step).
 */
export function drainPeriodMs(drainS: number, timeoutMs: number): number {
  return Math.max(0, Math.min(drainS * 1000, timeoutMs / 2));
}

/**
 * A `drain` step that holds the shutdown for `periodMs` while the server still answers, its readiness probe already
 * saying 503 (isShuttingDown): a load balancer probing every few seconds takes the instance out of rotation before
 * its listener closes, instead of meeting refused connections. Only on SIGTERM, what process managers and
 * orchestrators send; SIGINT is a person at a terminal (Ctrl-C), who has no load balancer to wait for.
 */
export function loadBalancerDrain(periodMs: number): ShutdownStep {
  return (signal, reason) => {
    if (reason !== "SIGTERM" || periodMs <= 0 || signal.aborted) return;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, periodMs);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  };
}

// The process-wide coordinator lives on globalThis: Next.js evaluates modules once per server bundle (instrumentation,
// each route), and the readiness route must see the state the signal handler changed.
interface Shared {
  coordinator?: ShutdownCoordinator;
  configured?: { timeoutMs: number; log: () => ShutdownLog };
  signalsInstalled?: boolean;
}
const shared: Shared = ((globalThis as { [key: symbol]: Shared })[Symbol.for("linkdesk.shutdown")] ??= {});

function coordinator(): ShutdownCoordinator {
  // Until the server's start-up configures it, a default bound and no log: tests and scripts that register steps
  // never run them unless they call shutDownNow themselves.
  shared.coordinator ??= createShutdownCoordinator(() => ({
    timeoutMs: shared.configured?.timeoutMs ?? 10_000,
    log: shared.configured?.log() ?? silentLog,
  }));
  return shared.coordinator;
}

const silentLog: ShutdownLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Registers a step of this server's shutdown (see the top of this file). */
export function onShutdown(name: string, step: ShutdownStep, phase: ShutdownPhase): () => void {
  return coordinator().onShutdown(name, step, phase);
}

/** True from the first SIGTERM/SIGINT on. */
export function isShuttingDown(): boolean {
  return coordinator().isShuttingDown();
}

/** Runs this server's shutdown now (what a signal does, without exiting). */
export function shutDownNow(reason: string): Promise<ShutdownOutcome> {
  return coordinator().shutdown(reason);
}

/**
 * Called once by the server's start-up: SIGTERM and SIGINT run the shutdown, then the process exits (0 when it was
 * clean). A second signal while shutting down changes nothing: the bound already holds.
 */
export function installShutdownSignals({
  timeoutMs,
  log,
  exit = (code) => process.exit(code),
}: {
  timeoutMs: number;
  log: () => ShutdownLog;
  exit?: (code: number) => void;
}): void {
  if (shared.signalsInstalled) return;
  shared.signalsInstalled = true;
  shared.configured = { timeoutMs, log };
  let exiting = false;
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      if (exiting) return;
      exiting = true;
      void shutDownNow(signal).then(
        (outcome) => exit(outcome.clean ? 0 : 1),
        () => exit(1),
      );
    });
  }
}
