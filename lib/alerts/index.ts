import "server-only";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { logger } from "../logger";
import { onShutdown } from "../shutdown";
import { evaluateAlerts } from "./evaluate";

// Alerts evaluated on a cadence as well as after each sync run (lib/sync/engine.ts): webhooks change the read model
// between runs, and an outage they report should open its alert within seconds, not at the next sync. Every instance
// evaluates; each alert still opens once (evaluate.ts). ALERTS_EVALUATE_SECONDS sets the cadence (0: after syncs only).

interface Shared {
  timer?: NodeJS.Timeout;
  running?: boolean;
}
const shared = ((globalThis as { __linkdeskAlerts?: Shared }).__linkdeskAlerts ??= {});

export function startAlertEvaluator(): void {
  const seconds = getEnv().ALERTS_EVALUATE_SECONDS;
  if (seconds === 0 || shared.timer) return;
  shared.timer = setInterval(() => {
    if (shared.running) return;
    shared.running = true;
    void (async () => {
      try {
        const result = await evaluateAlerts((await getDb()).db);
        if (result.opened > 0 || result.resolved > 0) logger().info({ alerts: result }, "alerts evaluated");
      } catch (error) {
        logger().warn({ err: error }, "alerts: evaluation failed; the next one tries again");
      } finally {
        shared.running = false;
      }
    })();
  }, seconds * 1000);
  shared.timer.unref();
  onShutdown("alert evaluator", stopAlertEvaluator, "stop-intake");
}

export function stopAlertEvaluator(): void {
  clearInterval(shared.timer);
  shared.timer = undefined;
}
