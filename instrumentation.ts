// Runs once when a dashboard server starts. The Node-only work lives in lib/startup.ts so the edge bundle never sees it.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startServer } = await import("./lib/startup");
    await startServer();
  }
}
