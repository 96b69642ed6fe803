// Runs once when a dashboard server starts. The Node-only work lives in lib/startup.ts so the edge bundle never sees it.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Before the first request: Next.js's own printing of an error that escaped a page, action or route withholds a
    // failed query's parameters (lib/logger.ts), and request bodies are capped where they enter the process, before
    // Next.js buffers them (lib/http/body-cap.ts). The upstream's webhooks are answered beside Next.js, on the same
    // server and path (lib/webhooks/endpoint.ts).
    const [{ withholdQueryDetailsFromConsole }, { capRequestBodies }, { serveWebhooksDirectly }] = await Promise.all([
      import("./lib/logger"),
      import("./lib/http/body-cap"),
      import("./lib/webhooks/endpoint"),
    ]);
    withholdQueryDetailsFromConsole();
    capRequestBodies();
    serveWebhooksDirectly();
    const { startServer } = await import("./lib/startup");
    await startServer();
  }
}
