"use client";

import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { registerLinkIdsFile } from "@/lib/actions/discovery";
import { LINK_SOURCE_LABELS, LINK_SOURCE_ORDER } from "@/lib/links/link-sources";
import {
  LINK_ID_EXAMPLE,
  type LinkIdFile,
  REGISTER_FILE_MAX_IDS,
  REGISTER_FILE_MAX_LABEL,
  parseLinkIdFile,
  registerFileSchema,
} from "@/lib/schemas/discovery";

// An admin uploads a file of link ids the product's back end knows: one id a line, or CSV with a link_id column. The
// page reads the file first and shows what it holds (ids, duplicates, lines without a link id by number); the server
// reads and checks it again with the same code, then registers the ids. Nothing the page concluded is trusted.

/** Lines without a link id listed on the page; the rest are counted. */
const LINES_SHOWN = 100;

type Reading =
  { status: "none" } | { status: "refused"; message: string } | { status: "read"; file: File; report: LinkIdFile };

const count = (n: number, one: string, other: string) => `${n.toLocaleString("en")} ${n === 1 ? one : other}`;

export function RegisterLinkIdsForm() {
  const router = useRouter();
  const hydrated = useHydrated();
  const [reading, setReading] = useState<Reading>({ status: "none" });
  const registering = useAction(registerLinkIdsFile, { onSuccess: () => router.refresh() });
  const result = registering.hasSucceeded ? registering.result.data : undefined;
  const failure = registering.hasErrored
    ? (registering.result.serverError ??
      registering.result.validationErrors?.fieldErrors?.file?.[0] ??
      registering.result.validationErrors?.formErrors?.[0] ??
      "Linkdesk did not answer. Check your connection, reload the page and look before trying again.")
    : undefined;

  const choose = async (file: File | undefined) => {
    registering.reset();
    if (!file) return setReading({ status: "none" });
    const checked = registerFileSchema.safeParse({ file });
    if (!checked.success)
      return setReading({
        status: "refused",
        message: checked.error.issues[0]?.message ?? "This file cannot be read.",
      });
    const report = parseLinkIdFile(await file.text());
    setReading(report.refusal ? { status: "refused", message: report.refusal } : { status: "read", file, report });
  };

  const report = reading.status === "read" ? reading.report : undefined;
  return (
    <div className="space-y-4">
      <form
        aria-labelledby="register-heading"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (reading.status === "read") registering.execute({ file: reading.file });
        }}
        className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
      >
        <h2 id="register-heading" className="text-base font-semibold text-slate-900">
          Register a file of link ids
        </h2>
        <p className="text-sm text-slate-600">
          A text file with one link id a line (like <span className="font-mono">{LINK_ID_EXAMPLE}</span>), or a CSV file
          whose first row names a <span className="font-mono">link_id</span> column (other columns are ignored). Up to{" "}
          {REGISTER_FILE_MAX_LABEL} and {REGISTER_FILE_MAX_IDS.toLocaleString("en")} ids. Ids Linkdesk knows already are
          left as they are; new ones are read by the sync, never-read links first.
        </p>
        <div>
          <label htmlFor="link-ids-file" className="block text-sm font-medium text-slate-700">
            File of link ids
          </label>
          <input
            id="link-ids-file"
            type="file"
            accept=".txt,.csv,text/plain,text/csv"
            disabled={!hydrated}
            onChange={(event) => void choose(event.currentTarget.files?.[0])}
            className="mt-1 block text-sm text-slate-700 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium hover:file:bg-slate-50"
          />
        </div>
        {reading.status === "refused" ? (
          <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            {reading.message}
          </p>
        ) : null}
        {report ? (
          <div className="space-y-2 text-sm text-slate-700" data-testid="link-ids-preview">
            <p>
              {count(report.ids.length, "link id", "link ids")} to register (
              {report.format === "csv" ? "CSV, link_id column" : "one id a line"})
              {report.duplicates > 0 ? `, ${count(report.duplicates, "duplicate", "duplicates")} counted once` : ""}
              {report.invalid.length > 0
                ? `, ${count(report.invalid.length, "line", "lines")} without a link id (not registered)`
                : ""}
              .
            </p>
            {report.invalid.length > 0 ? <InvalidLines lines={report.invalid} /> : null}
          </div>
        ) : null}
        <button
          type="submit"
          disabled={!hydrated || !report || report.ids.length === 0 || registering.isPending}
          className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
        >
          {registering.isPending
            ? "Registering…"
            : report
              ? `Register ${count(report.ids.length, "link id", "link ids")}`
              : "Register"}
        </button>
      </form>

      {failure ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {failure}
        </p>
      ) : null}
      {result ? (
        <div
          role="status"
          className="space-y-1 rounded-md border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-950"
          data-testid="registration-result"
        >
          <p className="font-medium">Registered</p>
          <dl className="grid grid-cols-[12rem_1fr] gap-x-3 gap-y-0.5">
            <dt>New to Linkdesk</dt>
            <dd data-testid="registered-new">{result.registered.toLocaleString("en")}</dd>
            <dt>Already known</dt>
            <dd data-testid="registered-known">{result.alreadyKnown.toLocaleString("en")}</dd>
            <dt>Lines without a link id</dt>
            <dd data-testid="registered-invalid">{result.invalid.toLocaleString("en")}</dd>
            <dt>Duplicates counted once</dt>
            <dd>{result.duplicates.toLocaleString("en")}</dd>
          </dl>
          <p className="pt-1 text-emerald-900">
            The read model now holds{" "}
            {LINK_SOURCE_ORDER.filter((source) => result.bySource[source])
              .map(
                (source) =>
                  `${result.bySource[source]!.toLocaleString("en")} from ${LINK_SOURCE_LABELS[source].toLowerCase()}`,
              )
              .join(", ") || "no links"}
            .
          </p>
        </div>
      ) : null}
    </div>
  );
}

function InvalidLines({ lines }: { lines: LinkIdFile["invalid"] }) {
  return (
    <div className="max-h-64 overflow-auto rounded-md border border-amber-200 bg-amber-50">
      <table className="w-full text-left text-sm text-amber-950">
        <caption className="px-3 pt-2 text-left text-xs font-medium">Lines without a link id</caption>
        <thead className="text-xs">
          <tr>
            <th scope="col" className="px-3 py-1 font-medium">
              Line
            </th>
            <th scope="col" className="px-3 py-1 font-medium">
              Why
            </th>
            <th scope="col" className="px-3 py-1 font-medium">
              It says
            </th>
          </tr>
        </thead>
        <tbody>
          {lines.slice(0, LINES_SHOWN).map((line) => (
            <tr key={line.line} className="border-t border-amber-200" data-testid="invalid-line">
              <td className="px-3 py-1 tabular-nums">{line.line}</td>
              <td className="px-3 py-1">{line.reason}</td>
              <td className="px-3 py-1 font-mono text-xs break-all">{line.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {lines.length > LINES_SHOWN ? (
        <p className="px-3 py-1 text-xs">…and {(lines.length - LINES_SHOWN).toLocaleString("en")} more.</p>
      ) : null}
    </div>
  );
}
