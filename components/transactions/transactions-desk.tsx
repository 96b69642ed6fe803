"use client";

import type { RowSelectionState, Updater } from "@tanstack/react-table";
import { useSearchParams } from "next/navigation";
import Link from "next/link";
import { useCallback, useEffect, useEffectEvent, useMemo, useRef, useState } from "react";
import { undoJob } from "@/lib/actions/jobs";
import type { CategoryPair } from "@/lib/transactions/categories";
import { parseTransactionFilters, transactionViewQuery } from "@/lib/transactions/filters";
import type { TransactionRow } from "@/lib/transactions/rows";
import type { CorrectionMark } from "@/lib/transactions/view";
import { categoryLabel, subcategoryLabel } from "@/lib/upstream/taxonomy";
import { CategoryCombobox } from "./category-combobox";
import type { DeskTableMeta } from "./columns";
import { CorrectionJobPanel } from "./correction-job-panel";
import { type Review, ReviewList } from "./review-list";
import {
  type RecentChange,
  ShortcutsHelp,
  isTypingTarget,
  readRecentChanges,
  sessionStore,
  writeRecentChanges,
} from "./shortcuts";
import { TransactionFiltersBar } from "./transaction-filters";
import { TransactionsTable } from "./transactions-table";
import {
  type DeskPage,
  fetchTransactions,
  useCorrectTransaction,
  useTransactionsPage,
  useUndoCorrection,
} from "./use-desk-data";

// The correction desk on a link's page: find (filters in the URL, search, a virtualised table), fix one (the category
// control, optimistic), fix everything like it (a review of the similar ones, or of the rows chosen, run as a durable
// job), undo, all from the keyboard too.

type Change = RecentChange;

const describe = (pair: CategoryPair) =>
  `${categoryLabel(pair.category)}${pair.subcategory ? ` › ${subcategoryLabel(pair.subcategory)}` : ""}`;
const EMPTY_SET: ReadonlySet<string> = new Set();

export function TransactionsDesk({
  linkId,
  canCorrect,
  initial,
  renderedAt,
}: {
  linkId: string;
  canCorrect: boolean;
  initial: { query: string; page: DeskPage } | null;
  renderedAt: number;
}) {
  const searchParams = useSearchParams();
  // The view's part of the URL, normalised as on the server, so the first render's data is reused.
  const query = useMemo(() => transactionViewQuery(new URLSearchParams(searchParams.toString())), [searchParams]);
  const { filters } = useMemo(() => parseTransactionFilters(new URLSearchParams(query)), [query]);
  const jobId = searchParams.get("job");
  const { data, error, isFetching } = useTransactionsPage(linkId, query, initial);
  const rows = useMemo(() => data?.rows ?? [], [data]);

  // The active row is kept by id, so it stays put when the rows are refetched (a correction, a job's progress).
  const [activeId, setActiveId] = useState<string | null>(null);
  const [focusRequest, setFocusRequest] = useState(0);
  const activeIndex = Math.max(0, activeId === null ? 0 : rows.findIndex((r) => r.id === activeId));
  const setActiveIndex = (index: number) => setActiveId(rows[index]?.id ?? null);

  const [editingId, setEditingId] = useState<string | null>(null);
  const [rowSelection, setRowSelection] = useState<RowSelectionState>({});
  const [allMatching, setAllMatching] = useState<TransactionRow[] | null>(null);
  const [loadingAll, setLoadingAll] = useState(false);
  const [choosingBulkTarget, setChoosingBulkTarget] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<ReadonlySet<string>>(EMPTY_SET);
  const [similar, setSimilar] = useState<Record<string, Review>>({});
  const [lastSimilarId, setLastSimilarId] = useState<string | null>(null);
  const [review, setReview] = useState<Review | null>(null);
  // What `z` undoes, newest last. Only event handlers read it (nothing renders it), so it is a ref kept in step with
  // the tab's sessionStorage: read there on first use, written on every change, so a reload still knows the person's
  // last change here. The server checks each one again (audit row, current category, job) before undoing it.
  const changesRef = useRef<{ linkId: string; list: Change[] } | null>(null);
  const currentChanges = () => {
    if (changesRef.current?.linkId !== linkId)
      changesRef.current = { linkId, list: readRecentChanges(sessionStore(), linkId) };
    return changesRef.current.list;
  };
  const setChanges = (update: (prev: Change[]) => Change[]) => {
    const list = update(currentChanges());
    changesRef.current = { linkId, list };
    writeRecentChanges(sessionStore(), linkId, list);
  };
  const [announcement, setAnnouncement] = useState("");
  const [helpOpen, setHelpOpen] = useState(false);
  const [now, setNow] = useState(renderedAt);
  const searchRef = useRef<HTMLInputElement>(null);

  const correct = useCorrectTransaction(linkId);
  const undo = useUndoCorrection(linkId);

  useEffect(() => {
    const tick = () => setNow(Date.now());
    tick();
    const timer = setInterval(tick, 30_000);
    return () => clearInterval(timer);
  }, []);

  // A new view starts at its first row with nothing selected (reset while rendering, as React advises, not in an effect).
  const [shownQuery, setShownQuery] = useState(query);
  if (shownQuery !== query) {
    setShownQuery(query);
    setActiveId(null);
    setRowSelection({});
    setAllMatching(null);
    setEditingId(null);
  }

  /** Changes URL parameters without a server round trip: the table refetches from the link's cached history. */
  const setParams = useCallback((changes: Record<string, string | null>, replaceView?: string) => {
    const next = new URLSearchParams(replaceView ?? window.location.search);
    if (replaceView !== undefined) {
      const job = new URLSearchParams(window.location.search).get("job");
      if (job) next.set("job", job);
    }
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    const search = next.toString();
    window.history.pushState(null, "", `${window.location.pathname}${search ? `?${search}` : ""}`);
  }, []);

  const setBusyFor = (id: string, on: boolean) =>
    setBusy((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const setErrorFor = (id: string, message: string | null) =>
    setErrors((prev) => {
      const next = { ...prev };
      if (message) next[id] = message;
      else delete next[id];
      return next;
    });
  const focusActive = () => setFocusRequest((n) => n + 1);

  const choose = (row: TransactionRow, pair: CategoryPair) => {
    setEditingId(null);
    setErrorFor(row.id, null);
    setBusyFor(row.id, true);
    focusActive();
    correct.mutate(
      { linkId, transactionId: row.id, category: pair.category, subcategory: pair.subcategory!, date: row.date },
      {
        onSuccess: (result) => {
          setChanges((prev) => [
            ...prev,
            {
              kind: "single",
              correlationId: result.correlationId,
              transactionId: row.id,
              date: row.date,
              before: result.mark.before,
              label: `${row.description} to ${describe(pair)}`,
            },
          ]);
          // The count is what the review ticks: similar transactions not in that category yet.
          if (result.similarCount > 0) {
            setSimilar((prev) => ({
              ...prev,
              [row.id]: {
                title: `${result.similarCount} similar to ${row.description || row.id}`,
                target: pair,
                rows: result.similar,
              },
            }));
            setLastSimilarId(row.id);
          }
          setAnnouncement(
            `Saved: ${row.description} is now ${describe(pair)}.${result.similarCount > 0 ? ` The upstream found ${result.similarCount} similar in another category: press s to review them.` : ""}`,
          );
        },
        onError: (err) => {
          setErrorFor(row.id, err.message);
          setAnnouncement(`Not saved, ${row.description} is back to what it was: ${err.message}`);
        },
        onSettled: () => setBusyFor(row.id, false),
      },
    );
  };

  const undoSingle = (change: {
    correlationId: string;
    transactionId: string;
    date: string;
    before: CategoryPair | null;
    label: string;
  }) => {
    setErrorFor(change.transactionId, null);
    setBusyFor(change.transactionId, true);
    undo.mutate(
      {
        correlationId: change.correlationId,
        transactionId: change.transactionId,
        date: change.date,
        before: change.before,
      },
      {
        onSuccess: (result) =>
          setAnnouncement(
            `Undone: ${change.label.split(" to ")[0]} is back to ${describe(result.restored as CategoryPair)}.`,
          ),
        onError: (err) => {
          setErrorFor(change.transactionId, err.message);
          setAnnouncement(`Not undone: ${err.message}`);
        },
        onSettled: () => setBusyFor(change.transactionId, false),
      },
    );
  };

  const undoRow = (row: TransactionRow, mark: CorrectionMark) =>
    undoSingle({
      correlationId: mark.correlationId,
      transactionId: row.id,
      date: row.date,
      before: mark.before,
      label: row.description,
    });

  const undoLast = async () => {
    const last = currentChanges().at(-1);
    if (!last) {
      setAnnouncement("Nothing to undo: you have made no change here yet.");
      return;
    }
    setChanges((prev) => prev.slice(0, -1));
    if (last.kind === "single") {
      undoSingle(last);
      return;
    }
    setAnnouncement(`Undoing the bulk job: ${last.label}…`);
    const result = await undoJob({ jobId: last.jobId });
    if (result?.data) {
      setParams({ job: result.data.jobId });
      setAnnouncement(`Undoing the bulk job ${last.label} as a job of its own.`);
    } else {
      setChanges((prev) => [...prev, last]);
      setAnnouncement(`Not undone: ${result?.serverError ?? "Linkdesk did not answer."}`);
    }
  };

  const openSimilar = () => {
    const active = rows[activeIndex];
    const found = (active && similar[active.id]) || (lastSimilarId ? similar[lastSimilarId] : undefined);
    if (!found) {
      setAnnouncement(
        "No similar transactions to review yet: correct one first (c); the upstream names the similar ones in its answer.",
      );
      return;
    }
    setReview(found);
  };

  const selectedIds = useMemo(() => Object.keys(rowSelection).filter((id) => rowSelection[id]), [rowSelection]);
  const selectedCount = allMatching ? allMatching.length : selectedIds.length;

  const selectAllMatching = async () => {
    setLoadingAll(true);
    try {
      const everything = await fetchTransactions(linkId, query, true);
      setAllMatching(everything.rows);
      setRowSelection(Object.fromEntries(rows.map((r) => [r.id, true] as const)) as RowSelectionState);
      setAnnouncement(`${everything.rows.length} transactions matching the filter are selected, over all pages.`);
    } catch (err) {
      setAnnouncement(`Could not select every matching row: ${(err as Error).message}`);
    } finally {
      setLoadingAll(false);
    }
  };

  const reviewSelection = (pair: CategoryPair) => {
    setChoosingBulkTarget(false);
    const chosen = allMatching ?? rows.filter((r) => rowSelection[r.id]);
    setReview({
      title: allMatching ? `every transaction matching the filter (${chosen.length})` : `${chosen.length} selected`,
      target: pair,
      rows: chosen,
    });
  };

  const onSelectionChange = (updater: Updater<RowSelectionState>) => {
    setAllMatching(null);
    setRowSelection((prev) => (typeof updater === "function" ? updater(prev) : updater));
  };

  // The shortcuts. None fires while someone types in a field, or with a modifier (the browser's own keys).
  const onKey = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTypingTarget(event.target)) return;
    if (helpOpen && event.key !== "?") return;
    const move = (delta: number) => {
      if (rows.length === 0) return;
      setActiveIndex(Math.min(rows.length - 1, Math.max(0, activeIndex + delta)));
      focusActive();
    };
    const active = rows[activeIndex];
    switch (event.key) {
      case "j":
        move(1);
        break;
      case "k":
        move(-1);
        break;
      case "x":
        if (!canCorrect || !active) return;
        onSelectionChange((prev) => {
          const next = { ...prev };
          if (next[active.id]) delete next[active.id];
          else next[active.id] = true;
          return next;
        });
        break;
      case "c":
        if (!canCorrect || !active) return;
        setEditingId(active.id);
        break;
      case "s":
        if (!canCorrect) return;
        openSimilar();
        break;
      case "z":
        if (!canCorrect) return;
        void undoLast();
        break;
      case "/":
        searchRef.current?.focus();
        searchRef.current?.select();
        break;
      case "?":
        setHelpOpen((open) => !open);
        break;
      case "Escape":
        if (editingId) {
          setEditingId(null);
          focusActive();
        } else if (review) setReview(null);
        else return;
        break;
      default:
        return;
    }
    event.preventDefault();
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKey(event);
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);

  const meta: DeskTableMeta = {
    canCorrect,
    editingId,
    activeId: rows[activeIndex]?.id ?? null,
    marks: data?.marks ?? {},
    errors,
    now,
    onEdit: (id) => {
      setActiveId(id);
      setEditingId(id);
    },
    onCancelEdit: () => {
      setEditingId(null);
      focusActive();
    },
    onChoose: choose,
    onUndo: undoRow,
    busyIds: busy,
  };

  const pageLinks = data && data.pageCount > 1 && (
    <nav aria-label="Transaction pages" className="flex items-center gap-2 text-sm">
      <button
        type="button"
        disabled={data.page <= 1}
        onClick={() => setParams({ page: data.page - 1 > 1 ? String(data.page - 1) : null })}
        className="rounded-md border border-slate-300 px-2.5 py-1 disabled:opacity-40 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        Previous
      </button>
      <span className="tabular-nums text-slate-600">
        Page {data.page} of {data.pageCount}
      </span>
      <button
        type="button"
        disabled={data.page >= data.pageCount}
        onClick={() => setParams({ page: String(data.page + 1) })}
        className="rounded-md border border-slate-300 px-2.5 py-1 disabled:opacity-40 focus-visible:outline-2 focus-visible:outline-indigo-600"
      >
        Next
      </button>
    </nav>
  );

  return (
    <div className="space-y-3" data-testid="transactions-desk">
      <TransactionFiltersBar
        key={query}
        ref={searchRef}
        filters={filters}
        accounts={data?.accounts ?? []}
        onApply={(next) => setParams({}, next)}
      />
      {data?.dropped && data.dropped.length > 0 ? (
        <p role="status" className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Ignored: {data.dropped.map((d) => `${d.param} “${d.value}” (${d.reason})`).join("; ")}.
        </p>
      ) : null}

      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <p className="text-slate-700" data-testid="transactions-summary">
          {data ? (
            <>
              <span className="font-medium tabular-nums">{data.matching.toLocaleString("en")}</span> of{" "}
              {data.total.toLocaleString("en")} transactions
              {data.matching !== data.total ? " match" : ""}
              <span className="text-slate-500">
                {" "}
                · read from the upstream {Math.max(0, Math.round((now - data.readAt) / 1000))} s ago
              </span>
              {isFetching ? <span className="text-slate-500"> · updating…</span> : null}
            </>
          ) : error ? null : (
            "Loading…"
          )}
        </p>
        <div className="flex items-center gap-3">
          {pageLinks}
          <Link
            href={`/jobs?link=${encodeURIComponent(linkId)}`}
            className="text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Jobs of this link
          </Link>
          <button
            type="button"
            onClick={() => setHelpOpen(true)}
            className="rounded text-slate-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Shortcuts <kbd className="font-mono text-xs">?</kbd>
          </button>
        </div>
      </div>

      {error ? (
        <p role="alert" className="rounded border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          The transactions could not be read: {error.message}
        </p>
      ) : null}

      <p aria-live="polite" role="status" className="min-h-5 text-sm text-slate-800" data-testid="desk-announcement">
        {announcement}
      </p>

      {jobId ? (
        <CorrectionJobPanel
          key={jobId}
          linkId={linkId}
          jobId={jobId}
          canCorrect={canCorrect}
          onClose={() => setParams({ job: null })}
          onJob={(id) => setParams({ job: id })}
        />
      ) : null}

      {canCorrect && selectedCount > 0 ? (
        <div
          className="flex flex-wrap items-start gap-3 rounded-lg border border-sky-200 bg-sky-50 p-3 text-sm"
          data-testid="bulk-bar"
        >
          <span className="font-medium">
            {allMatching
              ? `All ${selectedCount.toLocaleString("en")} matching the filter selected`
              : `${selectedCount} selected`}
          </span>
          {!allMatching && data && data.matching > selectedCount ? (
            <button
              type="button"
              disabled={loadingAll}
              onClick={() => void selectAllMatching()}
              className="text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
            >
              {loadingAll ? "Counting…" : `Select all ${data.matching.toLocaleString("en")} matching the filter`}
            </button>
          ) : null}
          <button
            type="button"
            onClick={() => onSelectionChange({})}
            className="text-slate-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Clear selection
          </button>
          {choosingBulkTarget ? (
            <div className="w-full max-w-md">
              <CategoryCombobox
                label="Category for the selected transactions"
                autoFocus
                onChoose={reviewSelection}
                onCancel={() => setChoosingBulkTarget(false)}
              />
            </div>
          ) : (
            <button
              type="button"
              onClick={() => setChoosingBulkTarget(true)}
              className="rounded-md bg-indigo-600 px-2.5 py-1 font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
            >
              Set category…
            </button>
          )}
        </div>
      ) : null}

      {canCorrect && !review && lastSimilarId && similar[lastSimilarId] ? (
        <p className="text-sm text-slate-700">
          <button
            type="button"
            onClick={() => setReview(similar[lastSimilarId]!)}
            className="text-indigo-700 underline focus-visible:outline-2 focus-visible:outline-indigo-600"
          >
            Review the {similar[lastSimilarId]!.title}
          </button>{" "}
          <kbd className="font-mono text-xs">s</kbd>
        </p>
      ) : null}

      {review ? (
        <ReviewList
          key={`${review.title}:${review.target.category}:${review.target.subcategory}`}
          linkId={linkId}
          review={review}
          onClose={() => {
            setReview(null);
            focusActive();
          }}
          onStarted={(id) => {
            setReview(null);
            onSelectionChange({});
            setChanges((prev) => [
              ...prev,
              { kind: "job", jobId: id, label: `${review.title} to ${describe(review.target)}` },
            ]);
            setParams({ job: id });
            setAnnouncement(
              `Started a bulk correction of ${review.title}. It runs on the server: you can leave or reload this page.`,
            );
          }}
        />
      ) : null}

      {data && rows.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-6 text-sm text-slate-600">
          {data.total === 0
            ? "This link has no transactions."
            : "No transaction matches these filters. Clear a filter or widen the range."}
        </p>
      ) : (
        <TransactionsTable
          rows={rows}
          meta={meta}
          rowSelection={rowSelection}
          onRowSelectionChange={onSelectionChange}
          activeIndex={activeIndex}
          focusRequest={focusRequest}
          onActivate={setActiveIndex}
          label={`Transactions of link ${linkId}`}
        />
      )}
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} canCorrect={canCorrect} />
    </div>
  );
}
