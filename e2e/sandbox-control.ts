// Test-side control of the shared sandbox (fault injection, reset), through its /_sandbox endpoints.

export interface Faults {
  latencyMs?: number;
  status?: number;
  failRate?: number;
  malformed?: boolean;
  rateLimitStorm?: boolean;
  expireTokens?: boolean;
  paths?: string[];
  count?: number;
}

function sandboxUrl(): string {
  const url = process.env.E2E_SANDBOX_URL;
  if (!url) throw new Error("E2E_SANDBOX_URL is not set: run the specs through playwright.config.ts");
  return url;
}

export async function setFaults(faults: Faults): Promise<void> {
  const response = await fetch(`${sandboxUrl()}/_sandbox/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(faults),
  });
  if (!response.ok) throw new Error(`setting sandbox faults failed: HTTP ${response.status}`);
}

export async function clearFaults(): Promise<void> {
  const response = await fetch(`${sandboxUrl()}/_sandbox/faults`, { method: "DELETE" });
  if (!response.ok) throw new Error(`clearing sandbox faults failed: HTTP ${response.status}`);
}
