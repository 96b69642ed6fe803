import "server-only";
import { ensureDemoAccounts } from "./auth/demo-accounts";
import { getDb } from "./db/client";
import { ConfigError, getEnv } from "./env";
import { drainHttpRequests, trackHttpRequests } from "./http/in-flight-requests";
import { takeStartSnapshots } from "./links/trend-snapshots";
import { recordUpstreamAnswers } from "./links/read-model";
import { countReadNotices } from "./read-notices/store";
import { flushLogger, logger } from "./logger";
import { drainPeriodMs, installShutdownSignals, loadBalancerDrain, onShutdown } from "./shutdown";

/**
 * Runs once per server start: refuses to serve with missing or invalid configuration (naming the variable), wires the
 * read model to every upstream answer that carries a link (lib/links/read-model.ts), takes over SIGTERM/SIGINT for the graceful shutdown (lib/shutdown.ts), brings the database up to date, in demo mode creates
 * the demo accounts, takes a snapshot of the links read model for the Health trends (and in demo mode, once, seeds their
 * history), then starts the links sync's scheduler, the webhook processor, the job engine and the outbound sender.
 */
export async function startServer(): Promise<void> {
  let env;
  try {
    env = getEnv();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Linkdesk cannot start. ${error.message}\nSee README.md, "Configuration".`);
    process.exit(1);
  }
  // Before anything calls the upstream: every answer that carries a link keeps the read model current, and what an
  // answer carried that this version does not know is counted for the Status page.
  recordUpstreamAnswers();
  countReadNotices();
  const shutdownTimeoutMs = env.SHUTDOWN_TIMEOUT_S * 1000;
  installShutdownSignals({ timeoutMs: shutdownTimeoutMs, log: () => logger().child({ component: "shutdown" }) });
  trackHttpRequests();
  onShutdown("load balancer drain", loadBalancerDrain(drainPeriodMs(env.SHUTDOWN_DRAIN_S, shutdownTimeoutMs)), "drain");
  onShutdown("http requests", drainHttpRequests, "requests");
  onShutdown("log", flushLogger, "close");
  if (!env.AUTH_URL && !env.UPSTREAM_SANDBOX) {
    logger().warn(
      {},
      "AUTH_URL is not set: Auth.js builds its URLs and redirects on the address the server listens on, not the one browsers use",
    );
  }
  if (!env.NEXT_MANUAL_SIG_HANDLE) {
    logger().warn(
      {},
      "NEXT_MANUAL_SIG_HANDLE is not set (the dashboard was not started by npm start): Next.js's own SIGTERM handler may end the process before the shutdown has released its leases and closed the database",
    );
  }
  try {
    const { db } = await getDb();
    if (env.UPSTREAM_SANDBOX) await ensureDemoAccounts(db);
  } catch (error) {
    console.error(
      `Linkdesk cannot start: the database is not available. ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
  try {
    const { db } = await getDb();
    const demo = env.UPSTREAM_SANDBOX && {
      links: env.DEMO_HISTORY_LINKS,
      errorCodeShare: env.DEMO_HISTORY_ERROR_CODE_SHARE,
    };
    const taken = await takeStartSnapshots(db, { demo });
    if (taken.demoSeeded > 0)
      logger().info({ snapshots: taken.demoSeeded }, "demo mode: seeded the Health trends with made-up history");
  } catch (error) {
    // The trends are not worth refusing to start over; the next sync takes a snapshot anyway.
    logger().warn({ err: error }, "could not take the start-up snapshot of the links read model");
  }
  (await import("./sync/scheduler")).startSyncScheduler();
  // Alerts follow the read model between syncs too (webhooks change it).
  (await import("./alerts")).startAlertEvaluator();
  // Webhook events stored by any instance are applied to the read model by whichever processor takes them first.
  (await import("./webhooks/processor")).startWebhookProcessor();
  // Unfinished jobs resume on their own: this instance takes over items whose leases lapse (all of them, on the
  // embedded database, which no other process can hold).
  const jobs = await import("./jobs");
  await jobs.startJobRunner();
  jobs.stopJobRunnerAtShutdown(shutdownTimeoutMs);
  // Messages any instance queued (a reconnect request's webhook and email) are sent by whichever sender leases them.
  const outbound = await import("./outbound");
  await outbound.startOutboundWorker();
  outbound.stopOutboundWorkerAtShutdown(shutdownTimeoutMs);
}
