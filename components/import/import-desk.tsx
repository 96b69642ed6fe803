"use client";

import { useQuery } from "@tanstack/react-query";
import { useAction } from "next-safe-action/hooks";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Callout } from "@/components/ui/callout";
import { type KeyHeadroom, describeDuration } from "@/lib/budget/headroom";
import type { FileReport } from "@/lib/import/reader";
import { whereInFile } from "@/lib/import/positions";
import { importFile } from "@/lib/actions/import";
import { type IdentityRule } from "@/lib/import/identity";
import { IMPORT_MAX_TRANSACTIONS, UPLOAD_MAX_LABEL } from "@/lib/import/limits";
import { estimateImportDuration } from "@/lib/import/plan";
import { type KnownLink, reconciliationCsv, validationRows } from "@/lib/import/reconcile";
import { identityRuleOf } from "@/lib/schemas/import";
import { FileSummary, InvalidLinks, LinkNotes, LinkPreviewTable, previewInstitutionIds } from "./file-preview";
import { NO_ANSWER } from "./no-answer";
import { useFileReport } from "./use-file-report";
import { type UpstreamChoices, UpstreamMatches } from "./upstream-matches";
import type { UpstreamWillBe } from "./file-preview";
import type { UpstreamPreview } from "@/lib/actions/import";
import { UPSTREAM_MATCH_LABELS } from "@/lib/import/upstream-match";

const NO_CHOICES: UpstreamChoices = {
  addTransactions: true,
  applyChanges: false,
  importAnyway: new Set(),
  sameLink: new Set(),
  replace: new Set(),
};

/** What the upstream holds, after the dry run's other counts: nothing when it holds none of the file's links. */
function upstreamInWords(counts: UpstreamPreview["counts"]): string {
  return [
    counts.same > 0 ? `, ${counts.same.toLocaleString("en-US")} at the upstream already` : "",
    counts.possible > 0 ? `, ${count(counts.possible, "possible match", "possible matches")} to decide` : "",
    counts.ambiguous + counts.deleted + counts.unchecked > 0
      ? `, ${(counts.ambiguous + counts.deleted + counts.unchecked).toLocaleString("en-US")} held (see At the upstream)`
      : "",
  ].join("");
}

/** The preview table's "Will be" for links the upstream holds, with their calls there. */
function upstreamByPosition(preview: UpstreamPreview): Map<number, UpstreamWillBe> {
  return new Map(
    preview.rows
      .filter((row) => row.act !== "import")
      .map((row) => [
        row.position,
        row.act === "replace"
          ? { label: `Replaces upstream link ${row.linkId}`, calls: 1, replaces: true }
          : {
              label:
                row.act === "update"
                  ? `At the upstream: updated${row.newTransactions ? ` (+${row.newTransactions.toLocaleString("en-US")} transactions)` : ""}`
                  : UPSTREAM_MATCH_LABELS[row.kind],
              calls: row.act === "update" ? Math.max(1, Math.ceil((row.newTransactions ?? 0) / 4000)) : 0,
            },
      ]),
  );
}

// Choose or drop a file; the worker reads and checks it (links listed twice found by their identity); the server then
// checks it again against every link Linkdesk imported before (a dry run, made at once) and plans what is new;
// "Import N new links" starts the job (and the page follows it by its id in the URL).

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** What the plan skips, in words: nothing when nothing is. */
function skippedInWords(alreadyImported: number, duplicates: number): string {
  const parts = [
    alreadyImported > 0
      ? `${alreadyImported.toLocaleString("en-US")} already imported ${alreadyImported === 1 ? "is" : "are"} skipped`
      : "",
    duplicates > 0 ? `${count(duplicates, "link")} listed twice ${duplicates === 1 ? "is" : "are"} imported once` : "",
  ].filter(Boolean);
  return parts.length > 0 ? `${parts.join("; ")}. ` : "";
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
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
  const [identityTag, setIdentityTag] = useState("");
  const [carryCategories, setCarryCategories] = useState(false);
  const [choices, setChoices] = useState<UpstreamChoices>(NO_CHOICES);
  /** The identity tag the current file was read with: leaving the field reads it again only when that changed. */
  const [readWith, setReadWith] = useState("");
  const identity: IdentityRule = identityRuleOf(identityTag.trim());
  const action = useAction(importFile, {
    onSuccess: ({ data }) => {
      if (data?.outcome === "started") router.push(`/import?job=${data.jobId}`);
    },
  });
  const file =
    reading.status === "read" || reading.status === "reading" || reading.status === "failed" ? reading.file : null;
  const report = reading.status === "read" ? reading.report : null;
  const plan = report && report.valid > 0 ? estimateImportDuration(report.calls, headroom) : null;
  const answer = action.result.data;
  const fieldErrors = action.result.validationErrors?.fieldErrors;
  const serverError =
    action.result.serverError ??
    fieldErrors?.file?.[0] ??
    fieldErrors?.identityTag?.[0] ??
    (action.hasErrored ? NO_ANSWER : undefined);
  const importLimit = headroom.imports[0]?.key;
  const checked = answer?.outcome === "plan" ? answer : null;
  // As soon as the file is read, the server checks it against every link Linkdesk imported before (whatever the
  // file's bytes): the plan then counts only what is new. Nothing is sent upstream by a dry run.
  const { execute, reset: resetAction } = action;
  const decisions = (c: UpstreamChoices) => ({
    addTransactions: c.addTransactions,
    applyChanges: c.applyChanges,
    importAnyway: [...c.importAnyway],
    sameLink: [...c.sameLink],
    replace: [...c.replace],
  });
  useEffect(() => {
    if (reading.status === "read" && reading.report.valid > 0)
      execute({
        file: reading.file,
        dryRun: true,
        identityTag: identityTag.trim(),
        carryCategories,
        ...decisions(NO_CHOICES),
      });
    // The identity rule is read when the file is: changing it reads the file again (below).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reading, execute]);
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
    resetAction();
    setChoices(NO_CHOICES);
    setReadWith(identityTag.trim());
    read(chosen, identity);
  };
  const send = (dryRun: boolean, with_: UpstreamChoices = choices) => {
    if (file) execute({ file, dryRun, identityTag: identityTag.trim(), carryCategories, ...decisions(with_) });
  };
  // A decision on the links the upstream holds plans the file again (the server's check is kept a short while).
  const decide = (next: UpstreamChoices) => {
    setChoices(next);
    send(true, next);
  };
  const newLinks = checked ? checked.valid : (report?.valid ?? 0);
  const updating = checked?.upstream.counts.updating ?? 0;
  const atUpstream = checked ? upstreamByPosition(checked.upstream) : undefined;

  return (
    <div className="space-y-5">
      <Callout title="What Linkdesk imports">
        <p>
          A JSON file of up to {UPLOAD_MAX_LABEL}: one Import Link body, an array of them, or NDJSON (one link per line)
          for a fleet. Each link is checked against the upstream&rsquo;s rules before anything is sent. The upstream
          takes at most 1 MB and {IMPORT_MAX_TRANSACTIONS.toLocaleString("en-US")} transactions per call: bigger links
          are imported with their accounts and a first batch, then the rest in batches.
          {importLimit
            ? ` Linkdesk’s share: ${importLimit.limit} imports a minute (${headroom.imports[0]!.remaining} left now)`
            : ""}
          {batchLimit ? ` and ${batchLimit.limit} transaction batches a minute.` : "."}
        </p>
      </Callout>

      <div className="flex flex-wrap items-end gap-3 text-sm">
        <label className="flex flex-col gap-1">
          <span className="font-medium text-slate-900">Know each link by</span>
          <input
            className="w-56 rounded border border-slate-300 px-2 py-1"
            placeholder="customer, institution, accounts"
            value={identityTag}
            onChange={(event) => setIdentityTag(event.target.value)}
            onBlur={() => {
              if (file && reading.status === "read" && identityTag.trim() !== readWith) choose(file);
            }}
            aria-describedby="identity-help"
            data-testid="identity-tag"
          />
        </label>
        <p id="identity-help" className="max-w-2xl text-slate-600">
          Empty: a link is the same link when its customer user, institution and account ids are. Or the name of a tag
          of your own, e.g. <code>legacy_id</code> for <code>link_tags: [&quot;legacy_id:42&quot;]</code>. Links
          imported before are skipped, whatever the file looks like.
        </p>
      </div>

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
          ) : (
            <>
              <FileSummary report={report} fileName={reading.file.name} ms={reading.ms} />
              <InvalidLinks report={report} />
              <DuplicateLinks report={report} />
              {checked && checked.known.length > 0 ? <AlreadyImported known={checked.known} report={report} /> : null}
              {checked ? (
                <UpstreamMatches
                  preview={checked.upstream}
                  choices={choices}
                  onChange={decide}
                  disabled={action.isPending}
                />
              ) : null}
              {checked ? (
                <Callout title="Plan" role="status">
                  <p data-testid="plan">
                    {checked.valid === 0 && updating === 0
                      ? `Nothing new to import: every link of the file that can be imported is imported already${checked.upstream.counts.same > 0 ? " or at the upstream" : ""}.`
                      : `${checked.calls.imports} import call${checked.calls.imports === 1 ? "" : "s"}${checked.calls.batches > 0 ? ` and ${checked.calls.batches} transaction batch${checked.calls.batches === 1 ? "" : "es"}` : ""}${checked.upstream.updateCalls.updates > 0 ? ` and ${count(checked.upstream.updateCalls.updates, "tag and webhook update")}` : ""} for ${count(checked.valid, "new link")}${updating > 0 ? ` and ${count(updating, "link")} the upstream has` : ""}: ${checked.duration}${checked.binding ? ` at ${checked.binding}` : ""}.`}{" "}
                    {skippedInWords(checked.alreadyImported, checked.duplicates)}
                    Nothing is sent until you start the import.
                  </p>
                </Callout>
              ) : plan ? (
                <Callout title="Plan" role="status">
                  <p data-testid="plan">
                    {report.calls.imports} import call{report.calls.imports === 1 ? "" : "s"}
                    {report.calls.batches > 0
                      ? ` and ${report.calls.batches} transaction batch${report.calls.batches === 1 ? "" : "es"}`
                      : ""}{" "}
                    for {report.valid} link
                    {report.valid === 1 ? "" : "s"}: {describeDuration(plan.seconds)} at {plan.binding.endpoint}&rsquo;s
                    limit ({plan.binding.limit}/min, {plan.binding.remaining} left now).{" "}
                    {action.isPending ? "Checking against the links Linkdesk imported before…" : ""}
                  </p>
                </Callout>
              ) : null}
              {checked && checked.categories.corrections > 0 ? (
                <label className="flex items-start gap-2 text-sm text-slate-800">
                  <input
                    type="checkbox"
                    className="mt-1"
                    checked={carryCategories}
                    onChange={(event) => setCarryCategories(event.target.checked)}
                    data-testid="carry-categories"
                  />
                  <span>
                    Carry the file&rsquo;s legacy categories over: after each link is imported, correct its transactions
                    whose category upstream differs from the file&rsquo;s, as part of the same job (up to{" "}
                    {checked.categories.corrections.toLocaleString("en-US")} Correct Enrichment call
                    {checked.categories.corrections === 1 ? "" : "s"} over {checked.categories.links} link
                    {checked.categories.links === 1 ? "" : "s"}: {checked.categories.duration} more; each audited, those
                    already right skipped).
                  </span>
                </label>
              ) : null}
              <LinkPreviewTable
                report={report}
                names={names.data}
                known={checked ? new Set(checked.known.map((k) => k.position)) : undefined}
                atUpstream={atUpstream}
              />
              <LinkNotes report={report} />
              <div className="flex flex-wrap items-center gap-2">
                <button
                  type="button"
                  className={`${button} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`}
                  disabled={action.isPending || report.valid === 0}
                  onClick={() => send(true)}
                >
                  Check again
                </button>
                <button
                  type="button"
                  className={`${button} border-indigo-600 bg-indigo-600 text-white hover:bg-indigo-700`}
                  disabled={action.isPending || (newLinks === 0 && updating === 0)}
                  onClick={() => send(false)}
                >
                  Import {newLinks} {checked ? "new " : ""}link{newLinks === 1 ? "" : "s"}
                  {updating > 0 ? ` and update ${updating}` : ""}
                </button>
                <button
                  type="button"
                  className={`${button} border-slate-300 bg-white text-slate-800 hover:bg-slate-50`}
                  onClick={() =>
                    download(
                      `${reading.file.name.replace(/\.[^.]*$/, "")}-validation.csv`,
                      reconciliationCsv(validationRows(report, checked?.known, checked?.upstream.rows)),
                    )
                  }
                >
                  Download validation report (CSV)
                </button>
                <button
                  type="button"
                  className={`${button} border-transparent text-slate-600 underline`}
                  onClick={() => (resetAction(), reset())}
                >
                  Choose another file
                </button>
                {action.isPending ? (
                  <span role="status" className="text-sm text-slate-600">
                    Linkdesk is checking the file…
                  </span>
                ) : null}
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
      {checked ? (
        <Callout tone="success" title="Checked by Linkdesk: nothing was sent" role="status">
          <p data-testid="dry-run">
            {count(checked.valid, "new link")}, {checked.alreadyImported} already imported, {checked.duplicates} listed
            twice, {checked.invalid} with problems{upstreamInWords(checked.upstream.counts)};{" "}
            {count(checked.transactions, "transaction")} in{" "}
            {count(checked.calls.imports + checked.calls.batches, "call")} ({count(checked.calls.imports, "import")},{" "}
            {count(checked.calls.batches, "batch", "batches")}): {checked.duration}
            {checked.binding ? ` at ${checked.binding}` : ""}.
          </p>
        </Callout>
      ) : null}
      {answer?.outcome === "nothing_new" ? (
        <Callout tone="warning" title="Nothing new to import" role="status">
          <p data-testid="already-imported">
            All {answer.alreadyImported} link{answer.alreadyImported === 1 ? "" : "s"} of this file that can be imported{" "}
            {answer.alreadyImported === 1 ? "is" : "are"} imported already
            {answer.duplicates > 0 ? ` (${answer.duplicates} more listed twice)` : ""}; nothing was started.
          </p>
          <p className="mt-2 flex flex-wrap gap-3">
            {answer.jobIds.slice(0, 5).map((jobId) => (
              <Link key={jobId} className="font-medium text-indigo-700 underline" href={`/import?job=${jobId}`}>
                Show import {jobId.slice(0, 8)}
              </Link>
            ))}
          </p>
        </Callout>
      ) : null}
    </div>
  );
}

/** Links the file lists twice (by identity): each is imported once, from its first line. */
function DuplicateLinks({ report }: { report: FileReport }) {
  const duplicates = report.links.filter((l) => l.duplicateOf);
  if (duplicates.length === 0) return null;
  return (
    <Callout
      tone="warning"
      title={`${duplicates.length} link${duplicates.length === 1 ? " is" : "s are"} listed twice`}
    >
      <ul className="list-disc pl-5" data-testid="duplicates">
        {duplicates.slice(0, 20).map((l) => (
          <li key={l.position}>
            {whereInFile(l)} is the same link as {whereInFile(report.links[l.duplicateOf!.position]!)} (customer{" "}
            {l.customerUserId ?? "–"}, {l.institutionId ?? "–"}): imported once.
          </li>
        ))}
        {duplicates.length > 20 ? <li>and {duplicates.length - 20} more (all in the validation report)</li> : null}
      </ul>
    </Callout>
  );
}

/** Links Linkdesk imported before, by any job, whatever that file's bytes: skipped. */
function AlreadyImported({ known, report }: { known: KnownLink[]; report: FileReport }) {
  const byPosition = new Map(report.links.map((l) => [l.position, l]));
  return (
    <Callout
      tone="warning"
      title={`${known.length} link${known.length === 1 ? " was" : "s were"} imported before: skipped`}
    >
      <ul className="list-disc pl-5" data-testid="known-links">
        {known.slice(0, 20).map((k) => (
          <li key={k.position}>
            {byPosition.has(k.position) ? whereInFile(byPosition.get(k.position)!) : `#${k.position + 1}`}:{" "}
            {k.linkId ? (
              <>
                already imported, link{" "}
                <Link className="font-mono text-indigo-700 underline" href={`/links/${encodeURIComponent(k.linkId)}`}>
                  {k.linkId}
                </Link>
              </>
            ) : (
              "being imported by another job"
            )}{" "}
            (
            <Link className="text-indigo-700 underline" href={`/import?job=${k.jobId}`}>
              its import
            </Link>
            )
          </li>
        ))}
        {known.length > 20 ? <li>and {known.length - 20} more (all in the validation report)</li> : null}
      </ul>
    </Callout>
  );
}
