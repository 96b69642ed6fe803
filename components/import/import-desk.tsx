"use client";

import { useQuery } from "@tanstack/react-query";
import { useAction } from "next-safe-action/hooks";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { Callout } from "@/components/ui/callout";
import { type KeyHeadroom, describeDuration } from "@/lib/budget/headroom";
import { importFile } from "@/lib/actions/import";
import { UPLOAD_MAX_LABEL } from "@/lib/import/limits";
import { estimateImportDuration } from "@/lib/import/plan";
import { IMPORT_MAX_TRANSACTIONS } from "@/lib/upstream/schemas";
import { FileSummary, InvalidLinks, LinkNotes, LinkPreviewTable, previewInstitutionIds } from "./file-preview";
import { useFileReport } from "./use-file-report";

// Choose or drop a file; the worker reads and checks it; the preview and plan show; a dry run asks the server for its
// own check and plan; "Import N links" starts the job (and the page follows it by its id in the URL).

interface PreviousImport {
  id: string;
  state: string;
  title: string;
  createdAt: string;
  createdByEmail: string;
}

export interface ImportHeadroom {
  imports: KeyHeadroom[];
  batches: KeyHeadroom[];
}

const button = "rounded border px-3 py-1.5 text-sm font-medium disabled:opacity-50";

export function ImportDesk({ headroom }: { headroom: ImportHeadroom }) {
  const router = useRouter();
  const { reading, read, reset } = useFileReport();
  const [dragging, setDragging] = useState(false);
  const action = useAction(importFile, {
    onSuccess: ({ data }) => {
      if (data?.outcome === "started") router.push(`/import?job=${data.jobId}`);
    },
  });
  const file = reading.status === "read" || reading.status === "reading" || reading.status === "failed" ? reading.file : null;
  const report = reading.status === "read" ? reading.report : null;
  const plan = report && report.valid > 0 ? estimateImportDuration(report.calls, headroom) : null;
  const answer = action.result.data;
  const serverError = action.result.serverError ?? action.result.validationErrors?.fieldErrors?.file?.[0];
  const importLimit = headroom.imports[0]?.key;
  // The same file imported before is recognised as soon as it is read (the server checks again when asked to import).
  const previous = useQuery({
    queryKey: ["import-by-hash", report?.sha256],
    enabled: Boolean(report?.sha256),
    queryFn: async () => {
      const response = await fetch(`/api/import?sha256=${report!.sha256}`, { cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return ((await response.json()) as { job: PreviousImport | null }).job;
    },
  });
  const earlier = previous.data ?? null;
  // Institution names for the preview: one lookup per distinct institution (bounded), cached on the server.
  const institutionIds = report && !report.fileProblem ? previewInstitutionIds(report) : [];
  const names = useQuery({
    queryKey: ["institution-names", institutionIds],
    enabled: institutionIds.length > 0,
    staleTime: 5 * 60_000,
    queryFn: async () => {
      const query = new URLSearchParams(institutionIds.map((id) => ["id", id]));
      const response = await fetch(`/api/import/institutions?${query}`, { cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return ((await response.json()) as { names: Record<string, string | null> }).names;
    },
  });
  const batchLimit = headroom.batches[0]?.key;

  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    action.reset();
    read(chosen);
  };
  const send = (dryRun: boolean) => {
    if (file) action.execute({ file, dryRun });
  };

  return (
    <div className="space-y-5">
      <Callout title="What Linkdesk imports">
        <p>
          A JSON file of up to {UPLOAD_MAX_LABEL}: one Import Link body, an array of them, or NDJSON (one link per line) for a fleet. Each link is checked against the
          upstream&rsquo;s rules before anything is sent. The upstream takes at most 1 MB and {IMPORT_MAX_TRANSACTIONS.toLocaleString("en-US")} transactions per call:
          bigger links are imported with their accounts and a first batch, then the rest in batches.
          {importLimit ? ` Linkdesk’s share: ${importLimit.limit} imports a minute (${headroom.imports[0]!.remaining} left now)` : ""}
          {batchLimit ? ` and ${batchLimit.limit} transaction batches a minute.` : "."}
        </p>
      </Callout>

      <label
        htmlFor="import-file"
        className={`flex cursor-pointer flex-col items-center justify-center rounded-lg border-2 border-dashed px-6 py-8 text-center text-sm ${dragging ? "border-indigo-500 bg-indigo-50" : "border-slate-300 bg-white hover:bg-slate-50"}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          choose(event.dataTransfer.files[0]);
        }}
        data-testid="drop-zone"
      >
        <span className="font-medium text-slate-900">Drop a file here, or choose one</span>
        <span className="mt-1 text-slate-600">.json or .ndjson, up to {UPLOAD_MAX_LABEL}</span>
        <input
          id="import-file"
          type="file"
          accept=".json,.ndjson,.jsonl,application/json,application/x-ndjson"
          className="sr-only"
          onChange={(event) => {
            choose(event.target.files?.[0]);
            event.target.value = "";
          }}
        />
      </label>

      {reading.status === "refused" ? (
        <Callout tone="error" title={`${reading.fileName} was not read`}>
          {reading.problem.message}
        </Callout>
      ) : null}
      {reading.status === "reading" ? (
        <p role="status" className="text-sm text-slate-700">
          Reading and checking {reading.file.name}…
        </p>
      ) : null}
      {reading.status === "failed" ? (
        <Callout tone="error" title={`${reading.file.name} could not be read`}>
          {reading.error}
        </Callout>
      ) : null}

      {report && reading.status === "read" ? (
        <div className="space-y-4">
          {report.fileProblem ? (
            <Callout tone="error" title={`${reading.file.name} cannot be imported`}>
              {report.fileProblem.message}
            </Callout>
          ) : earlier ? (
            <Callout tone="warning" title="This file was imported before" role="status">
              <p data-testid="already-imported">
                The same file (by its content) was imported as &ldquo;{earlier.title}&rdquo; by {earlier.createdByEmail} on {new Date(earlier.createdAt).toLocaleString("en-GB")}; that
                import is {earlier.state}. Linkdesk never imports a file twice.
              </p>
              <p className="mt-2 flex gap-3">
                <Link className="font-medium text-indigo-700 underline" href={`/import?job=${earlier.id}`}>
                  {earlier.state === "cancelled" || earlier.state === "paused" ? "Show it, to resume it" : "Show the results"}
                </Link>
                <button type="button" className="text-slate-600 underline" onClick={() => (action.reset(), reset())}>
                  Choose another file
                </button>
              </p>
            </Callout>
          ) : (
            <>
              <FileSummary report={report} fileName={reading.file.name} ms={reading.ms} />
              <InvalidLinks report={report} />
              {plan ? (
                <Callout title="Plan" role="status">
                  <p data-testid="plan">
                    {report.calls.imports} import call{report.calls.imports === 1 ? "" : "s"}
                    {report.calls.batches > 0 ? ` and ${report.calls.batches} transaction batch${report.calls.batches === 1 ? "" : "es"}` : ""} for {report.valid} link
                    {report.valid === 1 ? "" : "s"}: {describeDuration(plan.seconds)} at {plan.binding.endpoint}&rsquo;s limit ({plan.binding.limit}/min,{" "}
                    {plan.binding.remaining} left now). Nothing is sent until you start the import.
                  </p>
                </Callout>
              ) : null}
              <LinkPreviewTable report={report} names={names.data} />
              <LinkNotes report={report} />
              <div className="flex flex-wrap items-center gap-2">
                <button type="button" className={`${button} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`} disabled={action.isPending || report.valid === 0} onClick={() => send(true)}>
                  Dry run
                </button>
                <button type="button" className={`${button} border-indigo-600 bg-indigo-600 text-white hover:bg-indigo-700`} disabled={action.isPending || report.valid === 0} onClick={() => send(false)}>
                  Import {report.valid} link{report.valid === 1 ? "" : "s"}
                </button>
                <button type="button" className={`${button} border-transparent text-slate-600 underline`} onClick={() => (action.reset(), reset())}>
                  Choose another file
                </button>
                {action.isPending ? <span role="status" className="text-sm text-slate-600">Sending the file to Linkdesk to check it again…</span> : null}
              </div>
            </>
          )}
        </div>
      ) : null}

      {serverError ? (
        <Callout tone="error" title="Not imported">
          {serverError}
        </Callout>
      ) : null}
      {answer?.outcome === "plan" ? (
        <Callout tone="success" title="Dry run: the server checked the file; nothing was sent" role="status">
          <p data-testid="dry-run">
            {answer.valid} link{answer.valid === 1 ? "" : "s"} valid, {answer.invalid} with problems; {answer.transactions.toLocaleString("en-US")} transactions in{" "}
            {answer.calls.imports + answer.calls.batches} calls ({answer.calls.imports} imports, {answer.calls.batches} batches): {answer.duration}
            {answer.binding ? ` at ${answer.binding}` : ""}.
          </p>
        </Callout>
      ) : null}
      {answer?.outcome === "existing" ? (
        <Callout tone="warning" title="This file was imported before" role="status">
          <p data-testid="already-imported">
            The same file (by its content) is job &ldquo;{answer.title}&rdquo;, {answer.state}. Linkdesk never imports a file twice.
          </p>
          <p className="mt-2 flex gap-3">
            <Link className="font-medium text-indigo-700 underline" href={`/import?job=${answer.jobId}`}>
              {answer.resumable ? "Show it, to resume it" : "Show the results"}
            </Link>
            <Link className="text-indigo-700 underline" href={`/jobs/${answer.jobId}`}>
              Job details
            </Link>
          </p>
        </Callout>
      ) : null}
    </div>
  );
}
