import { type ReactNode, Suspense } from "react";

/**
 * A widget fed by a kept read (lib/db/cached-read.ts): when the read has its answer at hand (`value`), the widget is
 * rendered in the page's own pass; otherwise it waits for `load()` in its own Suspense boundary, so that a cold read
 * holds up only itself. Each boundary that waits costs its fallback, a streamed segment and a script to swap them in,
 * which on a page of kept reads is most of the work of serving it.
 */
export function AtHand<T>({
  value,
  load,
  fallback,
  children,
}: {
  value: T | undefined;
  load: () => Promise<T>;
  fallback: ReactNode;
  children: (value: T) => ReactNode;
}) {
  if (value !== undefined) return children(value);
  return (
    <Suspense fallback={fallback}>
      <Loaded load={load} render={children} />
    </Suspense>
  );
}

async function Loaded<T>({ load, render }: { load: () => Promise<T>; render: (value: T) => ReactNode }) {
  return render(await load());
}
