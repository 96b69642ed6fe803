"use client";

import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { BulkBar } from "./bulk-bar";
import type { DeskTableMeta } from "./columns";
import { CorrectionJobPanel } from "./correction-job-panel";
import { DeskPageLinks } from "./desk-page-links";
import { DeskSummary, DeskUnreadable } from "./desk-summary";
import { type Review, ReviewList } from "./review-list";
import { ShortcutsHelp } from "./shortcuts";
import { TransactionFiltersBar } from "./transaction-filters";
import { TransactionsTable } from "./transactions-table";
import { describePair, useDeskCorrections } from "./use-desk-corrections";
import { type DeskPage, useTransactionsPage } from "./use-desk-data";
import { useDeskSelection } from "./use-desk-selection";
import { useDeskShortcuts } from "./use-desk-shortcuts";
import { useDeskView } from "./use-desk-view";

// The correction desk on a link's page: find (filters in the URL, search, a virtualised table), fix one (the category
// control, optimistic), fix everything like it (a review of the similar ones, or of the rows chosen, run as a durable
// job), undo, all from the keyboard too. This file puts the parts together and keeps what they share: the active row,
// the open category control and review, and what the live region announces.

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
  const { query, filters, jobId, setParams } = useDeskView();
  const { data, error, isFetching } = useTransactionsPage(linkId, query, initial);
  const rows = useMemo(() => data?.rows ?? [], [data]);

  // The active row is kept by id, so it stays put when the rows are refetched (a correction, a job's progress).
  const [activeId, setActiveId] = useState<string | null>(null);
  const [focusRequest, setFocusRequest] = useState(0);
  const activeIndex = Math.max(0, activeId === null ? 0 : rows.findIndex((r) => r.id === activeId));
  const setActiveIndex = (index: number) => setActiveId(rows[index]?.id ?? null);
  const focusActive = () => setFocusRequest((n) => n + 1);

  const [editingId, setEditingId] = useState<string | null>(null);
  const [review, setReview] = useState<Review | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const [helpOpen, setHelpOpen] = useState(false);
  const [now, setNow] = useState(renderedAt);
  const searchRef = useRef<HTMLInputElement>(null);

  const corrections = useDeskCorrections({
    linkId,
    announce: setAnnouncement,
    showJob: (id) => setParams({ job: id }),
  });
  const selection = useDeskSelection({ linkId, query, rows, announce: setAnnouncement });

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
    selection.reset();
    setEditingId(null);
  }

  const openSimilar = () => {
    const { similar, lastSimilarId } = corrections;
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

  useDeskShortcuts({
    canCorrect,
    helpOpen,
    onMove: (delta) => {
      if (rows.length === 0) return;
      setActiveIndex(Math.min(rows.length - 1, Math.max(0, activeIndex + delta)));
      focusActive();
    },
    onToggleSelect: () => {
      const active = rows[activeIndex];
      if (!active) return false;
      selection.onSelectionChange((prev) => {
        const next = { ...prev };
        if (next[active.id]) delete next[active.id];
        else next[active.id] = true;
        return next;
      });
      return true;
    },
    onEdit: () => {
      const active = rows[activeIndex];
      if (!active) return false;
      setEditingId(active.id);
      return true;
    },
    onSimilar: openSimilar,
    onUndo: () => void corrections.undoLast(),
    onSearch: () => {
      searchRef.current?.focus();
      searchRef.current?.select();
    },
    onToggleHelp: () => setHelpOpen((open) => !open),
    onEscape: () => {
      if (editingId) {
        setEditingId(null);
        focusActive();
      } else if (review) setReview(null);
      else return false;
      return true;
    },
  });

  const meta: DeskTableMeta = {
    canCorrect,
    editingId,
    activeId: rows[activeIndex]?.id ?? null,
    marks: data?.marks ?? {},
    errors: corrections.errors,
    now,
    onEdit: (id) => {
      setActiveId(id);
      setEditingId(id);
    },
    onCancelEdit: () => {
      setEditingId(null);
      focusActive();
    },
    onChoose: (row, pair) => {
      setEditingId(null);
      focusActive();
      corrections.choose(row, pair);
    },
    onUndo: corrections.undoRow,
    busyIds: corrections.busy,
  };

  const { similar, lastSimilarId } = corrections;
  return (
    <div className="space-y-3" data-testid="transactions-desk">
      <TransactionFiltersBar
        key={query}
        ref={searchRef}
        filters={filters}
        accounts={data?.accounts ?? []}
        other={data ? { categories: data.otherCategories, subcategories: data.otherSubcategories } : undefined}
        onApply={(next) => setParams({}, next)}
      />
      {data?.dropped && data.dropped.length > 0 ? (
        <p role="status" className="rounded border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Ignored: {data.dropped.map((d) => `${d.param} “${d.value}” (${d.reason})`).join("; ")}.
        </p>
      ) : null}

      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <DeskSummary data={data} failed={Boolean(error)} isFetching={isFetching} now={now} />
        <div className="flex items-center gap-3">
          {data ? (
            <DeskPageLinks page={data.page} pageCount={data.pageCount} onPage={(page) => setParams({ page })} />
          ) : null}
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
      {data ? <DeskUnreadable items={data.unreadable} /> : null}

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

      {canCorrect && selection.selectedCount > 0 ? (
        <BulkBar
          selectedCount={selection.selectedCount}
          allMatching={selection.allMatching}
          matching={data?.matching}
          loadingAll={selection.loadingAll}
          onSelectAllMatching={() => void selection.selectAllMatching()}
          onClear={() => selection.onSelectionChange({})}
          choosingTarget={selection.choosingTarget}
          onChoosingTarget={selection.setChoosingTarget}
          onChoose={(pair) => setReview(selection.reviewOf(pair))}
        />
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
            selection.onSelectionChange({});
            corrections.rememberJob(id, `${review.title} to ${describePair(review.target)}`);
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
          rowSelection={selection.rowSelection}
          onRowSelectionChange={selection.onSelectionChange}
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
