import { analyzeImportFile, type FileReport } from "@/lib/import/reader";
import type { IdentityRule } from "@/lib/import/identity";

// The Import page's Web Worker: reads, parses and validates a file off the main thread, so a 20 MB fleet export does
// not freeze the page. The same lib/import code runs again on the server, which trusts nothing said here.

export interface WorkerRequest {
  file: File;
  /** How each link is known: the worker finds links listed twice in the file by it. */
  identity: IdentityRule;
}
export type WorkerResponse = { ok: true; report: FileReport; ms: number } | { ok: false; error: string };

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerResponse): void;
};

scope.onmessage = (event) => {
  const started = performance.now();
  void (async () => {
    try {
      const bytes = new Uint8Array(await event.data.file.arrayBuffer());
      const { report } = await analyzeImportFile(bytes, { identity: event.data.identity });
      scope.postMessage({ ok: true, report, ms: Math.round(performance.now() - started) });
    } catch (error) {
      scope.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  })();
};
