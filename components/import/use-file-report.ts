"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { FileProblem, FileReport } from "@/lib/import/reader";
import type { IdentityRule } from "@/lib/import/identity";
import { checkFileSize } from "@/lib/import/limits";
import type { WorkerRequest, WorkerResponse } from "./import-worker";

export type FileReading =
  | { status: "idle" }
  | { status: "refused"; fileName: string; problem: FileProblem }
  | { status: "reading"; file: File }
  | { status: "read"; file: File; report: FileReport; ms: number }
  | { status: "failed"; file: File; error: string };

/** Reads a chosen file in a Web Worker: the size is checked first, before a byte is read. */
export function useFileReport() {
  const [reading, setReading] = useState<FileReading>({ status: "idle" });
  const worker = useRef<Worker | null>(null);

  useEffect(() => () => worker.current?.terminate(), []);

  const read = useCallback((file: File, identity: IdentityRule) => {
    const refused = checkFileSize(file.size);
    if (refused) {
      setReading({ status: "refused", fileName: file.name, problem: refused });
      return;
    }
    // A new file replaces whatever was being read.
    worker.current?.terminate();
    const current = new Worker(new URL("./import-worker.ts", import.meta.url));
    worker.current = current;
    setReading({ status: "reading", file });
    current.onmessage = (event: MessageEvent<WorkerResponse>) => {
      const answer = event.data;
      setReading(
        answer.ok
          ? { status: "read", file, report: answer.report, ms: answer.ms }
          : { status: "failed", file, error: answer.error },
      );
      current.terminate();
      if (worker.current === current) worker.current = null;
    };
    current.onerror = (event) => {
      setReading({ status: "failed", file, error: event.message || "The file could not be read." });
      current.terminate();
    };
    current.postMessage({ file, identity } satisfies WorkerRequest);
  }, []);

  const reset = useCallback(() => {
    worker.current?.terminate();
    worker.current = null;
    setReading({ status: "idle" });
  }, []);

  return { reading, read, reset };
}
